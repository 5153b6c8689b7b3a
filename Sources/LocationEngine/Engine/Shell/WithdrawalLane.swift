import DequeModule

/// The cancels and force-completes taken from the inbox's lane and not yet handed to the core, oldest
/// first, and the barrier count that holds them back: a withdrawal reaches the core only once every
/// barrier command appended before it has been processed, so calls from one caller take effect in
/// the order they were made.
struct WithdrawalLane {
    /// Taken from the inbox, oldest first (a buffer traded with the inbox's).
    private var buffer = Deque<PendingWithdrawal>()
    /// Barrier commands processed so far.
    private var barriersProcessed: UInt64 = 0

    /// A barrier command has been processed.
    mutating func barrierProcessed() { barriersProcessed &+= 1 }

    /// Whether withdrawals wait that may reach the core, or new ones wait in the inbox's lane.
    func hasReady(_ inbox: Inbox) -> Bool {
        guard let first = buffer.first else { return inbox.hasWithdrawals }
        return isReady(first) || inbox.hasWithdrawals
    }

    /// Takes what waits in the inbox's lane, behind what was taken before. Returns how many were waiting
    /// before (the newly taken ones follow them).
    @discardableResult
    mutating func collect(from inbox: Inbox) -> Int {
        let before = buffer.count
        if buffer.isEmpty {
            inbox.takeWithdrawals(into: &buffer)
        } else if inbox.hasWithdrawals {
            var newer = Deque<PendingWithdrawal>()
            inbox.takeWithdrawals(into: &newer)
            buffer.append(contentsOf: newer)
        }
        return before
    }

    /// The withdrawals from position `index` on that still wait for a barrier (read lazily: no array is made).
    /// - Complexity: O(1) when none waits (the newest waits if any does: each was made after the ones before it,
    ///   behind at least as many barriers), else O(k) for the k from `index` on.
    @inline(__always)
    func held(from index: Int) -> LazyFilterSequence<Deque<PendingWithdrawal>.SubSequence> {
        let start = buffer.last.map(isReady) ?? true ? buffer.count : min(index, buffer.count)
        return buffer[start...].lazy.filter { !isReady($0) }
    }

    /// The oldest withdrawal, if it may reach the core (none passes one still waiting for a barrier).
    mutating func nextReady() -> PendingWithdrawal? {
        guard let first = buffer.first, isReady(first) else { return nil }
        return buffer.removeFirst()
    }

    @inline(__always)
    private func isReady(_ pending: PendingWithdrawal) -> Bool { pending.afterBarriers <= barriersProcessed }
}
