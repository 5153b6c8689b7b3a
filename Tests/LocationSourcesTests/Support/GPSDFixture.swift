import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport

/// A real gpsd on 127.0.0.1 reading an NMEA feed served by the test, the way it reads a receiver
/// behind a serial-to-TCP bridge: `gpsd -N -S PORT tcp://127.0.0.1:FEED`. Without `-n`, gpsd opens
/// the feed only while a client watches, and closes it when it releases the device — so the feed's
/// connections show exactly when gpsd powers the receiver up and down.
final class GPSDFixture: Sendable {
    /// The feed gpsd reads; its record shows gpsd opening and closing the "device".
    let feed: TestTCPServer
    /// The port gpsd serves clients on.
    let port: Int
    private let gpsd: NIOLockedValueBox<ChildProcess?>
    private let player: Task<Void, Never>

    /// Starts the feed and gpsd. The feed plays `chunks` (lines or epoch blocks), one every `interval`,
    /// only while gpsd is connected to it, resuming where it stopped; with `loops` it starts over at the end.
    static func start(chunks: [String], interval: Duration, loops: Bool) async throws -> GPSDFixture {
        let feed = try await TestTCPServer.start()
        let port = try await freeLoopbackPort()
        let player = Task {
            var cursor = 0
            while !Task.isCancelled {
                if feed.record.active > 0 {
                    if cursor == chunks.count {
                        guard loops else { return }
                        cursor = 0
                    }
                    feed.broadcast(chunks[cursor])
                    cursor += 1
                }
                // Pacing the feed like a receiver's UART; not a wait for an outcome.
                try? await Task.sleep(for: interval)
            }
        }
        let fixture = GPSDFixture(feed: feed, port: port, player: player)
        try fixture.startGPSD()
        return fixture
    }

    private init(feed: TestTCPServer, port: Int, player: Task<Void, Never>) {
        self.feed = feed
        self.port = port
        self.gpsd = NIOLockedValueBox(nil)
        self.player = player
    }

    /// Starts gpsd (again) on the fixture's port.
    func startGPSD() throws {
        let process = try ChildProcess(Tools.gpsd!, ["-N", "-S", String(port), "tcp://127.0.0.1:\(feed.port)"])
        gpsd.withLockedValue { $0 = process }
    }

    /// Kills gpsd and waits for it to exit.
    func killGPSD() async {
        let process = gpsd.withLockedValue { process in
            defer { process = nil }
            return process
        }
        await process?.stop()
    }

    /// Kills gpsd without waiting (a safety net for `defer`).
    func abandon() {
        gpsd.withLockedValue { $0?.kill() }
        player.cancel()
    }

    /// Stops gpsd, the player and the feed.
    func stop() async {
        await killGPSD()
        player.cancel()
        await player.value
        await feed.close()
    }
}

extension GPSDFixture {
    /// gpsd's answer to `?DEVICES;` from a separate observer client (which does not watch, so it
    /// does not keep the device open): the DEVICES line.
    func devicesReport() async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: "?DEVICES;\n"))
            var text = ""
            for try await chunk in inbound {
                text += String(buffer: chunk)
                if let line = text.split(separator: "\n").first(where: { $0.contains(#""class":"DEVICES""#) }) {
                    return String(line)
                }
            }
            throw HarnessError(description: "gpsd closed the observer connection without a DEVICES report")
        }
    }
}
