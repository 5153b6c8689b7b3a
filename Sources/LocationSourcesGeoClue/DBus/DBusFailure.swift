/// A D-Bus error: its name (`org.freedesktop.DBus.Error.AccessDenied`, `...NoReply`, a service's own) and
/// message, as the bus, the peer or libdbus reported it.
struct DBusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's D-Bus name.
    var name: String
    /// What it says.
    var message: String

    /// A failure named `name` saying `message`.
    init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    var description: String { "\(name): \(message)" }

    /// The bus's own error names the GeoClue source tells apart.
    enum Name {
        static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        static let noReply = "org.freedesktop.DBus.Error.NoReply"
        static let timeout = "org.freedesktop.DBus.Error.Timeout"
        static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        static let noServer = "org.freedesktop.DBus.Error.NoServer"
        static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
        /// This package's, for a message that does not have the shape expected.
        static let malformed = "org.locationengine.Error.MalformedMessage"
    }
}
