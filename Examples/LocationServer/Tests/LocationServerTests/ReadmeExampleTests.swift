import Foundation
import LocationEngine
import SyntheticGPS
import Testing

@testable import LocationServer

/// What the READMEs show of the server stays true: their geofence example, posted to a server started
/// with the defaults, is a circle the synthetic receiver is inside, as the event line beside it says.
@Suite("README examples")
struct ReadmeExampleTests {
    /// The repository's README and the example's, read from the clone the tests run in.
    static let readmes: [(name: String, text: String)] = {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return [("README.md", example.appendingPathComponent("../../README.md")), ("Examples/LocationServer/README.md", example.appendingPathComponent("README.md"))]
            .map { name, url in (name, (try? String(contentsOf: url, encoding: .utf8)) ?? "") }
    }()

    /// The geofence bodies a README shows, as JSON text: the `-d '…'` of a `curl … /geofences` line, or a
    /// circle line of a JSON block.
    static func geofenceBodies(in text: String) -> [String] {
        text.components(separatedBy: "\n").compactMap { line in
            if line.contains("/geofences -d '"), let start = line.range(of: "-d '"), let end = line.range(of: "'", range: start.upperBound..<line.endIndex) {
                return String(line[start.upperBound..<end.lowerBound])
            }
            return line.hasPrefix(#"{"circle""#) ? line : nil
        }
    }

    @Test("the geofence example is a circle the default synthetic receiver is inside for its first two hours")
    func geofenceExampleIsWhereTheReceiverDrives() throws {
        let command = try LocationServerCommand.parse([])
        var receiver = SyntheticReceiver(scenario: try Scenario.named(command.scenario ?? "drive", seed: command.seed ?? 42))
        var fixes: [GeoPoint] = []
        while let epoch = receiver.nextEpoch(), epoch.elapsed <= 2 * 3600 {
            if let fix = epoch.fix { fixes.append(GeoPoint(latitude: fix.latitude, longitude: fix.longitude)) }
        }
        #expect(fixes.count > 7000)
        for (name, text) in Self.readmes {
            let bodies = Self.geofenceBodies(in: text)
            #expect(!bodies.isEmpty, "\(name) shows a geofence")
            for body in bodies {
                let region = try GeofenceBody(json: Data(body.utf8)).region
                let outside = fixes.filter { !region.contains($0) }.count
                #expect(outside == 0, "\(name): \(outside) of the receiver's fixes fall outside \(body)")
            }
        }
        let shown = try #require(Self.readmes[0].text.components(separatedBy: "\n").first { $0.hasPrefix("curl -N localhost:8080/geofences/events") })
        #expect(shown.contains(#""state":"inside","transition":"determined""#), "the README shows the receiver inside: \(shown)")
    }
}
