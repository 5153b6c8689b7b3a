#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import NIOConcurrencyHelpers

/// The claim of one server process on a database file: a write lock on `<file>.lock`, held while the server
/// runs. A second server started on the same file is refused at start (``DatabaseStartError``) instead of
/// writing beside the first — both would take the same fence and event ids, and one would overwrite what the
/// other had acknowledged.
///
/// A POSIX record lock (`fcntl`), not `flock`: it belongs to the process, so the kernel drops it when the
/// process ends however it ends (`kill -9` included, and the next start takes it), and the same process
/// opening the file again (a server restarted in-process) is not refused by itself. SQLite's own locks last
/// a transaction only, and GRDB has no lock of a file for the life of a process: hence this small wrapper.
///
/// Because the lock is the process's, closing any descriptor of the lock file drops it for every claim in the
/// process: a server restarted in-process whose old claim went after the new one was taken would run unlocked.
/// The claims of one process on one file therefore share one descriptor, closed with the last, and a claim of
/// a file this process holds opens nothing.
final class DatabaseFileLock: Sendable {
    /// The lock file's path.
    let path: String
    private let file: FileIdentity

    /// A file, whatever path names it.
    private struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    /// This process's claims: one locked descriptor per lock file, and how many claims share it.
    private static let claims = NIOLockedValueBox<[FileIdentity: (descriptor: Int32, holders: Int)]>([:])

    /// What a claim found.
    private enum Outcome {
        case claimed(FileIdentity)
        /// The lock file could not be opened (or read): `errno`.
        case cannotOpen(Int32)
        /// The lock was refused: `errno`, and the process holding it when the kernel says.
        case refused(Int32, holder: pid_t)
    }

    /// Takes the lock of the database at `databasePath`, creating the lock file beside it if need be: beside the
    /// file the path leads to, through any symbolic link, as SQLite resolves it for its own journal — two servers
    /// given a link and its target are one database, and one lock. (Hard links are two files to SQLite, whose
    /// journals would not meet: SQLite's documentation counts them among the ways to corrupt a database.)
    /// - Throws: ``DatabaseStartError`` when another process holds it (naming that process), or the lock file
    ///   cannot be created.
    init(database databasePath: String) throws(DatabaseStartError) {
        let path = Self.resolved(databasePath) + ".lock"
        self.path = path
        // Under the registry's lock throughout: no other claim of this process opens or closes the file meanwhile.
        let outcome: Outcome = Self.claims.withLockedValue { claims in
            var status = stat()
            if stat(path, &status) == 0, var claim = claims[FileIdentity(status)] {
                // Already this process's: shared, and nothing opened (closing a descriptor would drop the lock).
                claim.holders += 1
                claims[FileIdentity(status)] = claim
                return .claimed(FileIdentity(status))
            }
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return .cannotOpen(errno) }
            guard fstat(descriptor, &status) == 0 else {
                let failure = errno
                close(descriptor)
                return .cannotOpen(failure)
            }
            var lock = Self.writeLock()
            guard fcntl(descriptor, F_SETLK, &lock) == 0 else {
                let failure = errno
                var holder = Self.writeLock()
                let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != Int16(F_UNLCK) ? holder.l_pid : 0
                close(descriptor)
                return .refused(failure, holder: pid)
            }
            claims[FileIdentity(status)] = (descriptor, 1)
            return .claimed(FileIdentity(status))
        }
        switch outcome {
        case .claimed(let file):
            self.file = file
        case .cannotOpen(let failure):
            throw DatabaseStartError(path: databasePath, problem: .cannotOpen, underlying: nil, detail: "\(path): \(Self.errorText(failure))")
        case .refused(let failure, let pid):
            guard failure == EAGAIN || failure == EACCES else {
                throw DatabaseStartError(path: databasePath, problem: .cannotOpen, underlying: nil, detail: "\(path): \(Self.errorText(failure))")
            }
            throw DatabaseStartError(
                path: databasePath, problem: .inUse, underlying: nil, detail: pid > 0 ? "held by process \(pid) (\(path))" : "held (\(path))")
        }
    }

    deinit {
        // The last claim closes the descriptor, which releases the lock.
        Self.claims.withLockedValue { [file] claims in
            guard var claim = claims[file] else { return }
            claim.holders -= 1
            if claim.holders > 0 {
                claims[file] = claim
            } else {
                close(claim.descriptor)
                claims[file] = nil
            }
        }
    }

    /// `path` through its symbolic links: the file's own path, or, for a file not created yet (a link to it
    /// included), its directory's resolved path and its name; `path` itself when neither resolves (the open that
    /// follows says why).
    static func resolved(_ path: String, links: Int = 0) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        // A link to a file not created yet: SQLite creates the target, so the lock goes beside the target.
        var status = stat()
        if links < 40, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(path, &target, target.count - 1)
            if count > 0 {
                let destination = String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
                return resolved(destination.hasPrefix("/") ? destination : directory + destination, links: links + 1)
            }
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let real = realpath(directory, nil) else { return path }
        defer { free(real) }
        let resolvedDirectory = String(cString: real)
        return resolvedDirectory.hasSuffix("/") ? resolvedDirectory + name : resolvedDirectory + "/" + name
    }

    private static func writeLock() -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return lock
    }

    private static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
