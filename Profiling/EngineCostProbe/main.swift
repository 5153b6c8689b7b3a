// Drives the engine through its public callback API in the shape of the engine benchmarks (N one-shots
// submitted, processed, then cancelled and processed), with each phase in a function of its own, so
// that `Scripts/count-engine-instructions.sh` can count the instructions of each phase under
// valgrind's callgrind: a count of work that, unlike a time, does not move with the machine's load.
// Callgrind needs a program that runs to the end by itself; package-benchmark's runner is not one.
import LocationEngine
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import LocationEngineTestKit

/// N one-shots with the benchmarks' accuracies and 30–89 s timeouts, submitted and processed.
@inline(never)
func submitPhase(_ engine: LocationEngine<ContinuousClock>, count: Int) -> [RequestID] {
    let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
    var ids: [RequestID] = []
    ids.reserveCapacity(count)
    for index in 0..<count {
        ids.append(engine.location(accuracy: accuracies[index % 5], timeout: .seconds(Int64(30 + index % 60))) { _ in })
    }
    runBlocking { await engine.sync() }
    return ids
}

/// Every one-shot cancelled and the cancels processed.
@inline(never)
func cancelPhase(_ engine: LocationEngine<ContinuousClock>, ids: [RequestID]) {
    for id in ids { engine.cancel(id) }
    runBlocking { await engine.sync() }
}

let arguments = CommandLine.arguments.dropFirst()
guard let count = arguments.first.flatMap({ Int($0) }), count > 0, arguments.count == 1 else {
    print("usage: EngineCostProbe <number of one-shots>")
    exit(2)
}
let engine = LocationEngine(source: ScriptedLocationSource())
Task { try await engine.run() }
let ids = submitPhase(engine, count: count)
cancelPhase(engine, ids: ids)
runBlocking { await engine.shutdown() }
