import LocationEngine
@testable import LocationSources
import Testing

/// A setting a source bounds when it is made is bounded the same way when it is set later: a value
/// outside the range never reaches a receiver command or a timer.
struct SettingsBoundsTests {
    @Test("a fix interval set after the settings were made is bounded as at init, and the receiver's commands are made from it")
    func aFixIntervalSetLaterIsBounded() {
        for model in [ReceiverModel.mediatek, .ublox] {
            for keys in [false, true] {
                var control = GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: model, usesConfigurationKeys: keys)
                control.fixInterval = .seconds(70)
                #expect(control.fixInterval == .seconds(10))
                // Before, a u-blox's 16-bit measurement rate trapped on 70,000 ms here.
                #expect(!control.setUp(.best).isEmpty)
                control.fixInterval = .milliseconds(-1)
                #expect(control.fixInterval == .milliseconds(100))
                #expect(!control.setUp(.best).isEmpty)
            }
        }
        var configuration = ReceiverControlConfiguration(model: .ublox)
        configuration.fixInterval = .seconds(70)
        #expect(configuration.fixInterval == .seconds(10))
        configuration.fixInterval = .zero
        #expect(configuration.fixInterval == .milliseconds(100))
        configuration.acknowledgementTimeout = .seconds(-3)
        configuration.identificationTimeout = .zero
        #expect(configuration.acknowledgementTimeout == .milliseconds(10) && configuration.identificationTimeout == .milliseconds(10))
    }

    @Test func aReconnectPolicySetLaterKeepsItsRules() {
        var policy = ReconnectPolicy()
        policy.initialDelay = .seconds(-1)
        #expect(policy.initialDelay == .zero)
        policy.answerTimeout = .seconds(-5)
        policy.giveUpAfter = .seconds(-30)
        #expect(policy.answerTimeout == .zero && policy.giveUpAfter == .zero)
        policy.initialDelay = .seconds(20)
        #expect(policy.maximumDelay == .seconds(20), "a maximum below the initial delay is raised to it")
        policy.maximumDelay = .seconds(1)
        #expect(policy.maximumDelay == .seconds(20))
        policy.giveUpAfter = nil
        #expect(policy.giveUpAfter == nil)
    }
}
