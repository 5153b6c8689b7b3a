/// What a pending one-shot asked for. The common request — a standard level, no purpose key, no
/// timeout waiting for access — is a level inline; anything rarer is one shared, immutable record, so
/// that a pending one-shot stays small and all its data lives in one place.
enum OneShotWish: Sendable {
    /// A standard level and nothing else.
    case level(AccuracyLevel)
    /// A custom accuracy, a purpose key or a timeout that waits for access.
    case detailed(OneShotDetails)

    /// Builds the wish for these options: inline when it can be.
    init(accuracy: LocationAccuracy, purposeKey: String?, timeoutAwaitingAccess: Duration?) {
        if let level = accuracy.level, purposeKey == nil, timeoutAwaitingAccess == nil {
            self = .level(level)
        } else {
            self = .detailed(OneShotDetails(accuracy: accuracy, purposeKey: purposeKey, timeoutAwaitingAccess: timeoutAwaitingAccess))
        }
    }

    /// The same wish with `timeout` as the timeout that waits for access (`nil`: none waits).
    func awaitingAccess(_ timeout: Duration?) -> OneShotWish {
        OneShotWish(accuracy: accuracy, purposeKey: purposeKey, timeoutAwaitingAccess: timeout)
    }

    /// The accuracy asked for.
    var accuracy: LocationAccuracy {
        switch self {
        case .level(let level): LocationAccuracy(level)
        case .detailed(let details): details.accuracy
        }
    }

    /// The power mode the accuracy asks for, without rebuilding it for a standard level.
    @inline(__always)
    var powerMode: PowerMode {
        switch self {
        case .level(let level): level.requiredPowerMode
        case .detailed(let details): details.accuracy.requiredPowerMode
        }
    }

    /// The declared temporary-full-accuracy purpose key it names, if any.
    var purposeKey: String? {
        if case .detailed(let details) = self { return details.purposeKey }
        return nil
    }

    /// The timeout that starts when access is answered (authorization, or temporary full accuracy), if
    /// one waits for that: once started it runs among the requests' deadlines, and the wish no longer holds it.
    var timeoutAwaitingAccess: Duration? {
        if case .detailed(let details) = self { return details.timeoutAwaitingAccess }
        return nil
    }
}

/// The rarer options of a one-shot (see ``OneShotWish``).
final class OneShotDetails: Sendable {
    let accuracy: LocationAccuracy
    let purposeKey: String?
    let timeoutAwaitingAccess: Duration?

    init(accuracy: LocationAccuracy, purposeKey: String?, timeoutAwaitingAccess: Duration?) {
        self.accuracy = accuracy
        self.purposeKey = purposeKey
        self.timeoutAwaitingAccess = timeoutAwaitingAccess
    }
}
