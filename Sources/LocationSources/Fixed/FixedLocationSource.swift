import Foundation
import LocationEngine
import NIOConcurrencyHelpers

/// A source whose position does not move — a server in a rack, a kiosk, a base station — configured in code or
/// read from a file in the `/etc/geolocation` format (GeoClue's static source reads the same file).
///
/// Started, it reports its position at once and again every ``interval`` while it runs (a fix as fresh as any
/// request's recency asks), with the configured accuracy. It draws no power worth planning for (no power
/// profile) and reports no course. A file is read at each start, so an edited file is taken at the next; a
/// file that cannot be read or says no valid position ends the session with a fatal error (`fixed.file`),
/// whose message names the file and the line.
///
/// ```swift
/// let source = FixedLocationSource(try FixedLocation(latitude: 52.52, longitude: 13.405, accuracy: 25))
/// let fromFile = FixedLocationSource(geolocationFile: "/etc/geolocation")
/// ```
public final class FixedLocationSource: LocationSource {
    /// Where the position comes from.
    public enum Origin: Sendable, Hashable {
        /// Configured.
        case location(FixedLocation)
        /// Read from a file in the `/etc/geolocation` format at each start.
        case file(path: String)
    }

    /// What the source did since it was created.
    public struct Statistics: Sendable, Hashable {
        /// Fixes reported.
        public var fixes = 0
        /// Starts.
        public var starts = 0
        /// Starts that failed (the file could not be read or said no valid position).
        public var errors = 0
    }

    /// No course; its reach is its accuracy (read from the file when the source is made, 0 when it cannot be
    /// read then); it costs nothing.
    public let capabilities: SourceCapabilities
    /// Where the position comes from.
    public let origin: Origin
    /// How often the position is reported again while the source runs.
    public let interval: Duration

    private struct State: Sendable {
        var task: Task<Void, Never>?
        var statistics = Statistics()
    }

    private let state = NIOLockedValueBox(State())
    private let sleep: @Sendable (Duration) async throws -> Void

    /// A source at `location`, reported every `interval` (at least 100 ms) on `clock` while it runs.
    public init<C: Clock>(_ origin: Origin, interval: Duration = .seconds(1), clock: C) where C.Duration == Duration {
        self.origin = origin
        self.interval = max(interval, .milliseconds(100))
        let reach: Double =
            switch origin {
            case .location(let location): location.accuracy
            case .file(let path): (try? FixedLocation(geolocationFileAt: path))?.accuracy ?? 0
            }
        capabilities = SourceCapabilities(providesCourse: false, reach: reach, cost: SourceCost(watts: 0))
        sleep = { duration in try await clock.sleep(for: duration) }
    }

    /// A source at `location`, reported every `interval` while it runs.
    public convenience init(_ location: FixedLocation, interval: Duration = .seconds(1)) {
        self.init(.location(location), interval: interval, clock: ContinuousClock())
    }

    /// A source at the position the file at `path` says (`/etc/geolocation` by default), read at each start.
    public convenience init(geolocationFile path: String = "/etc/geolocation", interval: Duration = .seconds(1)) {
        self.init(.file(path: path), interval: interval, clock: ContinuousClock())
    }

    /// What the source did so far.
    public var statistics: Statistics { state.withLockedValue { $0.statistics } }

    public func start(mode: PowerMode, events: SourceEventSink) {
        let location: FixedLocation
        do {
            location = try position()
        } catch {
            state.withLockedValue {
                $0.statistics.starts += 1
                $0.statistics.errors += 1
            }
            events.fatalError(SourceError(code: "fixed.file", message: error.description))
            return
        }
        let fix = location.fix()
        let (interval, sleep) = (self.interval, self.sleep)
        let replaced = state.withLockedValue { state -> Task<Void, Never>? in
            let old = state.task
            state.statistics.starts += 1
            state.statistics.fixes += 1
            state.task = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await sleep(interval) } catch { return }
                    guard let self, !Task.isCancelled else { return }
                    self.state.withLockedValue { $0.statistics.fixes += 1 }
                    events.location(fix)
                }
            }
            return old
        }
        replaced?.cancel()
        events.location(fix)
    }

    /// A fixed position serves every mode alike.
    public func setMode(_ mode: PowerMode) {}

    public func stop() {
        let task = state.withLockedValue { state -> Task<Void, Never>? in
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private func position() throws(FixedLocationError) -> FixedLocation {
        switch origin {
        case .location(let location): return location
        case .file(let path): return try FixedLocation(geolocationFileAt: path)
        }
    }
}

extension FixedLocation {
    /// The largest fixed location file read: the format is four short lines and comments.
    static let largestFile = 64 * 1024

    /// The position the file at `path` (in the `/etc/geolocation` format) says.
    /// - Throws: ``FixedLocationError`` naming the file, and the line at fault.
    init(geolocationFileAt path: String) throws(FixedLocationError) {
        let text = try Self.text(ofFileAt: path)
        do {
            self = try FixedLocation(geolocation: text)
        } catch {
            throw FixedLocationError(description: "\(path): \(error.description)")
        }
    }

    /// The text of the regular file at `path`, at most ``largestFile`` bytes of UTF-8. Opened without blocking
    /// and checked before it is read: a named pipe with no writer would hang the start, and `/dev/zero` or a
    /// huge file would be read into memory whole.
    private static func text(ofFileAt path: String) throws(FixedLocationError) -> String {
        func failure(_ reason: String) -> FixedLocationError {
            FixedLocationError(description: "cannot read the fixed location file '\(path)': \(reason)")
        }
        // Checked before it is opened too: opening a serial device (a path given by mistake) would toggle its
        // control lines, which resets some boards.
        var status = stat()
        guard stat(path, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file") }
        let descriptor = openDescriptor(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { closeDescriptor(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw failure("not a regular file") }
        guard status.st_size <= largestFile else { throw failure("\(status.st_size) bytes; it may hold at most \(largestFile)") }
        // One byte more than the limit: a file that grew since the check is refused, not cut.
        var bytes = [UInt8](repeating: 0, count: largestFile + 1)
        var count = 0
        while count < bytes.count {
            let result = bytes.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress! + count, buffer.count - count) }
            if result == 0 { break }
            if result < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            count += result
        }
        guard count <= largestFile else { throw failure("more than \(largestFile) bytes") }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else { throw failure("not UTF-8") }
        return text
    }
}
