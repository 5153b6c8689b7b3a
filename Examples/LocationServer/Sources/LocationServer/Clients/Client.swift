import Foundation

/// What a client may learn of the device's position: Core Location's and Android's choice per app.
enum ClientPermission: String, Sendable, CaseIterable {
    /// Fixes as measured.
    case precise
    /// Every fix coarsened to the reduced-accuracy grid (the engine's ``ReducedAccuracyPolicy``) before
    /// the client sees it.
    case approximate
    /// No position at all: the location routes answer `403`.
    case none
}

/// A client of the server, as a line of the token file names it.
struct Client: Sendable, Hashable {
    /// Its name: in the metrics' `client` label, the log and the fences' owner column.
    var name: String
    var permission: ClientPermission
    /// Sees, changes and hears every client's fences, not only its own.
    var isAdmin = false
    /// When its token stops being accepted (`nil`: never).
    var expires: Date?

    /// The client of a server without a token file (loopback only): every request is it, with the
    /// server's behaviour before clients existed — precise fixes, every fence.
    static let local = Client(name: "local", permission: .precise, isAdmin: true)
}
