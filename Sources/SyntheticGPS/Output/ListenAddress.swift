/// A `HOST:PORT` to serve on, parsed from the command line: `127.0.0.1:2948`, `[::1]:2948`,
/// `localhost:0` (port 0 asks the system for a free port); or `unix:PATH`, a Unix-domain socket (what
/// GeoClue's network-NMEA source reads with `--nmea-socket`).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address literal (without brackets); empty for a Unix-domain socket.
    public var host: String
    /// The TCP port, `0...65535`; 0 for a Unix-domain socket.
    public var port: Int
    /// The path of a Unix-domain socket, or `nil` for TCP.
    public var unixSocketPath: String?

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// A Unix-domain socket at `path`.
    public init(unixSocketPath path: String) {
        host = ""
        port = 0
        unixSocketPath = path
    }

    /// Parses `HOST:PORT` (an IPv6 literal must be bracketed) or `unix:PATH`.
    /// - Throws: ``SyntheticGPSError`` naming what is wrong with `text`.
    public init(parsing text: String) throws(SyntheticGPSError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            // sockaddr_un holds 107 bytes and a terminating zero.
            guard !path.isEmpty, path.utf8.count < 108, !path.contains("\0") else {
                throw .invalidArgument("bad address '\(text)': unix:PATH needs a socket path of 1 to 107 bytes")
            }
            self.init(unixSocketPath: path)
            return
        }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .invalidArgument("bad address '\(text)': write an IPv6 host as [::1]:PORT")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw .invalidArgument("bad address '\(text)': expected HOST:PORT, e.g. 127.0.0.1:2948 or [::1]:2948")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        // Brackets only enclose an IPv6 host: inside one (`[[]:4` would give the host `[`) the address
        // could not be printed back as a `HOST:PORT` that parses to it.
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" || $0 == "[" || $0 == "]" }) else {
            throw .invalidArgument(
                "bad address '\(text)': the host is empty or malformed (no spaces, slashes, or brackets except around an IPv6 host)")
        }
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw .invalidArgument("bad address '\(text)': the port must be a number in 0...65535")
        }
        self.init(host: String(host), port: port)
    }

    /// `HOST:PORT`, with an IPv6 host in brackets, or `unix:PATH`.
    public var description: String {
        if let unixSocketPath { return "unix:\(unixSocketPath)" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
