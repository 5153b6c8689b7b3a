import ArgumentParser
import Foundation
import SyntheticGPS

/// `gpsgen decode`: NMEA in, one gpsd-style TPV JSON object per epoch out, a summary on stderr.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode an NMEA log (or - for standard input) into gpsd TPV JSON lines.",
        discussion: "Example: gpsgen decode drive.nmea | head; gpsgen --duration 1m | gpsgen decode -"
    )

    @Argument(help: "NMEA file to read, or - for standard input.")
    var file: String

    func run() throws {
        let input: FileHandle
        if file == "-" {
            input = .standardInput
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                throw GPSGenError("cannot decode '\(file)': it is a directory; name an NMEA log")
            }
            guard let handle = FileHandle(forReadingAtPath: file) else {
                throw GPSGenError("cannot open '\(file)'; check the path and permissions")
            }
            input = handle
        }
        let sink = try OutputSink(path: nil)
        var decoder = NMEALogDecoder()
        var buffer = ""
        func emit(_ report: TPVReport) {
            buffer += report.json
            buffer += "\n"
        }
        while true {
            let chunk: Data?
            do {
                chunk = try input.read(upToCount: 1 << 16)
            } catch {
                throw GPSGenError("cannot read '\(file)': \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            chunk.withUnsafeBytes { decoder.feed($0, report: emit) }
            try sink.flush(&buffer)
        }
        decoder.finish(report: emit)
        try sink.flush(&buffer, force: true)
        FileHandle.standardError.write(Data("gpsgen decode: \(decoder.summary)\n".utf8))
        // Not a silent success: a GPX file, a binary or an empty one decoded to nothing is an error a script sees.
        if decoder.statistics.sentences == 0 {
            throw GPSGenError("no NMEA sentence in '\(file)'\(decoder.statistics.discardedBytes > 0 ? "" : ": it is empty")")
        }
    }
}
