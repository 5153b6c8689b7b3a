/// A D-Bus error: its name (`org.freedesktop.DBus.Error.AccessDenied`, `...NoReply`, a service's own) and
/// message, as the bus, the peer or libdbus reported it.
public struct DBusFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's D-Bus name.
    public var name: String
    /// What it says.
    public var message: String

    /// A failure named `name` saying `message`.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    /// The bus's own error names the GeoClue source tells apart.
    public enum Name {
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let noServer = "org.freedesktop.DBus.Error.NoServer"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
        /// This package's, for a message that does not have the shape expected.
        public static let malformed = "org.locationengine.Error.MalformedMessage"
    }
}
