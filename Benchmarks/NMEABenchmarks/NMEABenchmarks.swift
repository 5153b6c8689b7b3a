import Benchmark
import Foundation
import NMEA

// Decoding throughput of the NMEA module, in sentences per second, with the
// allocation count per sentence (`.mallocCountTotal`, scaled per sentence by the
// scaling factor). Input is loaded before measurement starts.
//
//   swift package --disable-sandbox --scratch-path .build-nmea benchmark --target NMEABenchmarks
//
// The 1M benchmark decodes the corpus lines cycled to exactly 1,000,000 sentences: the
// same input Scripts/nmea-throughput-vs-pynmea2.sh hands to pynmea2.

let benchmarks: @Sendable () -> Void = {
    let lines = BenchmarkInput.sentenceLines()
    let kiloChunk = BenchmarkInput.bytes(of: lines, count: 1_000)
    let metrics: [BenchmarkMetric] = [.throughput, .wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident]

    Benchmark(
        "NMEA stream decode, 1k corpus sentences per iteration",
        configuration: .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(3))
    ) { benchmark in
        var decoder = NMEAStreamDecoder()
        var sink = 0.0
        kiloChunk.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }  // warm: buffers reach their capacity
        benchmark.startMeasurement()
        kiloChunk.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }
        benchmark.stopMeasurement()
        blackHole(sink)
    }

    // Unscaled, so that one allocation per thousand sentences would show as 1, not round to 0.
    Benchmark(
        "NMEA stream decode, allocations per 1k sentences (unscaled)",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], scalingFactor: .one, maxDuration: .seconds(2))
    ) { benchmark in
        var decoder = NMEAStreamDecoder()
        var sink = 0.0
        kiloChunk.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }
        benchmark.startMeasurement()
        kiloChunk.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }
        benchmark.stopMeasurement()
        blackHole(sink)
    }

    Benchmark(
        "NMEA stream decode, 1k sentences in 64-byte serial chunks",
        configuration: .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(3))
    ) { benchmark in
        var decoder = NMEAStreamDecoder()
        var sink = 0.0
        kiloChunk.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }
        benchmark.startMeasurement()
        kiloChunk.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let end = min(offset + 64, all.count)
                decoder.feed(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { sink += $0.latitude ?? 0 }
                offset = end
            }
        }
        benchmark.stopMeasurement()
        blackHole(sink)
    }

    Benchmark(
        "NMEA sentence parse only, 1k corpus sentences per iteration",
        configuration: .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(3))
    ) { benchmark in
        let slice = Array(lines.prefix(1_000).joined())
        var decoded = 0
        benchmark.startMeasurement()
        slice.withUnsafeBytes { all in
            var start = 0
            for index in all.indices where all[index] == 0x0A {
                if (try? NMEASentenceParser.parse(UnsafeRawBufferPointer(rebasing: all[start...index]))) != nil { decoded += 1 }
                start = index + 1
            }
        }
        benchmark.stopMeasurement()
        blackHole(decoded)
    }

    let megaInput = BenchmarkInput.bytes(of: lines, count: 1_000_000)
    Benchmark(
        "NMEA stream decode, 1M corpus sentences per iteration",
        configuration: .init(metrics: metrics, scalingFactor: .mega, maxDuration: .seconds(10), maxIterations: 20)
    ) { benchmark in
        var decoder = NMEAStreamDecoder()
        var sink = 0.0
        benchmark.startMeasurement()
        megaInput.withUnsafeBytes { decoder.feed($0) { sink += $0.latitude ?? 0 } }
        benchmark.stopMeasurement()
        blackHole(sink)
    }
}

/// Loads the benchmark input once, before any measurement.
enum BenchmarkInput {
    /// Every `$…` line of the shared corpus (with its CR LF), or encoder-made sentences when the corpus is absent.
    static func sentenceLines() -> [[UInt8]] {
        if let directory = corpusDirectory() {
            let names = ["bu353s4.log", "com-1289.log", "haicom-305N.log", "quectel.log", "triton400.log"]
            let lines = names.flatMap { name -> [[UInt8]] in
                guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return [] }
                return String(decoding: data, as: UTF8.self)
                    .split(whereSeparator: \.isNewline)
                    .filter { $0.hasPrefix("$") }
                    .map { Array($0.utf8) + [0x0D, 0x0A] }
            }
            if !lines.isEmpty { return lines }
        }
        return generatedLines()
    }

    /// `count` lines taken cyclically from `lines`, concatenated.
    static func bytes(of lines: [[UInt8]], count: Int) -> [UInt8] {
        (0..<count).flatMap { lines[$0 % lines.count] }
    }

    private static func corpusDirectory() -> String? {
        if let override = ProcessInfo.processInfo.environment["LOCATIONENGINE_NMEA_CORPUS"], !override.isEmpty {
            return override
        }
        // <root>/Benchmarks/NMEABenchmarks/NMEABenchmarks.swift → <root>/../shared/nmea
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.deletingLastPathComponent().appendingPathComponent("shared/nmea").path
        return FileManager.default.fileExists(atPath: path + "/README.md") ? path : nil
    }

    /// One minute of a receiver driving east at 10 m/s, GGA+GSA+GSV+RMC+VTG per second.
    private static func generatedLines() -> [[UInt8]] {
        (0..<60).flatMap { second -> [[UInt8]] in
            var epoch = NMEAEpoch()
            (epoch.year, epoch.month, epoch.day) = (2025, 6, 1)
            epoch.secondsOfDay = 43_200 + Double(second)
            epoch.mode = .threeD
            epoch.latitude = 48.1173
            epoch.longitude = 11.5167 + Double(second) * 10 / 74_000
            epoch.altitudeMSL = 545.4
            epoch.geoidSeparation = 46.9
            epoch.speed = 10
            epoch.track = 90
            let used = [4, 5, 9, 12, 24, 25, 29, 31]
            epoch.usedSatellites = used.map { NMEASatelliteID(constellation: .gps, number: $0) }
            epoch.satellites = used.map { NMEASatellite(prn: $0, elevation: 40, azimuth: Double($0 * 11), snr: 42, used: true) }
            (epoch.hdop, epoch.vdop, epoch.pdop) = (0.9, 1.4, 1.7)
            return NMEAEncoder.encode(epoch, sentences: [.gga, .gsa, .gsv, .rmc, .vtg])
                .split(separator: "\r\n").map { Array($0.utf8) + [0x0D, 0x0A] }
        }
    }
}
