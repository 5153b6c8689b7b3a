import Hummingbird
import LocationEngine
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// The server around one engine: its routes, and the order in which the two shut down.
struct LocationServerApplication<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let registry: PrometheusCollectorRegistry
    let counters: ServerCounters
    /// The fences of `/geofences` and the listeners of `/geofences/events`.
    let geofences: GeofenceRegistry
    /// Who the clients are: without a token file, every request is the local client.
    var clients = ClientDirectory.open()
    /// How many requests a second each client may make (`nil`: no limit).
    var clientRateLimit: RateLimit?
    /// How many requests each client may have open at once (`nil`: no limit).
    var clientMaxOpen: Int?
    /// Each client's open requests, counted when ``clientMaxOpen`` is set.
    var openRequests = OpenRequests()

    /// How long a connection may sit with no request in progress before it is closed: a keep-alive connection
    /// between requests, or one whose request line has not arrived (connections trickling a byte a minute would
    /// otherwise pile up before any client is known, and use up the descriptors). A request in progress, a
    /// `/location` waiting a day or a stream, is never cut by it.
    var idleConnectionTimeout: TimeAmount = .seconds(60)

    /// The HTTP application alone, listening per `configuration`, without the engine among its
    /// services: whoever builds it runs the engine (``serviceGroup(configuration:logger:gracefulShutdownSignals:onServerRunning:)``
    /// does; tests start `engine.run()` beside it).
    func build(
        configuration: ApplicationConfiguration, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        let audit = ClientAudit(registry: registry, logger: logger)
        // First: every request is a client's, or 401, before anything else (an unknown route included).
        let authenticator = ClientAuthenticator(clients: clients)
        // What each client may hear of the events recorded from now on, and what changed while the server was down.
        geofences.grants.follow(clients)
        router.add(middleware: authenticator)
        if let clientRateLimit { router.add(middleware: RateLimitMiddleware(clientRateLimit, audit: audit)) }
        if let clientMaxOpen {
            router.add(middleware: OpenRequestLimitMiddleware(maximum: clientMaxOpen, openRequests: openRequests, audit: audit))
        }
        // One for the server: every answer to an approximate client counts against the same interval.
        let approximateAnswers = ApproximateAnswers()
        // Each connection's pipeline tells it when the client stops sending: a `/location` waiting then is cancelled.
        let connections = ConnectionRequests { [engine] in engine.cancel($0) }
        LocationRoute(
            engine: engine, counters: counters, audit: audit, authenticator: authenticator, approximateAnswers: approximateAnswers,
            connections: connections
        ).register(on: router)
        UpdatesRoute(
            engine: engine, counters: counters, audit: audit, authenticator: authenticator, approximateAnswers: approximateAnswers,
            connections: connections)
            .register(on: router)
        GeofenceEventsRoute(registry: geofences, audit: audit, authenticator: authenticator, connections: connections).register(on: router)
        GeofenceRoutes(engine: engine, registry: geofences, audit: audit).register(on: router)
        ServiceRoutes(registry: registry, counters: counters, audit: audit).register(on: router)
        // Last: it wraps only what no route above takes.
        router.add(middleware: UnknownRouteMiddleware())
        return Application(
            router: router,
            server: .http1(
                configuration: .init(additionalChannelHandlers: [ConnectionInputWatcher(connections)], idleTimeout: idleConnectionTimeout)),
            configuration: configuration,
            onServerRunning: { channel in
                authenticator.listener.listening(on: channel)
                await onServerRunning(channel)
            }, logger: logger)
    }

    /// The application and the engine as one `ServiceGroup`, shutting down gracefully on
    /// `gracefulShutdownSignals`.
    ///
    /// A group shuts its services down in reverse order, each after the one before has returned. The
    /// engine comes last, so it goes first: every pending one-shot is answered at once with
    /// `shut_down` (503), every event stream ends with `shut_down`, the source stops. Only then does
    /// the HTTP server stop accepting and wait for its in-flight requests — which have all been
    /// answered by then. (In the other order, the server would wait for requests that wait for the
    /// engine: up to their full timeout.) Between the two, the geofence registry closes the
    /// `/geofences/events` streams, after the engine has ended every fence it monitored with `shut_down`.
    func serviceGroup(
        configuration: ApplicationConfiguration, logger: Logger, gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> ServiceGroup {
        let application = build(configuration: configuration, logger: logger, onServerRunning: onServerRunning)
        var group = ServiceGroupConfiguration(
            services: [
                .init(service: application, serviceName: "http"), .init(service: clients, serviceName: "clients"),
                .init(service: geofences, serviceName: "geofences"), .init(service: engine, serviceName: "engine"),
            ], gracefulShutdownSignals: gracefulShutdownSignals,
            logger: logger)
        // A client that never reads its response cannot hold the process: past this, the group is cancelled.
        group.maximumGracefulShutdownDuration = Self.maximumGracefulShutdownDuration
        return ServiceGroup(configuration: group)
    }

    /// How long a graceful shutdown may take before the remaining services are cancelled.
    static var maximumGracefulShutdownDuration: Duration { .seconds(10) }
}
