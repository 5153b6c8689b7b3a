import Foundation
import SyntheticGPS

/// `--listen`: serve the NMEA stream over TCP in real time.
enum Serve {
    /// Binds `address`, waits for the first client, then plays `duration` seconds of epochs to every client.
    static func run(receiver: inout SyntheticReceiver, duration: Double, address: ListenAddress) async throws {
        let server: NMEAFeedServer
        do {
            server = try await NMEAFeedServer.start(on: address)
        } catch {
            throw GPSGenError(error.message)
        }
        FileHandle.standardError.write(
            Data("gpsgen: serving NMEA on \(server.address); waiting for a client (e.g. gpsd -N -S 2948 tcp://\(server.address))\n".utf8)
        )
        await server.waitForClient()
        FileHandle.standardError.write(Data("gpsgen: client connected, streaming \(Int(duration)) s\n".utf8))
        var writer = NMEAWriter()
        do {
            try await EpochPlayer.play(&receiver, for: duration, pacedBy: ContinuousClock()) { epoch in
                var text = ""
                writer.write(epoch, to: &text)
                server.broadcast(text)
            }
        } catch {
            await server.close()
            throw error
        }
        await server.close()
    }
}
