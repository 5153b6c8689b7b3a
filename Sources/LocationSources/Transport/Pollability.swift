import CPollability

/// What NIO's pipe channel can take: a descriptor the kernel's poller watches.
enum Pollability {
    /// Whether the poller can watch `descriptor`. On Linux epoll refuses regular files and some character
    /// devices (`/dev/null`, `/dev/zero`) with `EPERM`, and NIO's pipe channel traps on registering one, so such a
    /// descriptor is read by blocking reads on the thread pool instead (``FileLink``).
    static func canPoll(_ descriptor: CInt) -> Bool { cpollability_can_poll(descriptor) != 0 }
}
