#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The claim of one server process on a database file: a write lock on `<file>.lock`, held while the server
/// runs. A second server started on the same file is refused at start (``DatabaseStartError``) instead of
/// writing beside the first — both would take the same fence and event ids, and one would overwrite what the
/// other had acknowledged.
///
/// A POSIX record lock (`fcntl`), not `flock`: it belongs to the process, so the kernel drops it when the
/// process ends however it ends (`kill -9` included, and the next start takes it), and the same process
/// opening the file again (a server restarted in-process) is not refused by itself. SQLite's own locks last
/// a transaction only, and GRDB has no lock of a file for the life of a process: hence this small wrapper.
final class DatabaseFileLock: Sendable {
    /// The lock file's path.
    let path: String
    private let descriptor: Int32

    /// Takes the lock of the database at `databasePath`, creating the lock file beside it if need be.
    /// - Throws: ``DatabaseStartError`` when another process holds it (naming that process), or the lock file
    ///   cannot be created.
    init(database databasePath: String) throws(DatabaseStartError) {
        path = databasePath + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DatabaseStartError(path: databasePath, problem: .cannotOpen, underlying: nil, detail: "\(path): \(Self.errorText())")
        }
        var lock = Self.writeLock()
        guard fcntl(descriptor, F_SETLK, &lock) == 0 else {
            let failure = errno
            var holder = Self.writeLock()
            let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != Int16(F_UNLCK) ? holder.l_pid : 0
            close(descriptor)
            guard failure == EAGAIN || failure == EACCES else {
                throw DatabaseStartError(path: databasePath, problem: .cannotOpen, underlying: nil, detail: "\(path): \(Self.errorText(failure))")
            }
            throw DatabaseStartError(
                path: databasePath, problem: .inUse, underlying: nil, detail: pid > 0 ? "held by process \(pid) (\(path))" : "held (\(path))")
        }
        self.descriptor = descriptor
    }

    deinit {
        // Closing the descriptor releases the lock.
        close(descriptor)
    }

    private static func writeLock() -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return lock
    }

    private static func errorText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
