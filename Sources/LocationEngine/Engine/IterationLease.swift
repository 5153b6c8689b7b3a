/// Held by a request's async iterator: when the iterator goes (the `for try await` loop left by `break`,
/// `return` or a throw), the request is cancelled — even while the sequence value itself lives on in a
/// variable, which keeps the stream's own termination from firing. A request already ended ignores it.
final class IterationLease: Sendable {
    private let cancel: @Sendable () -> Void

    init(cancel: @escaping @Sendable () -> Void) { self.cancel = cancel }

    deinit { cancel() }
}
