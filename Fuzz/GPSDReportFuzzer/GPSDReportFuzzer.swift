@testable import LocationSources
import NIOCore

/// One libFuzzer run of the gpsd JSON report decoder.
///
/// The input is split at newlines, as the gpsd client frames its socket, and each line is interpreted.
/// Invariants: no crash, no hang, every line is counted once, and every fix it delivers has a finite,
/// in-range position and a non-negative accuracy.
func fuzzGPSDReports(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var interpreter = GPSDReportInterpreter(unmeasuredAccuracy: .typical)
    var lines = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        lines += 1
        // Each line a tenth of a second after the last: repeats fall both inside and outside the repeat window.
        let outcome = interpreter.interpret(line: ByteBuffer(bytes: line), now: .milliseconds(100 * Int64(lines)))
        if case .fix(let location) = outcome {
            precondition(location.latitude.isFinite && abs(location.latitude) <= 90, "latitude out of range")
            precondition(location.longitude.isFinite && abs(location.longitude) <= 180, "longitude out of range")
            precondition(location.horizontalAccuracy >= 0, "negative accuracy")
            if let course = location.course { precondition((0..<360).contains(course), "course not wrapped") }
        }
    }
    precondition(interpreter.statistics.lines == lines, "a line was not counted")
    return 0
}
