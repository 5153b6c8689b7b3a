import Foundation
import NMEA
import TestSupport
import Testing

/// Every satellite gpsd 3.22 saw in a real receiver log is one we saw, and no other: the satellites in view
/// over the whole log, as (system, number) — gpsd's `gnssid` and `svid` in its SKY reports.
@Suite("Satellites in view against gpsd 3.22 on real receiver logs")
struct SatelliteConformanceTests {
    /// gpsd's `gnssid` for each system.
    static func gnssID(_ constellation: NMEAConstellation?) -> Int? {
        switch constellation {
        case .gps?: 0
        case .sbas?: 1
        case .galileo?: 2
        case .beidou?: 3
        case .imes?: 4
        case .qzss?: 5
        case .glonass?: 6
        case .navic?: 7
        case nil: nil
        }
    }

    struct Identity: Hashable, CustomStringConvertible {
        var gnssID: Int?
        var number: Int
        var description: String { "(\(gnssID.map(String.init) ?? "?"), \(number))" }
    }

    /// Where we read a satellite otherwise than gpsd 3.22, on purpose.
    static func gpsdReading(of satellite: NMEASatellite) -> Identity {
        // gpsd reads a number 33–64 under the `GA` talker by the GPS ranges (SBAS 120 for 33); Galileo
        // numbers its satellites to 36, and the F9P's `$GAGSV` and its system-3 GSA print Galileo 33.
        if satellite.id.constellation == .galileo, (33...36).contains(satellite.prn) {
            return Identity(gnssID: 1, number: satellite.prn + 87)
        }
        return Identity(gnssID: gnssID(satellite.id.constellation), number: satellite.id.number)
    }

    /// Satellites we saw that gpsd printed in no SKY report: it prints a sky when a GSV cycle ends, and not
    /// for every cycle. Each is listed with where it was seen; every entry must be needed.
    static let onlyOurs: [String: Set<Identity>] = [
        // Only in the log's first GSV cycle, cut short: its third sentence never came.
        "gp-320fw-2019-04-07-coldboot.log": [Identity(gnssID: 0, number: 7), Identity(gnssID: 0, number: 11), Identity(gnssID: 0, number: 14)],
        // Only in the second of the log's three GSV cycles; gpsd printed a sky for the last one alone.
        "mtk-3301.log": [Identity(gnssID: 0, number: 5)],
    ]

    static func gpsdSatellites(_ bytes: [UInt8]) throws -> Set<Identity> {
        var result: Set<Identity> = []
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
        where line.contains("\"class\":\"SKY\"") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            for satellite in object["satellites"] as? [[String: Any]] ?? [] {
                guard let gnss = satellite["gnssid"] as? Int, let svid = satellite["svid"] as? Int else { continue }
                result.insert(Identity(gnssID: gnss, number: svid))
            }
        }
        return result
    }

    @Test(
        .enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"),
        arguments: Corpus.logNames
    )
    func theSatellitesInViewAreGpsds(log: String) throws {
        let theirs = try Self.gpsdSatellites(try Corpus.bytes(log + ".chk"))
        var decoder = NMEAStreamDecoder()
        var ours: Set<Identity> = []
        let collect = { (epoch: NMEAEpoch) in
            for satellite in epoch.satellites {
                ours.insert(Self.gpsdReading(of: satellite))
            }
        }
        decoder.feed(try Corpus.bytes(log), onEpoch: collect)
        decoder.finish(onEpoch: collect)
        let expectedExtra = Self.onlyOurs[log] ?? []
        #expect(
            ours == theirs.union(expectedExtra) && theirs.isDisjoint(with: expectedExtra),
            "\(log): only ours \(ours.subtracting(theirs).sorted { $0.description < $1.description }), only gpsd's \(theirs.subtracting(ours).sorted { $0.description < $1.description })"
        )
    }

    /// The u-blox F9P prints four systems' GSAs with NMEA 4.10 system IDs: 20 satellites used, where reading
    /// numbers alone merged GPS 13, Galileo 13 and BeiDou 13 (and others) into 14.
    @Test(.enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"))
    func theF9PsFirstCycleUsesTwentySatellitesOfFourSystems() throws {
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(try Corpus.bytes("ublox-zed-f9p-nmea.log")) { epochs.append($0) }
        let cycle = try #require(epochs.first { $0.usedSatellites.count > 0 })
        let used = Dictionary(grouping: cycle.usedSatellites, by: \.constellation).mapValues(\.count)
        #expect(used == [.gps: 8, .glonass: 3, .galileo: 3, .beidou: 6])
        #expect(Set(cycle.satellites.filter(\.used).map(\.id)).count == 20)
    }
}
