/// A progress line on standard error, drawn at most ten times a second once the run has taken more
/// than a second (a quick run prints none); locbench creates one only on a terminal and without `--json`.
final class Progress: @unchecked Sendable {  // Used from the driver task only.
    private let created = ContinuousClock.now
    private var lastDraw = ContinuousClock.now
    private var drawn: Set<String> = []
    private var finished: Set<String> = []

    func update(done: Int, of total: Int, design: String) {
        let now = ContinuousClock.now
        guard !finished.contains(design), created.duration(to: now) >= .seconds(1) else { return }
        guard done == total || !drawn.contains(design) || lastDraw.duration(to: now) >= .milliseconds(100) else { return }
        if done == total { finished.insert(design) }
        drawn.insert(design)
        lastDraw = now
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        var line = "\r\(design): [\(bar)] \(Int(fraction * 100))% \(done)/\(total) operations"
        if done == total { line += "\n" }
        FileHandleStderr.write(line)
    }
}

import Foundation

/// Writes to standard error without buffering.
enum FileHandleStderr {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
