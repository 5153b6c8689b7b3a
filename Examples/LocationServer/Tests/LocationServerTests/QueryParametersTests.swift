import Hummingbird
import HummingbirdCore
import LocationEngine
import Testing

@testable import LocationServer

@Suite("Query parameters")
struct QueryParametersTests {
    @Test("levels by name, custom metres with a maximum age, durations with units")
    func parsing() throws {
        let query = QueryParameters(uri: URI("/location?accuracy=room&timeout=250ms"))
        #expect(try query.accuracy() == .room)
        #expect(try query.duration("timeout") == .milliseconds(250))
        let custom = QueryParameters(uri: URI("/location?accuracy=12.5&maxAge=1m"))
        #expect(try custom.accuracy() == .custom(metres: 12.5, maximumAge: .seconds(60)))
        #expect(try QueryParameters(uri: URI("/location")).accuracy() == nil)
    }

    @Test("subscription options from the query")
    func subscriptionOptions() throws {
        let options = try UpdatesRoute<ContinuousClock>.options(
            QueryParameters(uri: URI("/updates?kind=significant&interval=5s&duration=10m&maxUpdates=3")))
        #expect(options.kind == .significantChange)
        #expect(options.minimumInterval == .seconds(5))
        #expect(options.duration == .seconds(600))
        #expect(options.maximumUpdates == 3)
    }
}
