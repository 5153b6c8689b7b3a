import Foundation
import NIOCore
import NIOPosix
import TestSupport

/// `true` when gpsd can be run (CI installs Debian's `gpsd`); the integration test is disabled otherwise.
let gpsdInstalled = Tools.gpsd != nil

/// One gpsd report, as much of gpsd_json(5) as the test reads.
struct GpsdReport: Decodable, Sendable {
    var `class`: String
    var mode: Int?
    var time: String?
    var lat: Double?
    var lon: Double?
    var altHAE: Double?
    var altMSL: Double?
    var speed: Double?
    var track: Double?
}

/// Connects to gpsd on 127.0.0.1:`port`, sends `?WATCH`, calls `onWatching` once gpsd acknowledges it,
/// then decodes every JSON line and hands it to `onReport` until that returns `false` or gpsd closes.
func watchGpsd(
    port: Int, onWatching: @Sendable () -> Void, onReport: (GpsdReport) -> Bool
) async throws {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true};\n"))
        var pending = [UInt8]()
        let decoder = JSONDecoder()
        var watching = false
        for try await var chunk in inbound {
            pending += chunk.readBytes(length: chunk.readableBytes) ?? []
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let report = try? decoder.decode(GpsdReport.self, from: line) else { continue }
                if report.class == "WATCH", !watching {
                    watching = true
                    onWatching()
                }
                if !onReport(report) { return }
            }
        }
    }
}
