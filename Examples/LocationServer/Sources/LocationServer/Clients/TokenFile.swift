import Foundation

/// The token file: one client a line, `TOKEN CLIENT PERMISSION [admin] [expires=DATE]`, fields separated
/// by spaces or tabs; blank lines and lines starting with `#` are skipped.
///
/// - `TOKEN`: the bearer token the client sends (`Authorization: Bearer TOKEN`), 16 to 512 characters of
///   `A–Z a–z 0–9 - . _ ~ + /` (RFC 6750's token68), optionally ending in `=`; each token once. Or
///   `uid:N`: the local user whose user id is N, for requests over the server's Unix socket
///   (`--unix-socket`) that carry no token; each user once.
/// - `CLIENT`: the client's name, 1 to 64 characters of `A–Z a–z 0–9 - . _`. A client may have several
///   tokens (a new one beside the old while it rotates), all with the same permission.
/// - `PERMISSION`: `precise`, `approximate` or `none` (``ClientPermission``).
/// - `admin`: the client sees every client's fences and hears their events (with `precise` only).
/// - `expires=DATE`: the token is refused from that instant on, an ISO 8601 date and time in UTC
///   (`2027-01-31T00:00:00Z`).
///
/// Parsing is pure: the text in, the table or the first bad line out.
enum TokenFile {
    /// Reads the file at `path`.
    /// - Throws: ``TokenFileError`` naming the file, and the line when one is bad.
    static func load(path: String) throws(TokenFileError) -> ClientTable {
        try parse(read(path: path), path: path)
    }

    /// The text of the file at `path`, read once.
    /// - Throws: ``TokenFileError`` when it cannot be read, is larger than a token file can be, or is not UTF-8.
    static func read(path: String) throws(TokenFileError) -> String {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            // Read no more than a token file can hold: `/dev/zero` or a log given by mistake is refused, not
            // read into memory without end.
            data = try handle.read(upToCount: largestSize + 1) ?? Data()
        } catch {
            throw TokenFileError(path: path, line: nil, message: "cannot read it (\(error.localizedDescription))")
        }
        guard data.count <= largestSize else {
            throw TokenFileError(path: path, line: nil, message: "it is larger than 1 MiB: not a token file (a client's line is under 700 bytes)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TokenFileError(path: path, line: nil, message: "it is not UTF-8 text")
        }
        return text
    }

    /// The largest token file read: 1 MiB, some 1,500 clients of the longest lines.
    static let largestSize = 1 << 20

    /// Parses the file's `text` (`path` names it in errors).
    /// - Throws: ``TokenFileError`` for the first bad line.
    /// - Complexity: O(n) for n characters.
    static func parse(_ text: String, path: String) throws(TokenFileError) -> ClientTable {
        var clients: [String: Client] = [:]
        var tokenLines: [String: Int] = [:]
        var users: [UInt32: Client] = [:]
        var userLines: [UInt32: Int] = [:]
        /// Each client's first line.
        var named: [String: (client: Client, line: Int)] = [:]
        // Split on line feeds as bytes: a Character "\r\n" (a file saved on Windows) is no "\n", which read the
        // whole file as one line (skipped as a comment when it began with one).
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Substring($0) }
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            func bad(_ message: String) -> TokenFileError { TokenFileError(path: path, line: number, message: message) }
            // A field in the wrong place may be a secret (a second token on the line, a name left out): an error,
            // which is logged, names a value that could be a token only by its length.
            func shown(_ field: String) -> String { isToken(field) ? "<\(field.count) characters, not shown: a token's>" : "'\(field)'" }
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard fields.count >= 3 else {
                throw bad("expected TOKEN CLIENT PERMISSION [admin] [expires=DATE], found \(fields.count) field\(fields.count == 1 ? "" : "s")")
            }
            let (token, name, permissionText) = (fields[0], fields[1], fields[2])
            let user = token.hasPrefix("uid:") ? UInt32(token.dropFirst("uid:".count)) : nil
            if token.hasPrefix("uid:"), user == nil {
                throw bad("'\(token)': a local user is uid:N, N a user id from 0 to 4294967295 (id -u NAME says it)")
            }
            guard user != nil || isToken(token) else {
                throw bad("the token must be 16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (optionally ending in =); this one is \(token.count) characters long or holds others")
            }
            guard isClientName(name) else { throw bad("client \(shown(name)): a name is 1 to 64 characters of A-Z a-z 0-9 - . _") }
            switch reservation(of: name) {
            case .some(.none):
                throw bad("client '\(name)': local is the name of the server's one client without a token file, so that the fences stored under it stay its own")
            case .some(.some(let owner)) where owner != user:
                throw bad("client '\(name)': uid-\(owner) is the name the server gives user \(owner) without a token file: only its uid:\(owner) line may take it, so that the fences stored under it stay the user's")
            default:
                break
            }
            guard let permission = ClientPermission(rawValue: permissionText) else {
                throw bad("permission \(shown(permissionText)): expected precise, approximate or none")
            }
            var client = Client(name: name, permission: permission)
            for option in fields.dropFirst(3) {
                if option == "admin" {
                    client.isAdmin = true
                } else if option.hasPrefix("expires=") {
                    guard let date = ISO8601DateFormatter().date(from: String(option.dropFirst("expires=".count))) else {
                        throw bad("\(option): expected an ISO 8601 date and time in UTC, such as expires=2027-01-31T00:00:00Z")
                    }
                    client.expires = date
                } else {
                    throw bad("\(shown(option)): expected admin or expires=DATE after the permission")
                }
            }
            if client.isAdmin, client.permission != .precise {
                throw bad("admin sees every client's fences and their events: it needs permission precise, not \(permission.rawValue)")
            }
            if let user, let earlier = userLines[user] { throw bad("user id \(user) is on line \(earlier) too: each user is one client") }
            if let earlier = tokenLines[token] { throw bad("the same token as line \(earlier): each token names one client") }
            if let earlier = named[name], earlier.client.permission != client.permission || earlier.client.isAdmin != client.isAdmin {
                throw bad("client \(shown(name)) has another permission on line \(earlier.line): a client's tokens share one")
            }
            named[name] = named[name] ?? (client, number)
            if let user {
                userLines[user] = number
                users[user] = client
            } else {
                tokenLines[token] = number
                clients[token] = client
            }
        }
        return ClientTable(clients: clients, users: users)
    }

    /// Whether `token` is a token68 of 16 to 512 characters: RFC 6750's characters, then any `=`.
    /// - Complexity: O(t) for t bytes, one pass (every request's token is checked).
    static func isToken(_ token: String) -> Bool {
        guard (16...512).contains(token.utf8.count) else { return false }
        var characters = 0
        var padding = false
        for byte in token.utf8 {
            if byte == UInt8(ascii: "=") {
                padding = true
            } else if padding || !isTokenCharacter(byte) {
                return false
            } else {
                characters += 1
            }
        }
        return characters > 0
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: isAlphanumeric(byte)
        }
    }

    /// Whether `name` is one the server gives a client of its own without a token file: `.some(nil)` for
    /// `local` (every request over TCP), `.some(N)` for `uid-N` (user N over the Unix socket); `nil` for any other.
    /// Fences are owned by name: such a name in a token file would hand the fences stored under it in a run
    /// without one to another client.
    static func reservation(of name: String) -> UInt32?? {
        if name == Client.local.name { return .some(nil) }
        guard name.hasPrefix("uid-"), let user = UInt32(name.dropFirst("uid-".count)), name == "uid-\(user)" else { return nil }
        return .some(user)
    }

    /// Whether `name` can name a client (and stand in a metric label and a log line as it is).
    static func isClientName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { isAlphanumeric($0) || "-._".utf8.contains($0) }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// A token file the server cannot use: at start the server refuses to run; on `SIGHUP` it keeps the
/// tokens it had.
struct TokenFileError: Error, CustomStringConvertible, Equatable {
    var path: String
    /// The bad line, from 1 (`nil`: the file as a whole).
    var line: Int?
    var message: String

    var description: String {
        "--tokens \(path)\(line.map { " line \($0)" } ?? ""): \(message)"
    }
}
