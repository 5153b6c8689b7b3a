import LocationEngine
import TestSupport

/// What a source reported, in order, for a test to await conditions on.
struct RecordedEvents: Sendable {
    var fixes: [Location] = []
    var transientErrors: [SourceError] = []
    var fatalErrors: [SourceError] = []

    static func sink(into observed: Observed<RecordedEvents>) -> SourceEventSink {
        SourceEventSink { event in
            observed.update { events in
                switch event {
                case .location(let location, _): events.fixes.append(location)
                case .transientError(let error): events.transientErrors.append(error)
                case .fatalError(let error): events.fatalErrors.append(error)
                case .receiverState, .receiverTracking: break
                }
            }
        }
    }
}
