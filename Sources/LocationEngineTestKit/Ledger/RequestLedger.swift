import LocationEngine

/// What a request asked for, as a ``RequestLedger`` checks its endings against it.
public enum ExpectedRequest: Sendable, Hashable {
    /// A one-shot request for `accuracy`, ending by `timeout` after submission if it has one.
    case oneShot(accuracy: LocationAccuracy, timeout: Duration?)
    /// A subscription with these options.
    case subscription(SubscriptionOptions)
}

/// Tells a ``RequestLedger`` what each request asked for. A load generator that plans its requests
/// answers from its plan without storing anything per request; a test can keep a table.
public protocol RequestExpectations {
    /// What the request with this ID asked for, or `nil` when the owner does not know (yet).
    func expectation(of id: RequestID) -> ExpectedRequest?
}

/// What requests asked for, recorded as they are made: the expectations of a test that submits
/// requests as it goes (IDs are known only once a request is made).
public struct ExpectationTable: RequestExpectations, Sendable {
    private var asked: [RequestID: ExpectedRequest] = [:]

    /// An empty table.
    public init() {}

    /// Records what the request `id` asked for.
    public mutating func record(_ id: RequestID, _ expected: ExpectedRequest) { asked[id] = expected }

    /// What the request asked for, if recorded.
    public func expectation(of id: RequestID) -> ExpectedRequest? { asked[id] }
}

/// Checks the engine's promises about endings while results arrive: every request ends exactly once
/// or is cancelled; nothing reaches a request after its end; a success satisfies the accuracy asked
/// for; a timeout comes no earlier than its deadline; a force-completion or an authorization ending
/// comes only when one was due; an update passes its subscription's filters; under reduced accuracy
/// nothing precise is delivered. ``finish(engineStatistics:)`` then checks that what was delivered
/// agrees with the engine's own counters.
///
/// A ledger follows the requests of one engine. They are identified by their `RequestID` (the engine
/// numbers them from 1 in submission order) and kept as 32-byte records in one array indexed by that
/// number, so that a million requests cost 32 MB; an ID of another engine is a violation. The ledger
/// takes no lock: its owner serialises access (handlers run on the engine's executor while a driver
/// submits from elsewhere).
public struct RequestLedger<Expectations: RequestExpectations> {
    /// How a request ended.
    public typealias Outcome = LedgerRecord.Outcome
    /// What the owner did to a request.
    public typealias Flags = LedgerRecord.Flags
    /// One request's history.
    public typealias Record = LedgerRecord
    /// What the ledger counted.
    public typealias Summary = LedgerSummary

    /// How many violations are kept in full.
    public static var violationsKept: Int { 20 }

    /// Where the ledger learns what each request asked for (an ``ExpectationTable`` is filled here as
    /// requests are made).
    public var expectations: Expectations
    /// Every request's record, at index `n - 1` for request number `n` of the engine.
    public internal(set) var records: [Record]
    /// The first ``violationsKept`` violations in full.
    public internal(set) var violations: [String] = []
    /// Every violation found so far.
    public internal(set) var violationCount = 0
    /// Deliveries checked for coarseness under reduced accuracy (so a run can show the check ran).
    public internal(set) var coarseDeliveriesChecked = 0
    var counts = [Int](repeating: 0, count: Outcome.allCases.count)
    var subscriptionUpdates = 0
    /// Whether access is granted now (no request may end unauthorized) and whether it is reduced
    /// (every delivery must then be coarse).
    var authorized: Bool
    var reducedAccuracy: Bool
    /// The engine whose requests the ledger follows (``RequestID/engine``), from the first ID it was given.
    var engine: UInt64?
    let coarseness = ReducedAccuracyPolicy()

    /// A ledger for requests whose expectations `expectations` gives; `capacity` IDs are reserved
    /// up front (more are added as IDs appear), and `authorization` is the engine's picture at start.
    public init(expectations: Expectations, capacity: Int = 0, authorization: AuthorizationState = .authorizedAlways) {
        self.expectations = expectations
        self.records = Array(repeating: Record(), count: capacity)
        self.authorized = authorization.isAuthorized
        self.reducedAccuracy = authorization.isAuthorized && authorization.accuracy == .reduced
    }

    /// The record of `id`, made on first use; `nil` (and a violation) for an ID the engine could not have
    /// given yet (number 0, or far beyond every one recorded so far) or could never give (another engine's).
    mutating func recordIndex(_ id: RequestID) -> Int? {
        let limit = max(2 * records.count, 1 << 20)
        guard id.sequence >= 1, id.sequence <= UInt64(limit) else {
            violation("an ID no request could have: \(id)")
            return nil
        }
        if let engine, engine != id.engine {
            violation("an ID of another engine: \(id)")
            return nil
        }
        engine = id.engine
        let index = Int(id.sequence - 1)
        if index >= records.count { records.append(contentsOf: repeatElement(Record(), count: index + 1 - records.count)) }
        return index
    }

    // MARK: What the owner did

    /// The owner submitted `id` at `time`. It may already have ended (delivered before the owner
    /// learnt its ID); it keeps what it received.
    public mutating func submitted(_ id: RequestID, at time: Int64) {
        guard let index = recordIndex(id) else { return }
        records[index].submittedAt = time
        records[index].flags.insert(.submitted)
    }

    /// The owner asked for `id` to be cancelled or force-completed at `time`; the request may not be
    /// recorded as submitted yet (its submission may be racing) or may never have existed.
    public mutating func issued(_ flag: Flags, for id: RequestID, at time: Int64) {
        guard let index = recordIndex(id) else { return }
        if flag.contains(.cancelIssued) && !records[index].flags.contains(.cancelIssued) { records[index].cancelledAt = time }
        records[index].flags.formUnion(flag)
    }

    /// The engine's authorization picture changed (its change callback, which runs in order with
    /// deliveries).
    public mutating func authorizationChanged(_ state: AuthorizationState) {
        authorized = state.isAuthorized
        reducedAccuracy = state.isAuthorized && state.accuracy == .reduced
    }

    /// Records a violation the owner found itself.
    public mutating func violation(_ message: String) {
        violationCount += 1
        if violations.count < Self.violationsKept { violations.append(message) }
    }
}

/// One request's history; times are nanoseconds on the owner's timeline.
public struct LedgerRecord: Sendable {
    /// What became of one request, as the ledger saw it.
    public enum Outcome: UInt8, Sendable, CaseIterable {
        /// Not ended (yet).
        case pending
        /// A one-shot that succeeded.
        case succeeded
        /// A one-shot that timed out.
        case timedOut
        /// A one-shot that was force-completed.
        case forceCompleted
        /// A one-shot that ended with an error, a rejection or at shutdown.
        case failed
        /// A one-shot that ended for want of authorization.
        case unauthorized
        /// A one-shot that ended because full accuracy was not granted.
        case accuracyReduced
        /// A subscription's end (any reason).
        case ended
    }

    /// What the owner did to a request.
    public struct Flags: OptionSet, Sendable {
        /// The bits.
        public let rawValue: UInt8
        /// Flags from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// The owner submitted it.
        public static let submitted = Flags(rawValue: 1)
        /// The owner asked for it to be cancelled.
        public static let cancelIssued = Flags(rawValue: 2)
        /// The owner asked for it to be force-completed.
        public static let forceCompleteIssued = Flags(rawValue: 4)
    }

    /// When the owner submitted it.
    public internal(set) var submittedAt: Int64 = 0
    /// When its (latest) ending was delivered.
    public internal(set) var endedAt: Int64 = 0
    /// When a cancel was first issued for it.
    public internal(set) var cancelledAt: Int64 = 0
    /// Updates (locations and headings) it received.
    public internal(set) var updates: Int32 = 0
    /// How many final deliveries it received (1 when all is well).
    public internal(set) var ends: UInt8 = 0
    /// What the owner did to it.
    public internal(set) var flags: Flags = []
    /// How it ended, as far as the ledger saw.
    public internal(set) var outcome: Outcome = .pending
}

/// What the ledger counted, and the first violations in full.
public struct LedgerSummary: Sendable {
    /// The first ``RequestLedger/violationsKept`` violations, each with the request's history.
    public var violations: [String]
    /// Every violation, including those not kept in full.
    public var violationCount: Int
    /// Final deliveries by outcome (subscriptions' ends as ``LedgerRecord/Outcome/ended``).
    public var outcomes: [LedgerRecord.Outcome: Int]
    /// Requests submitted that never ended (each cancelled).
    public var cancelled: Int
    /// Updates delivered to subscriptions.
    public var subscriptionUpdates: Int
}

extension RequestLedger: Sendable where Expectations: Sendable {}
