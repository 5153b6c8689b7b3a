import Foundation
import Glibc
import LocationEngine
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NMEA
import SyntheticGPS
import TestSupport

/// The shared receiver logs (`../shared/nmea/` beside the package, or `$LOCATIONENGINE_NMEA_CORPUS`),
/// the same corpus the NMEA conformance tests read.
enum SharedLogs {
    static var available: Bool { Corpus.isAvailable }

    /// The text of `name`.
    static func text(_ name: String) throws -> String { try Corpus.text(name) }
}

/// Synthetic NMEA: one block of sentences per epoch, and the fix each epoch should yield.
struct SyntheticStream {
    var blocks: [String] = []
    var epochs: [SyntheticEpoch] = []

    /// The first `count` epochs of a drive (seed `seed`), as NMEA blocks.
    init(count: Int, seed: UInt64 = 11) {
        var receiver = SyntheticReceiver(scenario: .drive(seed: seed), mode: .best)
        receiver.generate(count: count, into: &epochs)
        var writer = NMEAWriter()
        for epoch in epochs {
            var text = ""
            writer.write(epoch, to: &text)
            blocks.append(text)
        }
    }

    /// The fixes the stream carries, by receiver time.
    var fixesByTime: [Double: Location] {
        var result: [Double: Location] = [:]
        for epoch in epochs { if let location = epoch.location { result[epoch.unixTime] = location } }
        return result
    }
}

/// Whether two fixes agree to NMEA's printed precision.
func samePosition(_ a: Location, _ b: Location) -> Bool {
    abs(a.latitude - b.latitude) < 1e-6 && abs(a.longitude - b.longitude) < 1e-6
}

extension SubscriptionEvent {
    var location: Location? {
        if case .location(let update) = self { return update.location }
        return nil
    }

    var sourceErrorCode: String? {
        if case .sourceError(let error) = self { return error.code }
        return nil
    }
}
