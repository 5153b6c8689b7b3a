import Foundation
import NIOConcurrencyHelpers
@testable import SyntheticGPS
import Testing
import TestSupport

/// The proof against a real consumer: a scenario served over TCP to a real gpsd, read back as TPV
/// reports and checked against what was sent and against the ground truth.
@Suite(.serialized) struct GpsdIntegrationTests {
    /// 100 s of driving with the sky blocked from 40 s to 60 s.
    private static func scenario() -> Scenario {
        var scenario = Scenario.drive(seed: 17)
        scenario.outages = OutagePlan(windows: [Outage(start: 40, duration: 20)])
        return scenario
    }

    @Test(.enabled(if: gpsdInstalled, "gpsd is not installed (apt-get install gpsd); this test needs the real daemon"))
    func gpsdReportsWhatTheGeneratorSent() async throws {
        let scenario = Self.scenario()
        // Two epochs past the checked span, so gpsd closes the last checked cycle.
        let sent = epochs(scenario, until: 102)
        let checked = sent.filter { $0.elapsed < 100 }
        var writer = NMEAWriter()
        var text = ""
        for epoch in sent { writer.write(epoch, to: &text) }
        let stream = text
        let lastTime = UTCDate(unixTime: checked.last!.unixTime).iso8601

        let feed = try await NMEAFeedServer.start(on: ListenAddress(host: "127.0.0.1", port: 0))
        let gpsdPort = try await freeLoopbackPort()
        let gpsd = try ChildProcess(Tools.gpsd!, ["-N", "-n", "-S", String(gpsdPort), "tcp://127.0.0.1:\(feed.address.port)"])
        defer { gpsd.kill() }  // a safety net if the deadline throws; the normal path awaits `stop()`

        let reports = try await withDeadline(seconds: 60) { () async throws -> [GpsdReport] in
            // gpsd opens its client port before its devices, so once it reads the feed it can be watched.
            await feed.waitForClient()
            let collected = NIOLockedValueBox<[GpsdReport]>([])
            try await watchGpsd(port: gpsdPort, onWatching: { feed.broadcast(stream) }) { report in
                guard report.class == "TPV" else { return true }
                collected.withLockedValue { $0.append(report) }
                return report.time != lastTime
            }
            return collected.withLockedValue { $0 }
        }
        await feed.close()
        await gpsd.stop()

        let byTime = Dictionary(grouping: reports.filter { $0.time != nil }, by: { $0.time! })
        #expect(byTime[lastTime] != nil, "gpsd reported up to the last epoch")
        for epoch in checked where epoch.elapsed >= 5 {
            let time = UTCDate(unixTime: epoch.unixTime).iso8601
            guard let tpvs = byTime[time] else {
                Issue.record("no TPV for \(time)")
                continue
            }
            for tpv in tpvs { check(tpv, against: epoch) }
        }
        let outage = checked.filter { (40..<60).contains($0.elapsed) }
        #expect(outage.allSatisfy { byTime[UTCDate(unixTime: $0.unixTime).iso8601]?.allSatisfy { $0.mode == 1 } == true })
        #expect(checked.filter { $0.elapsed >= 60 && $0.fix != nil }.count >= 30, "the fix came back after the tunnel")
    }

    /// A TPV against the epoch it reports: equal to the sent fix at NMEA precision, and consistent with the truth.
    private func check(_ tpv: GpsdReport, against epoch: SyntheticEpoch) {
        let time = tpv.time ?? "?"
        guard let fix = epoch.fix else {
            #expect(tpv.mode == 1, "\(time): no fix was sent, gpsd says mode \(String(describing: tpv.mode))")
            return
        }
        #expect(tpv.mode == 3, "\(time): a 3D fix was sent")
        guard let lat = tpv.lat, let lon = tpv.lon, let speed = tpv.speed, let track = tpv.track,
            let altMSL = tpv.altMSL, let altHAE = tpv.altHAE
        else {
            Issue.record("\(time): TPV lacks position, motion or altitude")
            return
        }
        // NMEA carries 1e-6 minutes (≈ 2 mm), 0.01 m, 0.001 kn and 0.01°; gpsd prints 9 decimals of degree.
        #expect(abs(lat - fix.latitude) < 1e-7 && abs(lon - fix.longitude) < 1e-7, "\(time): position")
        #expect(abs(altMSL - fix.altitude!) < 0.011, "\(time): altMSL")
        #expect(abs(altHAE - (fix.altitude! + epoch.geoidSeparation)) < 0.021, "\(time): altHAE")
        #expect(abs(speed - fix.speed!) < 0.002, "\(time): speed \(speed) vs \(fix.speed!)")
        #expect(angleDifference(track, fix.course!) < 0.011, "\(time): track")
        // Against the truth: within four 68 % radii (a Rayleigh tail of e⁻¹⁸), speed within 1 m/s.
        let error = distance((lat, lon), (epoch.truth.latitude, epoch.truth.longitude))
        #expect(error < 4 * fix.horizontalAccuracy, "\(time): \(error) m from the truth")
        #expect(abs(speed - epoch.truth.speed) < 1, "\(time): speed vs truth")
        if epoch.truth.speed > 3 {
            #expect(angleDifference(track, epoch.truth.course) < 10, "\(time): track vs truth")
        }
    }
}
