import Foundation
import LocationEngine
import SyntheticGPS

/// `--listen`: serve the NMEA stream over TCP or a Unix-domain socket in real time.
enum Serve {
    /// Binds `address`, waits for the first client, then plays `duration` seconds of `scenario`'s epochs to every
    /// client; with `startsNowAtConnection`, the first fix is dated when that client connected (a `--start-time now`
    /// read at launch would stream stale times after a wait, a day old after a night).
    static func run(scenario: Scenario, mode: PowerMode, startsNowAtConnection: Bool, duration: Double, address: ListenAddress) async throws {
        let server: NMEAFeedServer
        do {
            server = try await NMEAFeedServer.start(on: address)
        } catch {
            throw GPSGenError(error.message)
        }
        let signals = await Interruption.signals()
        let example = server.address.unixSocketPath.map { "/usr/libexec/geoclue -u \($0)" } ?? "gpsd -N -S 2948 tcp://\(server.address)"
        FileHandle.standardError.write(Data("gpsgen: serving NMEA on \(server.address); waiting for a client (e.g. \(example))\n".utf8))
        let outcome: Interruption.Outcome<Void>
        do {
            outcome = try await Interruption.race(signals) {
                await server.waitForClient()
                try Task.checkCancellation()
                FileHandle.standardError.write(Data("gpsgen: client connected, streaming \(Int(duration)) s\n".utf8))
                var scenario = scenario
                if startsNowAtConnection { scenario.startTime = Date().timeIntervalSince1970.rounded(.down) }
                var receiver = SyntheticReceiver(scenario: scenario, mode: mode)
                var writer = NMEAWriter()
                try await EpochPlayer.play(&receiver, for: duration, pacedBy: ContinuousClock()) { epoch in
                    var text = ""
                    writer.write(epoch, to: &text)
                    server.broadcast(text)
                }
            }
        } catch {
            await server.close()
            throw error
        }
        await server.close()
        if case .interrupted(let signal) = outcome { throw Interruption.exit(for: signal) }
    }

    /// `--persona`: a receiver that obeys power commands, on TCP or a terminal, for `duration` seconds; its
    /// metered current is printed when it ends.
    static func persona(_ receiver: CommandedReceiver, duration: Double, address: ListenAddress?, terminal: String?) async throws {
        let server: ReceiverPersonaServer
        do {
            if let address {
                server = try await ReceiverPersonaServer.listen(on: address, receiver: receiver)
            } else {
                server = try await ReceiverPersonaServer.attach(terminal: terminal ?? "", receiver: receiver)
            }
        } catch {
            throw GPSGenError(error.message)
        }
        let signals = await Interruption.signals()
        let place = server.address.map { "\($0)" } ?? terminal ?? ""
        FileHandle.standardError.write(Data("gpsgen: a \(receiver.persona.rawValue) receiver on \(place) for \(Int(duration)) s\n".utf8))
        // On a terminal the run ends early, and fails, when the host hangs up: sleeping out the duration on a
        // line gone would look like a receiver nobody heard.
        let started = ContinuousClock.now
        let outcome = try await Interruption.race(signals) {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try? await Task.sleep(for: .seconds(duration))
                    return false
                }
                if terminal != nil {
                    group.addTask {
                        await server.lineClosed()
                        return !Task.isCancelled
                    }
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }
        // Interrupted, the run still reports what it metered before it says so.
        let hungUp = if case .finished(true) = outcome { true } else { false }
        let meter = server.meter
        await server.close()
        let states = ReceiverPowerPhase.allCases.compactMap { phase in
            meter.seconds[phase].map { "\(phase.rawValue) \(Int($0)) s" }
        }
        FileHandle.standardError.write(Data(
            "gpsgen: metered \(String(format: "%.3f", meter.totalCharge / 3600)) mAh, \(String(format: "%.2f", meter.energy)) J, average \(String(format: "%.2f", meter.averageCurrent)) mA (\(states.joined(separator: ", ")))\n".utf8))
        let dropped = server.repliesDropped
        if dropped > 0 {
            FileHandle.standardError.write(Data("gpsgen: replies dropped \(dropped) times: a client sent commands and did not read\n".utf8))
        }
        if case .interrupted(let signal) = outcome { throw Interruption.exit(for: signal) }
        if hungUp {
            let seconds = Int(started.duration(to: .now).components.seconds)
            throw GPSGenError("the terminal \(terminal ?? "") was closed by its other end after \(seconds) s of \(Int(duration)) s")
        }
    }
}
