import LocationEngine
import Logging

/// How a source that reads a ``ReconnectingLink`` tells the engine, its metrics and its log that the
/// link is down: a lost link is a transient error (the link retries), a link given up is a fatal one.
/// The gpsd and NMEA sources differ only in wording.
struct LinkTroubleReport: Sendable {
    /// How one kind of source words link trouble.
    struct Wording: Sendable {
        /// The prefix of its error codes.
        var codePrefix: String
        /// What the log calls the link.
        var linkName: String
        /// What the link does after a loss.
        var retrying: String
        /// Says that the endpoint could not be used, before the endpoint's name.
        var lost: String
        /// Says that the endpoint could not be used after many attempts, before the endpoint's name.
        var unreachable: String

        static let gpsd = Wording(
            codePrefix: "gpsd", linkName: "gpsd connection", retrying: "reconnecting", lost: "no connection to", unreachable: "cannot reach")
        static let nmeaStream = Wording(
            codePrefix: "nmea", linkName: "NMEA stream", retrying: "reopening", lost: "no data from", unreachable: "cannot read")
    }

    var wording: Wording
    /// The endpoint as the user named it.
    var endpoint: String
    /// What the user can check when the link is given up.
    var hint: String
    var logger: Logger
    var metrics: SourceMetrics

    /// The link was lost; it is being retried.
    func disconnected(_ failure: ConnectionStateMachine.Failure, tell sink: SourceEventSink?) {
        metrics.disconnections.increment()
        logger.notice("\(wording.linkName) down; \(wording.retrying)", metadata: ["reason": "\(failure.summary)"])
        sink?.transientError(
            SourceError(
                code: "\(wording.codePrefix).disconnected",
                message: "\(wording.lost) \(endpoint) (\(failure.summary)); \(wording.retrying)"))
    }

    /// The link kept failing past the reconnect policy's limit: the source can give no more fixes.
    func gaveUp(failures: Int, lastFailure: ConnectionStateMachine.Failure, tell sink: SourceEventSink?) {
        let error = SourceError(
            code: "\(wording.codePrefix).unreachable",
            message: "\(wording.unreachable) \(endpoint) after \(failures) attempts (last: \(lastFailure.summary)); \(hint)")
        logger.error("giving up on the \(wording.linkName)", metadata: ["error": "\(error.message)"])
        sink?.fatalError(error)
    }
}
