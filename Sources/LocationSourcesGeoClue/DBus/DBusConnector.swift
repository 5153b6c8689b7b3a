import CDBus
import Foundation
import NIOConcurrencyHelpers

/// A connection libdbus has opened (its socket connected, nothing said yet), owned by whoever holds it last:
/// closed when freed unless ``take()`` handed it on.
///
/// `@unchecked Sendable`: the pointer passes from the thread that opened it to the one that takes it and is
/// used by one thread at a time; freed untaken (its opener's caller gave up on it), it is only closed.
final class OpenedDBusConnection: @unchecked Sendable {
    private var pointer: OpaquePointer?

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The connection, now the caller's to close.
    func take() -> OpaquePointer? {
        defer { pointer = nil }
        return pointer
    }

    deinit {
        guard let pointer else { return }
        dbus_connection_close(pointer)
        dbus_connection_unref(pointer)
    }
}

/// Opens bus connections on a thread of its own, one attempt at a time, so that its caller can wait at most a
/// timeout and still hear a stop.
///
/// libdbus connects with a blocking `connect(2)` and no timeout. On a Unix socket that blocks for as long as
/// the bus's queue of connections is full (a stalled daemon that accepts nothing: each attempt to reach it
/// leaves one more connection in that queue), and a thread held there could not be stopped, nor the source's
/// `run()` end. An attempt its caller stopped waiting for goes on in its thread; the next ``poll(_:)`` waits for
/// that attempt rather than starting another, so at most one thread is ever blocked, and takes what it opened
/// when it was to the same address and has just finished (a connection left unauthenticated for long is one the
/// bus drops). What nobody takes is closed.
final class DBusConnector: Sendable {
    private enum Attempt {
        case connecting(address: String)
        case finished(address: String, Result<OpenedDBusConnection, DBusFailure>, at: ContinuousClock.Instant)
    }

    /// How long a finished attempt's outcome is taken: a caller still waiting for it polls at once, woken by
    /// its finish; one that polls later connects afresh.
    static let freshness = Duration.seconds(1)

    private let attempt = NIOLockedValueBox<Attempt?>(nil)
    /// Signalled when an attempt finishes.
    private let finished: WakeSignal

    /// A connector that signals `finished` whenever an attempt finishes.
    init(signalling finished: WakeSignal) { self.finished = finished }

    /// The outcome of connecting to `address`, or `nil` while the attempt (this one, or an earlier one still
    /// under way) has not finished: starts the attempt when none is under way.
    func poll(_ address: String) -> Result<OpenedDBusConnection, DBusFailure>? {
        let (starts, outcome) = attempt.withLockedValue { attempt -> (Bool, Result<OpenedDBusConnection, DBusFailure>?) in
            switch attempt {
            case .connecting:
                return (false, nil)
            case .finished(let reached, let outcome, let at) where reached == address && at.duration(to: .now) <= Self.freshness:
                attempt = nil
                return (false, outcome)
            case .finished, nil:
                // A finished attempt nobody waited for, or to another address: dropped (and closed).
                attempt = .connecting(address: address)
                return (true, nil)
            }
        }
        if starts {
            Thread.detachNewThread { [self] in
                let outcome = DBusConnection.open(address)
                attempt.withLockedValue { $0 = .finished(address: address, outcome, at: .now) }
                finished.signal()
            }
        }
        return outcome
    }
}
