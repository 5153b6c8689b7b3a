import LocationEngine
@testable import LocationSources
import Testing

/// A source let go frees what it holds: its session keeps its link (to command the receiver) and the link's
/// callbacks reach the session, so one of the two must hold the other weakly.
struct SourceLifetimeTests {
    private final class Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject?) { self.object = object }
    }

    /// Weak references to `source`'s session and link, read while the source is alive.
    private func parts(of source: Any) -> [Weak] {
        Mirror(reflecting: source).children.filter { ["session", "link"].contains($0.label) }.map { Weak($0.value as AnyObject) }
    }

    @Test("a gpsd source commanding a receiver, let go, frees its session and link")
    func aGpsdSourceLetGoIsFreed() {
        var parts: [Weak] = []
        do {
            let source = GPSDLocationSource(
                configuration: GPSDConfiguration(receiverControl: GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: .mediatek)))
            parts = self.parts(of: source)
        }
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.object == nil })
    }

    @Test("an NMEA source commanding a receiver, let go, frees its session and link")
    func anNMEASourceLetGoIsFreed() {
        var parts: [Weak] = []
        do {
            let source = NMEAStreamSource(
                configuration: NMEAStreamConfiguration(
                    endpoint: .serial(path: "/dev/ttyUSB0", baudRate: 9600), receiver: ReceiverControlConfiguration(model: .mediatek)))
            parts = self.parts(of: source)
        }
        #expect(parts.count == 2)
        #expect(parts.allSatisfy { $0.object == nil })
    }
}
