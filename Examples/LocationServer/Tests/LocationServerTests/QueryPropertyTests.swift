import Hummingbird
import HummingbirdCore
import LocationEngine
import PropertyBased
import Testing

@testable import LocationServer

/// Properties of the query parser over generated queries: names known and unknown, repeated or not,
/// values valid, invalid and random, in any order.
@Suite("Query parameters, generated")
struct QueryPropertyTests {
    /// One endpoint's parser, as a function of the query's pairs.
    struct Endpoint: Sendable {
        var accepted: Set<String>
        var parse: @Sendable ([(name: String, value: String)]) -> Result<String, QueryError>

        static let location = Endpoint(accepted: LocationQuery.accepted) { pairs in
            Result { () throws(QueryError) in
                let query = try LocationQuery(QueryParameters(pairs: pairs, accepted: LocationQuery.accepted))
                return "\(query.accuracy) \(query.timeout)"
            }
        }
        static let updates = Endpoint(accepted: UpdatesQuery.accepted) { pairs in
            Result { () throws(QueryError) in
                "\(try UpdatesQuery(QueryParameters(pairs: pairs, accepted: UpdatesQuery.accepted)).options)"
            }
        }

        /// The error of `name=value` on its own (with the accuracy that `maxAge` needs on `/updates`).
        func alone(_ name: String, _ value: String) -> QueryError? {
            let context: [(name: String, value: String)] = accepted.contains("kind") && name == "maxAge" ? [("accuracy", "block")] : []
            if case .failure(let error) = parse(context + [(name, value)]) { return error }
            return nil
        }
    }

    static let names = [
        "accuracy", "maxAge", "timeout", "kind", "distance", "interval", "duration", "maxUpdates", "acuracy", "Timeout", "",
    ]
    static let values = [
        "city", "neighborhood", "block", "house", "room", "25", "12.5", "0", "-5", "1e3", "nan", "inf", "0x10", "", "2s",
        "250ms", "1m", "1d", "2d", "soon", "-1s", "1h30m", "3", "standard", "heading", "significant", "passive", "sometimes",
        "20000001", "1e400", " 5", "1", "7",
    ]

    /// Up to eight pairs, each a name and a value from the pools or a random short text.
    static let queries = zip(
        Gen.int(in: 0..<names.count), Gen.int(in: 0...values.count), Gen.letterOrNumber.string(of: 0...4)
    )
    .map { pick in (name: names[pick.0], value: pick.1 < values.count ? values[pick.1] : pick.2) }
    .array(of: 0...8)

    @Test("the order of the parameters does not change the answer", arguments: [Endpoint.location, .updates])
    func orderDoesNotMatter(endpoint: Endpoint) async {
        await propertyCheck(count: 400, input: Self.queries) { pairs in
            let answer = endpoint.parse(pairs)
            #expect(endpoint.parse(Array(pairs.reversed())) == answer)
            #expect(endpoint.parse(pairs.sorted { ($0.name, $0.value) < ($1.name, $1.value) }) == answer)
        }
    }

    @Test("every refusal names a parameter of the query", arguments: [Endpoint.location, .updates])
    func refusalsNameTheParameter(endpoint: Endpoint) async {
        await propertyCheck(count: 400, input: Self.queries) { pairs in
            let names = pairs.map(\.name)
            switch endpoint.parse(pairs) {
            case .success:
                #expect(names.allSatisfy(endpoint.accepted.contains), "accepted an unknown parameter: \(names)")
                #expect(Set(names).count == names.count, "accepted a repeated parameter: \(names)")
            case .failure(let error):
                #expect(names.contains(error.parameter), "\(error) names no parameter of \(pairs)")
                // Named as `name=value`, `'name'` or as the subject of the sentence (an empty name too).
                let name = error.parameter
                #expect(error.message.hasPrefix(name + "=") || error.message.contains("'\(name)'") || error.message.hasPrefix(name + " "))
            }
        }
    }

    @Test("a value is valid or not whatever the other parameters are", arguments: [Endpoint.location, .updates])
    func valuesAreCheckedOnTheirOwn(endpoint: Endpoint) async {
        await propertyCheck(count: 400, input: Self.queries) { generated in
            // Distinct accepted names: what is left to decide is the values and their combination.
            var seen = Set<String>()
            let pairs = generated.filter { endpoint.accepted.contains($0.name) && seen.insert($0.name).inserted }
            let invalidAlone = pairs.compactMap { endpoint.alone($0.name, $0.value) }
            switch endpoint.parse(pairs) {
            case .success:
                #expect(invalidAlone.isEmpty, "accepted \(pairs) though \(invalidAlone) is refused on its own")
            case .failure(let error):
                if let alone = pairs.first(where: { $0.name == error.parameter }).flatMap({ endpoint.alone($0.name, $0.value) }) {
                    #expect(alone == error, "refused differently on its own")
                } else {
                    // Every value is fine on its own: only a combination may be refused.
                    #expect(invalidAlone.isEmpty && ["maxAge", "maxUpdates"].contains(error.parameter), "\(error) for \(pairs)")
                }
            }
        }
    }

    @Test("a level or metres, a maximum age and a timeout come back as written")
    func locationRoundTrip() async {
        let input = zip(
            Gen.int(in: -4...5000), Gen.int(in: 0...86_400).optional, Gen.int(in: 1...86_400_000))
        await propertyCheck(count: 300, input: input) { choice in
            let (accuracy, maxAge, milliseconds) = choice
            let text: AccuracyText = accuracy <= 0 ? .level(AccuracyLevel.allCases[-accuracy]) : .metres(Double(accuracy))
            let written = switch text {
            case .level(let level): "\(level)"
            case .metres(let metres): "\(Int(metres))"
            }
            var uri = "/location?accuracy=\(written)&timeout=\(milliseconds)ms"
            if let maxAge { uri += "&maxAge=\(maxAge)s" }
            let query = try LocationQuery(QueryParameters(uri: URI(uri), accepted: LocationQuery.accepted))
            #expect(query.accuracy == LocationAccuracy(text, maximumAge: maxAge.map { .seconds($0) }))
            #expect(query.timeout == .milliseconds(milliseconds))
        }
    }
}
