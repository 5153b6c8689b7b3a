/// The core's monitored regions: the evaluator that decides them, the regions of monitors that wait
/// for authorization (they join the evaluator when admitted, so a waiting monitor decides nothing), and
/// the monitors' one share of the power demand (see <doc:Geofences>).
struct Geofences: Sendable {
    var evaluator: RegionEvaluator
    /// Why the configuration was refused, if it was: every monitor then ends at once, rejected.
    let configurationError: GeofenceError?
    /// Regions of monitors not admitted yet.
    var waiting: [RequestID: (region: GeofenceRegion, options: GeofenceOptions)] = [:]
    /// While the monitors let the source sleep: when they demand it again (no boundary can be reached
    /// before a fix taken then).
    var wakeAt: EngineInstant?
    /// Whether the monitors' share of the demand is in the power policy.
    var isDemanding = false
    /// Since when the monitors let the source sleep, while they do.
    var asleepSince: EngineInstant?
    /// Sleeps the monitors let the source take, and their total length up to the last one's end.
    var sleeps = 0
    var sleptTime: Duration = .zero

    /// What the monitors demand of the source while it must run for them: their best, as a standard
    /// subscription without an accuracy filter.
    static let demandedMode = PowerMode.best

    init(configuration: GeofenceConfiguration) {
        do {
            evaluator = try RegionEvaluator(configuration: configuration)
            configurationError = nil
        } catch {
            evaluator = try! RegionEvaluator()  // the defaults are valid
            configurationError = error
        }
    }

    /// The time the monitors have let the source sleep, up to `now`.
    func sleepTime(at now: EngineInstant) -> Duration {
        sleptTime + (asleepSince.map { max(.zero, now - $0) } ?? .zero)
    }

    /// Forgets region `id`, waiting or monitored.
    mutating func remove(_ id: RequestID) {
        if waiting.removeValue(forKey: id) == nil { evaluator.remove(id) }
    }
}
