import Dispatch

/// Runs async work from synchronous code and waits for it: for the package's benchmarks and probes,
/// whose closures and `main` must stay synchronous (package-benchmark's runtime hooks crash async
/// benchmark closures on Swift 6.3 without its runtime interposer, which is not available here).
/// The calling thread must not be one of the cooperative pool's: blocking it while the work runs on
/// the pool is then safe.
package func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}
