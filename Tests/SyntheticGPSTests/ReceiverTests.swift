import LocationEngine
import Testing
@testable import SyntheticGPS

@Suite struct ReceiverTests {
    private func firstFix(_ epochs: [SyntheticEpoch]) -> Double? { epochs.first { $0.fix != nil }?.elapsed }

    @Test(arguments: [(StartCondition.cold, 32.0...46.0), (.warm, 25...36), (.hot, 1...4)])
    func timeToFirstFixFollowsTheStartCondition(condition: StartCondition, range: ClosedRange<Double>) {
        for seed in UInt64(1)...20 {
            var scenario = Scenario.stationary(seed: seed)
            scenario.startCondition = condition
            let ttff = firstFix(epochs(scenario, until: 120))
            #expect(ttff.map(range.contains) == true, "\(condition), seed \(seed): first fix at \(String(describing: ttff))")
        }
    }

    @Test func startConditionDependsOnHowLongItWasOff() {
        #expect(StartCondition(offFor: nil) == .cold)
        #expect(StartCondition(offFor: 600) == .hot)
        #expect(StartCondition(offFor: 3 * 3600) == .warm)
        #expect(StartCondition(offFor: 60 * 86_400) == .cold)

        var receiver = SyntheticReceiver(scenario: .drive(seed: 4))
        _ = epochs(&receiver, until: 100)
        receiver.powerOff(at: 100)
        #expect(receiver.nextEpoch() == nil, "off produces nothing")
        receiver.powerOn(mode: .best, at: 160)
        #expect(receiver.lastStart == .hot)
        let hot = epochs(&receiver, until: 200)
        #expect(hot.first!.elapsed == 160)
        #expect(firstFix(hot)! - 160 <= 3)
        receiver.powerOff(at: 200)
        receiver.powerOn(mode: .best, at: 200 + 5 * 3600)
        #expect(receiver.lastStart == .warm)
        let warm = epochs(&receiver, until: 200 + 5 * 3600 + 60)
        #expect(firstFix(warm)! - (200 + 5 * 3600) >= 25)
    }

    @Test func aReceiverServingItsLowModesWithItsOwnGNSSKeepsItsEphemeridesThere() {
        // Three hours in the lowest mode, then ten minutes off: the ephemerides are stale only if the low modes
        // stood for a separate locator; a persona's periodic GNSS kept them, so its restart is hot.
        func restart(keepsEphemerides: Bool) -> (afterOff: StartCondition?, afterLowest: StartCondition?) {
            var receiver = SyntheticReceiver(scenario: .stationary(seed: 5), mode: .best)
            receiver.networkModesKeepEphemerides = keepsEphemerides
            receiver.setMode(.lowest, at: 60)
            receiver.powerOff(at: 3 * 3600)
            receiver.powerOn(mode: .best, at: 3 * 3600 + 600)
            let afterOff = receiver.lastStart
            receiver.setMode(.lowest, at: 3 * 3600 + 700)
            receiver.setMode(.best, at: 6 * 3600)
            return (afterOff, receiver.lastStart)
        }
        #expect(restart(keepsEphemerides: false) == (.warm, .warm))
        #expect(restart(keepsEphemerides: true) == (.hot, .hot))
    }

    @Test func accuracyConvergesAfterAColdStart() {
        var scenario = Scenario.stationary(seed: 9)
        scenario.startCondition = .cold
        let fixes = epochs(scenario, until: 400).filter { $0.fix != nil }
        let early = fixes.prefix(3).map { $0.fix!.horizontalAccuracy / $0.dop!.horizontal }
        let late = fixes.suffix(3).map { $0.fix!.horizontalAccuracy / $0.dop!.horizontal }
        #expect(early.min()! > 3 * late.max()!)
    }

    @Test func outagesDropTheFixAndItComesBack() {
        let scenario = Scenario.tunnel(seed: 2)   // tunnels at 120–180 s, 420–480 s, …
        let all = epochs(scenario, until: 600)
        for epoch in all where (120..<180).contains(epoch.elapsed) || (420..<480).contains(epoch.elapsed) {
            #expect(epoch.fix == nil && epoch.satellites.isEmpty, "no sky at \(epoch.elapsed)")
        }
        let back = firstFix(all.filter { $0.elapsed >= 180 })!
        #expect(back > 180 && back <= 186, "a long outage costs a few seconds of reacquisition")
        #expect(all.filter { (200..<400).contains($0.elapsed) }.allSatisfy { $0.fix != nil })
    }

    @Test func satellitesAndDOPsAreConsistentWithTheGeometry() {
        for epoch in epochs(.walk(seed: 6), until: 3600) where epoch.fix != nil {
            let used = epoch.satellites.filter(\.used)
            #expect(used.count == epoch.satellitesUsed && used.count >= 4 && used.count <= 12)
            for satellite in epoch.satellites {
                #expect(satellite.elevation >= 10 && satellite.elevation <= 90)
                #expect(satellite.azimuth >= 0 && satellite.azimuth < 360)
            }
            #expect(used.allSatisfy { $0.snr >= 28 })
            let recomputed = DilutionOfPrecision(satellites: epoch.satellites)!
            #expect(abs(recomputed.horizontal - epoch.dop!.horizontal) < 1e-9)
            #expect(epoch.dop!.horizontal >= 0.5 && epoch.dop!.horizontal < 10)
            let dop = epoch.dop!
            let pythagoras: Double = dop.position * dop.position - dop.horizontal * dop.horizontal - dop.vertical * dop.vertical
            #expect(abs(pythagoras) < 1e-9)
        }
    }

    @Test func aReceiverWokenMidWindowSeesTheSkyTheAlwaysOnOneSees() {
        // Standing still, so that both are at one place: every satellite's strength, which ones are
        // used and the DOPs then depend only on the scenario's time, not on when the receiver woke.
        var scenario = Scenario.stationary(seed: 3)
        scenario.environment = .urban
        var alwaysOn = SyntheticReceiver(scenario: scenario)
        var sky: [Double: SyntheticEpoch] = [:]
        alwaysOn.epochs(through: 200) { sky[$0.elapsed] = $0 }
        var sleeper = SyntheticReceiver(scenario: scenario)
        var compared = 0
        for (on, off) in [(0.0, 3.0), (17, 44), (58, 133), (141, 200)] {
            sleeper.powerOn(mode: .best, at: on)
            sleeper.epochs(through: off) { epoch in
                let seen = sky[epoch.elapsed]!
                #expect(epoch.satellites.map(\.snr) == seen.satellites.map(\.snr), "at \(epoch.elapsed) s")
                if let dop = epoch.dop {
                    #expect(dop == seen.dop && epoch.satellitesUsed == seen.satellitesUsed, "at \(epoch.elapsed) s")
                    compared += 1
                }
            }
            sleeper.powerOff(at: off)
        }
        #expect(compared > 100)
    }

    @Test func moreSatellitesGiveALowerHDOP() {
        let open = epochs(.stationary(seed: 1), until: 3600).compactMap(\.dop).map(\.horizontal)
        var blocked = Scenario.stationary(seed: 1)
        blocked.environment = Environment(elevationMask: 25, canyonElevation: 0, blockageProbability: 0, multipathPerHour: 0)
        let canyon = epochs(blocked, until: 3600).compactMap(\.dop).map(\.horizontal)
        let openMean: Double = open.reduce(0, +) / Double(open.count)
        let canyonMean: Double = canyon.reduce(0, +) / Double(canyon.count)
        #expect(openMean < canyonMean)
    }

    @Test func powerModesTradeAccuracyForRate() {
        var medians: [PowerMode: Double] = [:]
        for mode in PowerMode.allCases {
            let all = epochs(.drive(seed: 3), mode: mode, until: 3600)
            let fixes = all.compactMap(\.fix)
            // The run window comes first: the first fix within a hot start (or the locator's readiness), then
            // the mode's interval between fixes.
            let fixTimes = all.filter { $0.fix != nil }.map(\.elapsed)
            #expect(fixTimes[0] <= 4, "\(mode): first fix at \(fixTimes[0]) s")
            #expect(fixTimes[1] - fixTimes[0] == max(1, PowerModeProfile.standard(mode).minimumInterval))
            let accuracies = fixes.map(\.horizontalAccuracy).sorted()
            medians[mode] = accuracies[accuracies.count / 2]
            // The mode's target (3 km, 1 km, 100 m, 10 m) holds for the typical fix.
            if mode != .best { #expect(medians[mode]! < mode.targetAccuracy, "\(mode): median \(medians[mode]!)") }
            let network = !PowerModeProfile.standard(mode).usesSatellites
            #expect(fixes.allSatisfy { ($0.speed == nil) == network && ($0.altitude == nil) == network })
        }
        #expect(medians[.best]! < 5)
        for (coarser, finer) in zip(PowerMode.allCases, PowerMode.allCases.dropFirst()) {
            #expect(medians[finer]! < medians[coarser]!)
        }
    }

    @Test func networkModesWorkInTunnels() {
        let fixes = epochs(.tunnel(seed: 1), mode: .low, until: 600)
        #expect(fixes.filter { (120..<180).contains($0.elapsed) }.allSatisfy { $0.fix != nil })
    }

    @Test func switchingModesChangesRateAndRestartsSatellites() {
        var receiver = SyntheticReceiver(scenario: .drive(seed: 2), mode: .lowest)
        let coarse = epochs(&receiver, until: 300)
        // It searches each second until its locator is ready (run window first), then waits its 60 s interval.
        #expect(coarse.map(\.elapsed) == [0, 1, 2, 62, 122, 182, 242])
        #expect(coarse.filter { $0.fix != nil }.map(\.elapsed) == [2, 62, 122, 182, 242])
        receiver.setMode(.best, at: 300)
        #expect(receiver.lastStart == .hot, "the satellite receiver has never run, and the scenario's first start is hot")
        let fine = epochs(&receiver, until: 330)
        #expect(fine.first!.elapsed == 300 && fine.count == 30)
        #expect(fine.last!.fix!.speed != nil)
    }

    @Test func measuredSpeedAndCourseFollowTheTruth() {
        let fixes = epochs(.drive(seed: 14), until: 3600).filter { $0.fix != nil && $0.elapsed > 60 }
        for epoch in fixes {
            #expect(abs(epoch.fix!.speed! - epoch.truth.speed) < 1)
            if epoch.truth.speed > 3 { #expect(angleDifference(epoch.fix!.course!, epoch.truth.course) < 10) }
        }
    }

    @Test func generateFillsAPreallocatedBufferDeterministically() {
        var a = SyntheticReceiver(scenario: .drive(seed: 77))
        var b = SyntheticReceiver(scenario: .drive(seed: 77))
        var bufferA: [SyntheticEpoch] = []
        var bufferB: [SyntheticEpoch] = []
        bufferA.reserveCapacity(5000)
        a.generate(count: 5000, into: &bufferA)
        b.generate(count: 5000, into: &bufferB)
        #expect(bufferA.count == 5000)
        #expect(bufferA == bufferB)
        var off = SyntheticReceiver(scenario: .drive(seed: 77), mode: nil)
        off.generate(count: 10, into: &bufferB)
        #expect(bufferB.count == 5000)
    }
}
