import Testing
@testable import SyntheticGPS

@Suite struct ParsingTests {
    @Test(arguments: [("90s", 90.0), ("10m", 600), ("1h", 3600), ("1h30m", 5400), ("250ms", 0.25), ("42", 42), ("0.5", 0.5), ("2d", 172_800)])
    func durations(text: String, seconds: Double) throws {
        #expect(try DurationText.seconds(parsing: text) == seconds)
    }

    @Test(arguments: [
        "", "-5s", "5x", "m", "1.2.3s", "10 m", "s10", "0x1E", "1e3", "nan", "inf", "1.2.3", ".", "\u{0663}s",
        // Beyond any number of seconds: 400 digits, and a day count that overflows once multiplied.
        String(repeating: "9", count: 400), String(repeating: "9", count: 306) + "d",
    ])
    func badDurationsAreRejected(text: String) {
        #expect(throws: SyntheticGPSError.self) { try DurationText.seconds(parsing: text) }
    }

    @Test func negativeDurationSaysSo() {
        do {
            _ = try DurationText.seconds(parsing: "-5s")
            Issue.record("accepted a negative duration")
        } catch {
            #expect(error.isInvalidArgument && error.message.contains("negative"))
        }
    }

    @Test func addresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:2948") == ListenAddress(host: "127.0.0.1", port: 2948))
        #expect(try ListenAddress(parsing: "[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(try ListenAddress(parsing: "localhost:4000").description == "localhost:4000")
        #expect(ListenAddress(host: "::1", port: 5).description == "[::1]:5")
        for bad in ["127.0.0.1", ":80", "host:", "host:65536", "host:-1", "::1:80", "[::1]80", "a b:1"] {
            #expect(throws: SyntheticGPSError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }

    /// Found by LocbenchOptionsFuzzer (`--source gpsd [[]:4`): the host `[` was accepted, and its
    /// description `[:4` did not parse back. Brackets only enclose an IPv6 host.
    @Test(arguments: ["[[]:4", "[[::1]:80", "[a[b]:80", "a]:80", "a[b:80"])
    func bracketsInsideTheHostAreRejected(text: String) {
        #expect("bracket in the host of \(text)") { try ListenAddress(parsing: text) } throws: { error in
            (error as? SyntheticGPSError)?.message.contains("the host is empty or malformed") == true
        }
    }

    @Test func outagesAndScenarioNames() throws {
        #expect(try Outage(parsing: "2m+45s") == Outage(start: 120, duration: 45))
        #expect(throws: SyntheticGPSError.self) { try Outage(parsing: "2m") }
        #expect(throws: SyntheticGPSError.self) { try Outage(parsing: "2m+0s") }
        for name in Scenario.names { #expect(try Scenario.named(name, seed: 1).name == name) }
        do {
            _ = try Scenario.named("flying", seed: 1)
            Issue.record("accepted an unknown scenario")
        } catch {
            #expect(error.isUnknownScenario && error.message.contains("stationary, walk, drive, tunnel"))
        }
        #expect(throws: SyntheticGPSError.self) { try OutputFormat.named("kml") }
        #expect(try OutputFormat.named("GeoJSON") == .geojson)
    }

    @Test func outagePlansCombineWindowsAndRepeats() {
        let plan = OutagePlan(windows: [Outage(start: 10, duration: 5)], repeating: RepeatingOutage(first: 100, period: 50, duration: 10))
        #expect(plan.isBlocked(at: 10) && plan.isBlocked(at: 14.9) && !plan.isBlocked(at: 15))
        #expect(!plan.isBlocked(at: 99) && plan.isBlocked(at: 100) && plan.isBlocked(at: 159) && !plan.isBlocked(at: 160))
        #expect(!OutagePlan.none.isBlocked(at: 0))
    }
}
