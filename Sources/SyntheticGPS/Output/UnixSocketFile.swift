import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What lies at a path a server is about to listen on as a Unix socket. Binding removes a socket file there
/// whatever it belongs to, so a second server started on the path of a running one would take it over silently:
/// the first would never get another client. Written by hand because NIO's `cleanupExistingSocketFile` removes
/// the file without asking whether anything still listens on it.
public enum UnixSocketFile: Sendable, Equatable {
    /// Nothing is there.
    case absent
    /// A socket file nothing listens on (left by a run that ended): it may be removed.
    case stale
    /// Something may still listen there: a connection was accepted, or refused for another reason than nothing
    /// listening (no permission, a full backlog), or no socket could be made to ask (out of descriptors).
    case listening
    /// A file that is not a socket.
    case notASocket

    /// What lies at `path` now. Non-blocking on Linux: a busy server does not hold the caller.
    public static func at(_ path: String) -> UnixSocketFile {
        var status = stat()
        guard lstat(path, &status) == 0 else { return .absent }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        #if canImport(Darwin)
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #endif
        guard descriptor >= 0 else { return .listening }
        defer { close(descriptor) }
        guard let address = try? SocketAddress(unixDomainSocketPath: path) else { return .listening }
        let connected = address.withSockAddr { connect(descriptor, $0, socklen_t($1)) == 0 }
        return connected || isInUse(afterConnectFailedWith: errno) ? .listening : .stale
    }

    /// Whether a Unix socket whose `connect` failed with `number` may still be in use: only a refusal (nothing
    /// listens) or no such file says it is not.
    public static func isInUse(afterConnectFailedWith number: Int32) -> Bool {
        number != ECONNREFUSED && number != ENOENT
    }
}
