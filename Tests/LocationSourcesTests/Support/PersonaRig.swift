import Foundation
import LocationEngine
@testable import LocationSources
import Logging
import MetricsTestKit
import NIOConcurrencyHelpers
import NIOPosix
import SyntheticGPS
import TestSupport

/// Keeps every log record, and lets a test wait for one (tests never bootstrap a logging backend).
struct ObservedLogHandler: LogHandler {
    let records: Observed<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        records.update { $0.append("\(event.level) \(event.message) \(fields)") }
    }
}

/// A synthetic receiver persona on one side of a line and an ``NMEAStreamSource`` commanding it on the other:
/// a socat pseudo-terminal pair (as a receiver on /dev/ttyUSB0 would be) or a TCP port.
final class PersonaRig: Sendable {
    let server: ReceiverPersonaServer
    let source: NMEAStreamSource
    let metrics: TestMetrics
    /// What the persona saw: bytes received, commands obeyed, phase changes.
    let personaEvents: Observed<[ReceiverPersonaServer.Event]>
    /// The source's log records.
    let logs: Observed<[String]>
    /// What the source reported.
    let sourceEvents = Observed<[SourceEvent]>([])
    private let terminals: PseudoTerminalPair?

    private init(
        server: ReceiverPersonaServer, source: NMEAStreamSource, metrics: TestMetrics, personaEvents: Observed<[ReceiverPersonaServer.Event]>,
        logs: Observed<[String]>, terminals: PseudoTerminalPair?
    ) {
        self.server = server
        self.source = source
        self.metrics = metrics
        self.personaEvents = personaEvents
        self.logs = logs
        self.terminals = terminals
    }

    /// Where every rig's persona and source run: event loops of their own, never shut down (as NIO's shared
    /// group). A rig judges its driver by real time, and a loop the other suites share may be held by their work
    /// (a debug build splitting megabytes of a hostile gpsd's lines) for longer than a receiver's output interval:
    /// its fixes would come late and read as a power-save cycle.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// The driver's settings in these tests: quick deadlines, so that fallbacks show within seconds.
    static func control(_ model: ReceiverModel, connection: ReceiverConnection? = nil) -> ReceiverControlConfiguration {
        ReceiverControlConfiguration(
            model: model, acknowledgementTimeout: .milliseconds(800), identificationTimeout: .seconds(1), connection: connection)
    }

    /// A persona on a pseudo-terminal made by socat; the source opens the other end as a serial device.
    static func pty(
        _ persona: ReceiverPersona, model: ReceiverModel, behavior: AcknowledgementBehavior = .normal, losesWakingBytes: Bool = false,
        ubloxGeneration: UbloxGeneration = .m8, attachedByNativeUSB: Bool = false, connection: ReceiverConnection? = nil
    ) async throws -> PersonaRig {
        let terminals = try await PseudoTerminalPair.make()
        let personaEvents = Observed<[ReceiverPersonaServer.Event]>([])
        var receiver = CommandedReceiver(scenario: .stationary(seed: 3), persona: persona, acknowledgements: behavior)
        receiver.losesWakingBytes = losesWakingBytes
        receiver.ubloxGeneration = ubloxGeneration
        receiver.attachedByNativeUSB = attachedByNativeUSB
        let server = try await ReceiverPersonaServer.attach(
            terminal: terminals.device, receiver: receiver, group: loops,
            observer: { event in personaEvents.update { $0.append(event) } })
        return make(
            server: server, endpoint: .serial(path: terminals.host, baudRate: 115_200), model: model, connection: connection,
            personaEvents: personaEvents, terminals: terminals)
    }

    /// A persona served over TCP on loopback; the source connects to it.
    /// `attachedByNativeUSB`: the persona is a receiver's own USB port behind the bridge.
    static func tcp(
        _ persona: ReceiverPersona, model: ReceiverModel, behavior: AcknowledgementBehavior = .normal, attachedByNativeUSB: Bool = false,
        connection: ReceiverConnection? = nil
    ) async throws -> PersonaRig {
        let personaEvents = Observed<[ReceiverPersonaServer.Event]>([])
        var receiver = CommandedReceiver(scenario: .stationary(seed: 3), persona: persona, acknowledgements: behavior)
        receiver.attachedByNativeUSB = attachedByNativeUSB
        let server = try await ReceiverPersonaServer.listen(
            on: ListenAddress(host: "127.0.0.1", port: 0), receiver: receiver, group: loops,
            observer: { event in personaEvents.update { $0.append(event) } })
        guard let port = server.address?.port else { throw HarnessError(description: "the persona server has no port") }
        return make(
            server: server, endpoint: .tcp(host: "127.0.0.1", port: port), model: model, connection: connection, personaEvents: personaEvents,
            terminals: nil)
    }

    private static func make(
        server: ReceiverPersonaServer, endpoint: NMEAStreamEndpoint, model: ReceiverModel, connection: ReceiverConnection? = nil,
        personaEvents: Observed<[ReceiverPersonaServer.Event]>, terminals: PseudoTerminalPair?
    ) -> PersonaRig {
        let logs = Observed<[String]>([])
        let metrics = TestMetrics()
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: endpoint, receiver: control(model, connection: connection)), eventLoopGroup: loops,
            logger: Logger(label: "test") { _ in ObservedLogHandler(records: logs) }, metricsFactory: metrics)
        return PersonaRig(server: server, source: source, metrics: metrics, personaEvents: personaEvents, logs: logs, terminals: terminals)
    }

    /// Starts the source in `mode`, reporting into ``sourceEvents``.
    func start(_ mode: PowerMode) {
        let events = sourceEvents
        source.start(mode: mode, events: SourceEventSink { event in events.update { $0.append(event) } })
    }

    /// Waits (bounded) until the persona has seen what `predicate` asks.
    func persona(_ what: String, _ predicate: @escaping @Sendable ([ReceiverPersonaServer.Event]) -> Bool) async throws {
        do {
            try await withDeadline(seconds: 30) { [personaEvents] in await personaEvents.waitUntil(predicate) }
        } catch {
            throw HarnessError(description: "waiting for the persona (\(what)): \(error); it saw \(personaEvents.value.suffix(12)); the source logged \(logs.value.suffix(12))")
        }
    }

    /// Waits (bounded) until the source has told the engine that its receiver confirmed `state`.
    func heard(_ state: ReceiverPowerProfile.IdleState) async throws {
        try await withDeadline(seconds: 30) { [sourceEvents] in
            await sourceEvents.waitUntil { $0.contains { if case .receiverState(state, _) = $0 { true } else { false } } }
        }
    }

    /// Waits (bounded) until the source has logged a record containing `text`, `count` times.
    func logged(_ text: String, count: Int = 1) async throws {
        try await withDeadline(seconds: 30) { [logs] in await logs.waitUntil { $0.filter { $0.contains(text) }.count >= count } }
    }

    /// The bytes the persona received, concatenated.
    var received: [UInt8] {
        personaEvents.value.flatMap { event -> [UInt8] in
            guard case .received(let bytes) = event else { return [] }
            return bytes
        }
    }

    /// The phases the persona went through, in order.
    var phases: [ReceiverPowerPhase] {
        personaEvents.value.compactMap { if case .phase(let phase) = $0 { phase } else { nil } }
    }

    /// A receiver command counter's total.
    func commands(_ command: String, _ result: String) -> Int64 {
        (try? metrics.expectCounter("locationsource_receiver_commands", [("source", "nmea"), ("command", command), ("result", result)]).totalValue) ?? 0
    }

    /// Pulls the line: the pseudo-terminal pair disappears (the receiver is unplugged).
    func unplug() async {
        terminals?.unplug()
        await server.close()
    }

    /// Stops everything the rig started.
    func shutDown() async {
        source.stop()
        await server.close()
        await terminals?.stop()
    }
}

extension [UInt8] {
    /// Whether `other` occurs as a contiguous run.
    func contains(run other: [UInt8]) -> Bool {
        guard !other.isEmpty, other.count <= count else { return other.isEmpty }
        return (0...(count - other.count)).contains { self[$0..<($0 + other.count)].elementsEqual(other) }
    }
}
