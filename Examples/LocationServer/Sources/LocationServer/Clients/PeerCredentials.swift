import Glibc
import NIOCore

/// Who is at the other end of a Unix-domain socket, as the kernel says (`SO_PEERCRED`): the process, the
/// user and the group that connected. A request that comes over the server's Unix socket without a token is
/// its peer's user (``ClientAuthenticator``): the local alternative to tokens, which no client can forge.
///
/// The three fields are Linux's `struct ucred` (`pid_t`, `uid_t`, `gid_t`, 32 bits each, in that order),
/// written out here because Glibc's module shows that struct only to C built with `_GNU_SOURCE`.
struct PeerCredentials: Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    /// What ``of(_:)`` found.
    enum Lookup: Sendable, Equatable {
        /// The connection is a Unix-domain socket's, and the kernel named its peer.
        case peer(PeerCredentials)
        /// The connection is not a Unix-domain socket's (TCP).
        case notUnixSocket
        /// The connection's kind or peer cannot be read: it has closed (its address is gone), or the kernel
        /// would not say.
        case unknown
    }

    /// The credentials of `channel`'s peer, when `channel` is a connection accepted on a Unix-domain socket.
    static func of(_ channel: any Channel) async -> Lookup {
        guard let address = channel.localAddress else { return .unknown }
        guard case .unixDomainSocket = address else { return .notUnixSocket }
        guard let provider = channel as? any SocketOptionProvider else { return .unknown }
        do {
            return .peer(try await provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED)).get())
        } catch {
            return .unknown
        }
    }

    /// The user the server itself runs as.
    static var serverUser: UInt32 { getuid() }
}
