import Dispatch
import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// Callers on several threads at once: IDs stay unique, and every request ends exactly once with
/// the ending its own thread's calls decided.
@Suite("Submission from several threads at once")
struct ConcurrentSubmissionTests {
    @Test("4 threads submit, cancel and force-complete 5,000 one-shots each; every request ends exactly once")
    func fourThreads() async {
        let clock = ManualClock()
        let source = ScriptedLocationSource()
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let recorder = Recorder()
        let threads = 4
        let perThread = 5_000
        let ids = IDTable(count: threads * perThread)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread {
                let request = thread * perThread + index
                // Even requests want block accuracy (the fix below meets it), odd ones room (it does not).
                let id = engine.location(accuracy: request % 2 == 0 ? .block : .room, timeout: nil, handler: recorder.oneShot)
                ids.set(request, id)
                if index % 3 == 0 { engine.cancel(id) } else if index % 5 == 0 { engine.forceComplete(id) }
            }
        }
        await engine.sync()
        source.emit(fix(50))
        await engine.sync()
        await engine.shutdown()

        #expect(Set(ids.all).count == threads * perThread, "IDs are unique across threads")
        for request in 0..<(threads * perThread) {
            let index = request % perThread
            let statuses = recorder.results(ids.all[request]).map(\.status)
            let expected: [LocationStatus] =
                if index % 3 == 0 { [] } else if index % 5 == 0 { [.forceCompleted] } else if request % 2 == 0 { [.success] } else { [.shutDown] }
            #expect(statuses == expected, "request \(request)")
        }
    }
}

/// Request IDs by request number, written from several threads.
final class IDTable: Sendable {
    private let ids: NIOLockedValueBox<[RequestID]>
    init(count: Int) { ids = NIOLockedValueBox(Array(repeating: RequestID(rawValue: 0), count: count)) }
    func set(_ index: Int, _ id: RequestID) { ids.withLockedValue { $0[index] = id } }
    var all: [RequestID] { ids.withLockedValue { $0 } }
}
