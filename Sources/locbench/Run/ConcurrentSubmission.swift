import Dispatch
import Foundation
@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers

/// `--submitters N`: one-shots submitted by N threads at once through the public callback API, against
/// one thread submitting the same requests: the aggregate throughput of callers and of the engine's
/// processing, and a check that every request ended exactly once.
struct ConcurrentSubmission {
    /// What one run with `threads` submitters measured.
    struct Measurement {
        var threads: Int
        var requests: Int
        /// From the first submission until every thread had submitted its share.
        var submitSeconds: Double
        /// From the first submission until the engine had processed every request.
        var processedSeconds: Double
        /// Requests whose handler did not run exactly once (after the engine's shutdown ended them).
        var endedOtherThanOnce: Int

        var submissionsPerSecond: Double { Double(requests) / submitSeconds }
        var processedPerSecond: Double { Double(requests) / processedSeconds }
        /// A submitting thread's cost per request.
        var nanosecondsPerSubmitPerThread: Double { submitSeconds * 1e9 / (Double(requests) / Double(threads)) }
    }

    let requests: Int
    let threads: Int

    /// Runs one thread, then `threads` threads (each on a fresh engine) and returns both.
    func run() async -> [Measurement] {
        var results = [await measure(threads: 1)]
        if threads > 1 { results.append(await measure(threads: threads)) }
        return results
    }

    private func measure(threads: Int) async -> Measurement {
        // A source that never reports a fix: every request stays pending until the shutdown ends it.
        let engine = LocationEngine(source: ScriptedLocationSource(), configuration: .init(linger: .zero))
        Task { try await engine.run() }
        let endings = EndingCounts(requests)
        let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
        let requests = self.requests
        let clock = ContinuousClock()
        let start = clock.now
        // Real threads (Dispatch's pool), not tasks: the submitters are callers on threads of their own.
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in stride(from: thread, to: requests, by: threads) {
                engine.location(accuracy: accuracies[index % accuracies.count], timeout: .seconds(600)) { _ in endings.note(index) }
            }
        }
        let submitted = clock.now
        await engine.sync()
        let processed = clock.now
        await engine.shutdown()
        return Measurement(
            threads: threads, requests: requests,
            submitSeconds: Self.seconds(start.duration(to: submitted)),
            processedSeconds: Self.seconds(start.duration(to: processed)),
            endedOtherThanOnce: endings.otherThanOnce)
    }

    static func seconds(_ duration: Duration) -> Double { Double(duration.saturatingNanoseconds) / 1e9 }

    /// The table locbench prints.
    static func render(_ results: [Measurement]) -> String {
        var lines = [
            "concurrent submission (one-shots through the callback API, each thread submitting its share at once)",
            "submitters   submitted in   submissions/s   ns/submit per thread   processed in   processed/s   ended exactly once",
        ]
        for result in results {
            lines.append(
                [
                    TableReport.pad(String(result.threads), 10), TableReport.pad(String(format: "%.3f s", result.submitSeconds), 14),
                    TableReport.pad(Int(result.submissionsPerSecond).formatted(), 15), TableReport.pad(Int(result.nanosecondsPerSubmitPerThread).formatted(), 22),
                    TableReport.pad(String(format: "%.3f s", result.processedSeconds), 14), TableReport.pad(Int(result.processedPerSecond).formatted(), 13),
                    result.endedOtherThanOnce == 0 ? "yes" : "NO: \(result.endedOtherThanOnce) requests",
                ].joined(separator: "   "))
        }
        if results.count == 2 {
            let submissions = results[1].submissionsPerSecond / results[0].submissionsPerSecond
            let processed = results[1].processedPerSecond / results[0].processedPerSecond
            lines.append(
                "with \(results[1].threads) submitters: aggregate submissions \(String(format: "%.2f", submissions))× one submitter's"
                    + (submissions >= 1 ? "" : " (below it)")
                    + ", processed \(String(format: "%.2f", processed))× (one engine loop processes; submitters beyond the spare cores take its CPU)")
        }
        return lines.joined(separator: "\n")
    }
}

/// How many times each request's handler ran. Handlers run on the engine's executor, one at a time;
/// the lock makes the counts visible to the thread that reads them.
private final class EndingCounts: Sendable {
    private let counts: NIOLockedValueBox<[UInt8]>

    init(_ requests: Int) { counts = NIOLockedValueBox(Array(repeating: 0, count: requests)) }

    func note(_ index: Int) { counts.withLockedValue { $0[index] &+= 1 } }

    var otherThanOnce: Int { counts.withLockedValue { $0.count(where: { $0 != 1 }) } }
}
