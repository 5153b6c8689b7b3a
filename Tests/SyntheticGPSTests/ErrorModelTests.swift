import LocationEngine
import Testing
@testable import SyntheticGPS

/// The reported accuracy is a 68 % radius: over many fixes, 68 % of true errors fall inside it.
///
/// The errors are correlated over 30 s, so 100 000 fixes hold roughly 100 000 / 60 ≈ 1 700 independent
/// samples; the standard error of the fraction is then about √(0.68·0.32/1700) ≈ 0.011, and the bands
/// below are about three of those wide. The runs are seeded, so the outcome never changes; a model
/// change that breaks honesty moves the fraction well outside the band.
@Suite struct ErrorModelTests {
    private func fractions(_ scenario: Scenario, mode: PowerMode, seconds: Double) -> (within: Double, within2: Double, count: Int) {
        let fixes = epochs(scenario, mode: mode, until: seconds).filter { $0.fix != nil }
        var inside = 0, inside2 = 0
        for epoch in fixes {
            let error = epoch.horizontalError!
            let accuracy = epoch.fix!.horizontalAccuracy
            if error <= accuracy { inside += 1 }
            if error <= 2 * accuracy { inside2 += 1 }
        }
        return (Double(inside) / Double(fixes.count), Double(inside2) / Double(fixes.count), fixes.count)
    }

    @Test(arguments: Scenario.names)
    func reportedAccuracyIsAnHonest68PercentRadius(name: String) throws {
        let scenario = try Scenario.named(name, seed: 21 + UInt64(Scenario.names.firstIndex(of: name)!))
        let result = fractions(scenario, mode: .best, seconds: 100_000)
        #expect(result.count > 60_000)
        #expect(result.within > 0.645 && result.within < 0.715, "\(scenario.name): \(result.within) within the 68 % radius")
        // Rayleigh: P(r ≤ 2 · r68) = 1 − exp(−(2 · 1.5096)² / 2) ≈ 0.9895.
        #expect(result.within2 > 0.975 && result.within2 < 0.998, "\(scenario.name): \(result.within2) within twice the radius")
    }

    @Test(arguments: [PowerMode.lowest, .low, .medium, .high])
    func everyModeIsHonest(mode: PowerMode) {
        // Coarse modes report rarely, so run longer to have enough independent samples.
        let result = fractions(.drive(seed: 31), mode: mode, seconds: mode <= .low ? 3_000_000 : 300_000)
        #expect(result.within > 0.62 && result.within < 0.74, "\(mode): \(result.within)")
    }

    @Test func errorsAreTimeCorrelated() {
        let fixes = epochs(.stationary(seed: 5), until: 20_000).compactMap { epoch -> Double? in
            guard let fix = epoch.fix else { return nil }
            return (fix.latitude - epoch.truth.latitude) / fix.axisSigma
        }
        func autocorrelation(lag: Int) -> Double {
            let mean = fixes.reduce(0, +) / Double(fixes.count)
            var numerator = 0.0, denominator = 0.0
            for i in fixes.indices {
                denominator += (fixes[i] - mean) * (fixes[i] - mean)
                if i + lag < fixes.count { numerator += (fixes[i] - mean) * (fixes[i + lag] - mean) }
            }
            return numerator / denominator
        }
        // First-order Gauss–Markov with τ = 30 s: ρ(1 s) ≈ 0.97, ρ(30 s) ≈ 0.37, ρ(300 s) ≈ 0.
        #expect(autocorrelation(lag: 1) > 0.9)
        #expect(autocorrelation(lag: 30) > 0.2 && autocorrelation(lag: 30) < 0.55)
        #expect(abs(autocorrelation(lag: 300)) < 0.15)
    }

    @Test func multipathJumpsAreVisibleAndAccountedFor() {
        var scenario = Scenario.walk(seed: 8)
        scenario.environment.multipathPerHour = 60
        let fixes = epochs(scenario, until: 7200).filter { $0.fix != nil }
        var jumps = 0
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let aError = a.horizontalError!, bError = b.horizontalError!
            // A jump: the error grows by several steady-state radii in one second, and the reported accuracy with it.
            if bError - aError > 3 * a.fix!.horizontalAccuracy {
                jumps += 1
                #expect(b.fix!.horizontalAccuracy > 2 * a.fix!.horizontalAccuracy)
            }
        }
        #expect(jumps >= 20, "about 120 events in two hours, most of them visible as jumps")
    }

    /// One receiver's noise for every design: a model that sleeps through stretches of the grid has, at each
    /// epoch it samples, the error and the multipath inflation of one that sampled every epoch since the same
    /// first fix — multipath events that began while it slept included.
    @Test func theErrorAtAnEpochDependsOnTheInstantNotOnTheEpochsSampledBefore() {
        func model() -> ErrorModel {
            ErrorModel(correlationTime: 30, multipathPerHour: 120, gridInterval: 1, random: SeededGenerator(seed: 17).derived(stream: 2))
        }
        var everyEpoch = model()
        var sleeper = model()
        var samples: [Int: (east: Double, north: Double, multipath: Double)] = [:]
        for second in 3...1800 {
            everyEpoch.advance(to: Double(second))
            let error = everyEpoch.horizontal(sigma: 1)
            samples[second] = (error.east, error.north, everyEpoch.multipathFactor(at: Double(second)))
        }
        let sampled = [3, 4, 97, 98, 99, 640, 1200, 1201, 1800]
        for instant in sampled {
            sleeper.advance(to: Double(instant))
            let error = sleeper.horizontal(sigma: 1)
            let expected = samples[instant]!
            #expect(error.east == expected.east && error.north == expected.north, "at \(instant) s")
            #expect(sleeper.multipathFactor(at: Double(instant)) == expected.multipath, "at \(instant) s")
        }
        // An event starts where the inflation jumps up; some started in the stretches the sleeper skipped.
        let starts = (4...1800).filter { samples[$0]!.multipath > samples[$0 - 1]!.multipath }
        let skipped = starts.filter { !sampled.contains($0) }
        #expect(skipped.count >= 10, "multipath events that began while the sleeper slept: \(skipped)")
    }

    @Test func gaussMarkovKeepsUnitVarianceForAnySampling() {
        var random = SeededGenerator(seed: 3)
        var process = GaussMarkov(correlationTime: 10, random: &random)
        var sumSquares = 0.0
        let count = 200_000
        for i in 0..<count {
            process.advance(by: i % 3 == 0 ? 0.5 : 37, random: &random)
            sumSquares += process.value * process.value
        }
        #expect(abs(sumSquares / Double(count) - 1) < 0.03)
    }

    @Test("a fix error scale of 0 puts every fix (the satellites' and the network locator's) on the truth with its true speed, the reported accuracy unchanged; ½ halves the error")
    func theFixErrorScaleScalesTheErrorAndNothingElse() {
        let noisy = epochs(.drive(seed: 8), until: 600).filter { $0.fix != nil }
        var clean = Scenario.drive(seed: 8)
        clean.fixErrorScale = 0
        var half = Scenario.drive(seed: 8)
        half.fixErrorScale = 0.5
        let exact = epochs(clean, until: 600).filter { $0.fix != nil }
        let halved = epochs(half, until: 600).filter { $0.fix != nil }
        #expect(noisy.count > 500 && exact.count == noisy.count && halved.count == noisy.count)
        for (index, epoch) in exact.enumerated() {
            #expect(epoch.horizontalError! < 1e-6, "fix \(index): \(epoch.horizontalError!) m from the truth")
            #expect(abs((epoch.fix!.speed ?? .infinity) - epoch.truth.speed) < 1e-9)
            #expect(epoch.fix!.horizontalAccuracy == noisy[index].fix!.horizontalAccuracy, "the receiver still reports its accuracy")
            let error = noisy[index].horizontalError!
            #expect(abs(halved[index].horizontalError! - error / 2) < 1e-3 + 1e-6 * error)
        }
        #expect(noisy.map { $0.horizontalError! }.max()! > 1, "the default carries the receiver's noise")
        // The network locator's fixes too.
        let network = epochs(clean, mode: .low, until: 600).filter { $0.fix != nil }
        #expect(network.count > 10)
        #expect(network.allSatisfy { $0.horizontalError! < 1e-6 && $0.fix!.horizontalAccuracy > 100 })
    }
}
