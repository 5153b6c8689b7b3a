/// The core's monitored regions: the evaluator that decides them, and the regions of monitors that wait
/// for authorization (they join the evaluator when admitted, so a waiting monitor decides nothing).
struct Geofences: Sendable {
    var evaluator: RegionEvaluator
    /// Why the configuration was refused, if it was: every monitor then ends at once, rejected.
    let configurationError: GeofenceError?
    /// Regions of monitors not admitted yet.
    var waiting: [RequestID: (region: GeofenceRegion, options: GeofenceOptions)] = [:]

    init(configuration: GeofenceConfiguration) {
        do {
            evaluator = try RegionEvaluator(configuration: configuration)
            configurationError = nil
        } catch {
            evaluator = try! RegionEvaluator()  // the defaults are valid
            configurationError = error
        }
    }

    /// Forgets region `id`, waiting or monitored.
    mutating func remove(_ id: RequestID) {
        if waiting.removeValue(forKey: id) == nil { evaluator.remove(id) }
    }
}
