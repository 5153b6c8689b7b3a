import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import UnixSignals

/// Who the server's clients are: everyone is ``Client/local`` when the server runs without a token file
/// (on loopback only), else the clients of the token file, read at start and again on each `SIGHUP`.
final class ClientDirectory: Sendable {
    /// Where the clients come from.
    enum Mode: Sendable, Equatable {
        /// No token file: every request is ``Client/local``.
        case open
        /// The token file at `path`.
        case tokens(path: String)
    }

    let mode: Mode
    private let table: NIOLockedValueBox<ClientTable>
    /// What waits for the token file to be read again (streams that ask then whether their client still is
    /// what it opened as), by key.
    private let watchers = NIOLockedValueBox<(next: Int, wakes: [Int: @Sendable () -> Void])>((0, [:]))
    /// What is told each table read from the file before it is in force (``beforeTaking(_:)``).
    private let recorders = NIOLockedValueBox<[@Sendable (ClientTable) -> Void]>([])
    private let logger: Logger

    /// A directory without a token file.
    static func open(logger: Logger = Logger(label: "clients")) -> ClientDirectory {
        ClientDirectory(mode: .open, table: ClientTable(clients: [:]), logger: logger)
    }

    /// The clients of the token file at `path`.
    /// - Throws: ``TokenFileError``: the server must not start.
    static func tokens(path: String, logger: Logger) throws(TokenFileError) -> ClientDirectory {
        ClientDirectory(mode: .tokens(path: path), table: try TokenFile.load(path: path), logger: logger)
    }

    /// A directory of `table`, as if read from `path` (tests).
    init(mode: Mode, table: ClientTable, logger: Logger) {
        self.mode = mode
        self.table = NIOLockedValueBox(table)
        self.logger = logger
    }

    /// The current table.
    var current: ClientTable { table.withLockedValue { $0 } }

    /// The client `token` names at `now` in the current table (``ClientTable/lookup(_:at:)``), without
    /// copying the table out of its lock.
    func lookup(_ token: String, at now: Date) -> ClientTable.Lookup {
        table.withLockedValue { $0.lookup(token, at: now) }
    }

    /// Reads the token file again; a bad file leaves the tokens as they were, and says why.
    /// - Returns: the error, or `nil` when the new tokens are in force.
    @discardableResult
    func reload() -> TokenFileError? {
        guard case .tokens(let path) = mode else { return nil }
        do throws(TokenFileError) {
            // Read once: the text judged blank is the text parsed (a file replaced between two reads is not).
            let text = try TokenFile.read(path: path)
            let loaded = try TokenFile.parse(text, path: path)
            // An empty file is one being written (an editor, `: >` before the new text) or emptied by mistake:
            // taking it would lock every client out and end every stream. One that says something (a comment)
            // and names nobody is meant: that is how every client is revoked at once.
            if loaded.clientCount == 0, text.allSatisfy(\.isWhitespace) {
                throw TokenFileError(
                    path: path, line: nil,
                    message: "is empty: the tokens before it stay in force (to revoke every client, leave a comment line in it; replace the file by renaming a complete one over it)")
            }
            for record in recorders.withLockedValue({ $0 }) { record(loaded) }
            table.withLockedValue { $0 = loaded }
            logger.info("clients: token file read again", metadata: ["path": "\(path)", "clients": "\(loaded.clientCount)"])
            for wake in watchers.withLockedValue({ Array($0.wakes.values) }) { wake() }
            return nil
        } catch {
            logger.error("clients: token file not taken, the tokens before it stay in force", metadata: ["error": "\(error)"])
            return error
        }
    }
}

extension ClientDirectory {
    /// Calls `wake` each time the token file is read again and taken (outside any lock), until ``unwatch(_:)`` with
    /// the key returned.
    func watch(_ wake: @escaping @Sendable () -> Void) -> Int {
        watchers.withLockedValue { watchers in
            watchers.next += 1
            watchers.wakes[watchers.next] = wake
            return watchers.next
        }
    }

    /// Calls `record` with each table read from the token file again, before it is in force (outside any lock), for
    /// as long as the directory lives: what must be kept of a change before any request is answered by it.
    func beforeTaking(_ record: @escaping @Sendable (ClientTable) -> Void) {
        recorders.withLockedValue { $0.append(record) }
    }

    /// Stops telling what ``watch(_:)`` registered under `key`.
    func unwatch(_ key: Int) {
        _ = watchers.withLockedValue { $0.wakes.removeValue(forKey: key) }
    }
}

extension ClientDirectory: Service {
    /// Reads the token file again on each `SIGHUP` until the group shuts down; without one, says so (a
    /// `SIGHUP` must not end the server, as its default action would).
    func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            if case .tokens = mode {
                reload()
            } else {
                logger.notice("clients: SIGHUP ignored, the server runs without a token file (--tokens) to read again")
            }
        }
    }
}

/// Where the server may listen without tokens: the loopback addresses, which only this machine reaches.
enum ListenScope {
    /// `host` without the brackets of an IPv6 literal as a URL writes it (`[::1]`): what the resolver takes.
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`) or `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        let bare = bare(host)
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
