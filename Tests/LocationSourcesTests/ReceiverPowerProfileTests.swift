import LocationEngine
import LocationSources
import Testing

/// Which sources describe their receiver to the engine's restart-aware power policy, and how.
struct ReceiverPowerProfileTests {
    @Test func aCommandedReceiverOfAKnownModelDescribesItsPower() throws {
        func profile(_ model: ReceiverModel, _ endpoint: NMEAStreamEndpoint = .serial(path: "/dev/ttyUSB0", baudRate: 9600)) -> ReceiverPowerProfile? {
            NMEAStreamSource(configuration: NMEAStreamConfiguration(endpoint: endpoint, receiver: ReceiverControlConfiguration(model: model)))
                .capabilities.powerProfile
        }
        let mediatek = try #require(profile(.mediatek))
        #expect(mediatek.off == mediatek.standby, "the MediaTek driver goes no deeper than standby")
        // Its power-save modes as the driver's periodic standby draws them: a 2 s run at tracking power every 5, 20
        // and 60 s, in standby between (the metered persona's figures).
        for (mode, milliwatts) in [(PowerMode.medium, 30.36), (.low, 12.54), (.lowest, 8.58)] {
            #expect(abs(mediatek.trackingPower(mode) - milliwatts) < 0.01, "\(mode): \(mediatek.trackingPower(mode))")
        }
        #expect(mediatek.trackingPower(.high) == ReceiverPowerProfile.mt3339.trackingPower(.high))
        #expect(profile(.ublox) == .samM8Q)
        #expect(profile(.ublox, .tcp(host: "127.0.0.1", port: 4711)) == .samM8Q, "a TCP feed (gpsgen --persona) is commanded too")
        #expect(profile(.plain) == nil && profile(.autodetect) == nil)
        #expect(profile(.mediatek, .file(path: "/dev/null", pacing: .asFastAsPossible)) == nil, "a file is never commanded")
    }

    @Test func gpsdDescribesTheReceiverOnlyWhenItCommandsIt() {
        #expect(GPSDLocationSource(configuration: GPSDConfiguration()).capabilities.powerProfile == nil)
        let commanded = GPSDLocationSource(
            configuration: GPSDConfiguration(receiverControl: GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: .ublox)))
        #expect(commanded.capabilities.powerProfile == .samM8Q)
    }
}
