import Foundation

/// Where generated text goes: standard output or a file, written in large chunks.
struct OutputSink {
    private let handle: FileHandle
    /// Flush once this many UTF-8 bytes are pending.
    static let chunkSize = 1 << 16

    /// Standard output when `path` is `nil` or `-`, otherwise the file at `path`, opened as a shell's `>` opens it:
    /// a regular file created or truncated, a symbolic link followed, a named pipe, a pseudo-terminal or a device
    /// written to as it is (a pipe waits for its reader). `FileManager.createFile` is not used: it writes a new
    /// file and renames it over the path, which replaced a pipe, a device or a link with a regular file.
    init(path: String?) throws {
        guard let path, path != "-" else {
            handle = .standardOutput
            return
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw GPSGenError("cannot open output file '\(path)': \(reason); check the directory exists and is writable")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `text` now.
    func write(_ text: String) throws {
        guard !text.isEmpty else { return }
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw GPSGenError("cannot write output: \(error.localizedDescription)")
        }
    }

    /// Flushes `buffer` if it holds at least ``chunkSize`` bytes (or `force`), then empties it.
    func flush(_ buffer: inout String, force: Bool = false) throws {
        guard force || buffer.utf8.count >= Self.chunkSize else { return }
        try write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A runtime failure of `gpsgen`, printed as `Error: <message>`.
struct GPSGenError: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }
}

/// Progress on standard error, only when it is a terminal.
struct Progress {
    private let total: Double
    private let enabled: Bool
    private var shown = -1

    init(total: Double) {
        self.total = total
        enabled = isatty(STDERR_FILENO) != 0 && total > 0
    }

    /// Shows `done` out of the total as a whole percentage, redrawing only when it changes.
    mutating func update(_ done: Double) {
        guard enabled else { return }
        let percent = min(100, Int(done / total * 100))
        guard percent != shown else { return }
        shown = percent
        FileHandle.standardError.write(Data("\rgpsgen: \(percent)%".utf8))
    }

    /// Ends the progress line.
    func finish() {
        guard enabled, shown >= 0 else { return }
        FileHandle.standardError.write(Data("\rgpsgen: 100%\n".utf8))
    }
}
