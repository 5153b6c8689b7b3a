import Hummingbird
import LocationEngine
import Logging
import NIOCore
import Prometheus

/// The server around one engine: its routes, and the engine as a service of the application, so that
/// the application's `ServiceGroup` runs it and shuts it down after the HTTP server has stopped.
struct LocationServerApplication<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let registry: PrometheusCollectorRegistry
    let counters: ServerCounters

    /// The application, listening per `configuration`.
    func build(
        configuration: ApplicationConfiguration, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        LocationRoute(engine: engine, counters: counters).register(on: router)
        UpdatesRoute(engine: engine, counters: counters).register(on: router)
        ServiceRoutes(registry: registry, counters: counters).register(on: router)
        // Services stop in reverse order: the HTTP server (added by the application, last) first,
        // then the engine, which ends whatever is still pending with `.shutDown`.
        return Application(
            router: router, configuration: configuration, services: [engine], onServerRunning: onServerRunning, logger: logger)
    }
}
