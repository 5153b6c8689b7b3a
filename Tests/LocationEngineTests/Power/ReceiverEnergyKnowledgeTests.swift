@testable import LocationEngine
import Testing

/// What the receiver's energy account knows of the receiver — where it is, and the setting it tracks in — and
/// what each state costs. An MT3339 started from off (which keeps its ephemerides) takes a 1 s hot start at
/// 82.5 mW, then tracks at 66 mW in `best` (7 mW in `low`) — at 66 mW, the dearest, until it confirms a setting.
@Suite("Receiver energy: what is known of the receiver")
struct ReceiverEnergyKnowledgeTests {
    static let profile = ReceiverPowerProfile.mt3339
    static func at(_ seconds: Int) -> EngineInstant { .zero + .seconds(seconds) }
    /// The hot start, in joules.
    static let hotStart = 82.5 / 1000

    @Test("a source that confirms nothing is costed as commanded: a setting reported anyway changes nothing")
    func commandedSettingIgnoresConfirmations() {
        var energy = ReceiverEnergy(profile: Self.profile, confirms: false)
        #expect(!energy.confirms)
        energy.started(.best, now: .zero)
        energy.confirmedTracking(.low, running: true, now: Self.at(100))
        #expect(abs(energy.joules(at: Self.at(200)) - (Self.hotStart + 199 * 66 / 1000)) < 1e-9)
    }

    @Test("the setting a receiver confirmed outlives its stop: one that confirms it stayed on costs what it tracks in")
    func confirmedSettingOutlivesTheStop() {
        var energy = ReceiverEnergy(profile: Self.profile, confirms: true)
        #expect(energy.confirms)
        energy.started(.best, now: .zero)
        // Asked for best, it confirms low (it refused): from then on it costs low.
        energy.confirmedTracking(.low, running: true, now: Self.at(100))
        energy.sentDown(into: .standby, fromRunning: true, now: Self.at(200))
        // It never went down: still tracking in low, not at the dearer best it was last sent to.
        energy.confirmed(.on, running: false, now: Self.at(300))
        let expected = Self.hotStart + 99 * 66 / 1000 + 300 * 7 / 1000
        #expect(abs(energy.joules(at: Self.at(400)) - expected) < 1e-9)
    }

    @Test("a receiver sent down twice without confirming either is last known on: its start is no restart")
    func unconfirmedPowerDownsKeepTheLastKnownState() {
        var energy = ReceiverEnergy(profile: Self.profile, confirms: true)
        energy.started(.best, now: .zero)
        energy.sentDown(into: .standby, fromRunning: true, now: Self.at(100))
        energy.sentDown(into: .off, fromRunning: false, now: Self.at(200))
        energy.started(.best, now: Self.at(300))
        // Tracking power (66 mW, the dearer) throughout after the first start: no acquisition at 300 s.
        let expected = Self.hotStart + 399 * 66 / 1000
        #expect(abs(energy.joules(at: Self.at(400)) - expected) < 1e-9)
    }

    @Test("a receiver confirmed down, then started, acquires again, and has confirmed no setting yet")
    func confirmedDownRestarts() {
        var energy = ReceiverEnergy(profile: Self.profile, confirms: true)
        energy.started(.low, now: .zero)
        energy.confirmedTracking(.low, running: true, now: Self.at(35))
        energy.sentDown(into: .standby, fromRunning: true, now: Self.at(100))
        energy.confirmed(.standby, running: false, now: Self.at(100))
        energy.started(.low, now: Self.at(200))
        // Hot start (1 s) from standby, then the dearest mode until a setting is confirmed again.
        let expected = Self.hotStart + 34 * 66 / 1000 + 65 * 7 / 1000 + 100 * 6.6 / 1000 + Self.hotStart + 99 * 66 / 1000
        #expect(abs(energy.joules(at: Self.at(300)) - expected) < 1e-9)
    }
}
