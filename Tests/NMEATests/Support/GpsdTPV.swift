import Foundation

/// One `"class":"TPV"` report from a gpsd `.chk` file, reduced to what the conformance test compares.
struct GpsdTPV {
    /// UTC time of day in milliseconds, when the report has a time.
    var millisecondsOfDay: Int?
    var mode: Int
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var altitudeHAE: Double?
    var speed: Double?
    var track: Double?
    var eph: Double?
    /// gpsd's `status` (2 DGPS, 8 simulated, …), when reported.
    var status: Int?

    /// Parses every TPV line of a `.chk` file.
    static func parse(_ bytes: [UInt8]) throws -> [GpsdTPV] {
        let text = String(decoding: bytes, as: UTF8.self)
        return try text.split(whereSeparator: \.isNewline).compactMap { line -> GpsdTPV? in
            guard line.contains("\"class\":\"TPV\"") else { return nil }
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
            var millis: Int?
            if let time = object["time"] as? String {
                // 2034-08-16T03:07:19.000Z: compare time of day only (gpsd shifts old dates by 1024 weeks).
                let clock = time.split(separator: "T")[1].dropLast()
                let parts = clock.split(separator: ":")
                let seconds = Double(parts[2]) ?? 0
                millis = (Int(parts[0])! * 3600 + Int(parts[1])! * 60) * 1000 + Int((seconds * 1000).rounded())
            }
            return GpsdTPV(
                millisecondsOfDay: millis, mode: Int(number("mode") ?? 0),
                latitude: number("lat"), longitude: number("lon"),
                altitudeMSL: number("altMSL"), altitudeHAE: number("altHAE"),
                speed: number("speed"), track: number("track"), eph: number("eph"),
                status: number("status").map { Int($0) }
            )
        }
    }

    /// One report per time of day: gpsd prints a report after many single sentences of a cycle;
    /// keep the last one, which has seen the whole cycle. A report without a position does not replace
    /// one with: gpsd stamps the no-fix report of an untimed sentence (an empty GGA after signal loss)
    /// with the time of the last cycle. Reports without time are dropped.
    static func byTimeOfDay(_ reports: [GpsdTPV]) -> [Int: GpsdTPV] {
        var result: [Int: GpsdTPV] = [:]
        for report in reports {
            guard let millis = report.millisecondsOfDay else { continue }
            if report.latitude == nil, result[millis]?.latitude != nil { continue }
            result[millis] = report
        }
        return result
    }
}
