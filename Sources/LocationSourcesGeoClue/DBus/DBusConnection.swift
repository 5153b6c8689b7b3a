import CDBus
import Foundation

/// A private connection to one bus through libdbus-1, used from one thread at a time.
///
/// Why libdbus and not sd-bus: libdbus is the reference implementation that every D-Bus daemon on Linux
/// ships with (its runtime, `libdbus-1-3`, is on every Debian system that has a bus), it does not pull
/// in systemd, and its blocking calls with a timeout and its explicit read/dispatch step fit a source
/// that owns one worker thread. No Swift package in the server ecosystem speaks D-Bus.
///
/// Calls block for at most their timeout. Signals that arrive meanwhile are queued and read with
/// ``nextSignal(waitingAtMost:orUntil:)``, which sleeps on the connection's socket until a message comes.
final class DBusConnection {
    /// A signal received, with its arguments.
    struct Signal: Sendable, Hashable {
        var sender: String
        var path: String
        var interface: String
        var member: String
        var arguments: [DBusValue]
    }

    private let connection: OpaquePointer
    /// The connection's socket, watched by ``nextMessage(waitingAtMost:orUntil:)``.
    private let socket: Int32
    /// Times a wait woke (see ``takeWakeups()``).
    private var wakeups = 0
    /// The unique name the bus gave this connection (`:1.42`).
    let uniqueName: String
    /// How long a message sent without waiting for an answer may wait to go out (the timeout the connection
    /// was made with).
    private let sendTimeout: Duration

    private static let threadsInitialised: Bool = { dbus_threads_init_default() != 0 }()

    /// The bus itself, as a peer: its name, object and interface.
    private static let bus = (name: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus")

    /// Connects to the bus at `address` (a D-Bus address: `unix:path=/run/dbus/system_bus_socket`) and
    /// says hello to it, waiting at most `timeout` for the authentication and the answer. The connecting itself
    /// blocks for as long as a stalled bus's queue of connections is full: a caller that must not block goes
    /// through a ``DBusConnector``.
    convenience init(address: String, timeout: Duration) throws(DBusFailure) {
        try self.init(try Self.open(address).get(), address: address, timeout: timeout)
    }

    /// Says hello on `opened`, a connection to the bus at `address`, waiting at most `timeout` for the
    /// authentication and the answer. (Not `dbus_bus_register`, which waits libdbus's default 25 s on a bus
    /// that accepts and then says nothing.)
    init(_ opened: OpenedDBusConnection, address: String, timeout: Duration) throws(DBusFailure) {
        guard let connection = opened.take() else {
            throw DBusFailure(name: DBusFailure.Name.disconnected, message: "the connection to \(address) was taken already")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        let hello: [DBusValue]
        do {
            try Self.authenticate(connection, address: address, timeout: timeout)
            hello = try Self.call(on: connection, Self.bus.name, Self.bus.path, Self.bus.interface, "Hello", timeout: timeout)
        } catch {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw error
        }
        guard case .string(let name)? = hello.first, !name.isEmpty, dbus_bus_set_unique_name(connection, name) != 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "the bus at \(address) answered Hello with \(hello)")
        }
        var socket: Int32 = -1
        guard dbus_connection_get_socket(connection, &socket) != 0, socket >= 0 else {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusFailure(name: DBusFailure.Name.disconnected, message: "the connection to \(address) has no socket to wait on")
        }
        self.connection = connection
        self.socket = socket
        uniqueName = name
        sendTimeout = timeout
    }

    /// Opens a private connection to the bus at `address`: its socket connected, nothing said yet.
    static func open(_ address: String) -> Result<OpenedDBusConnection, DBusFailure> {
        _ = threadsInitialised
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else { return .failure(failure(&error)) }
        return .success(OpenedDBusConnection(connection))
    }

    /// Runs the connection's authentication for at most `timeout`: libdbus authenticates inside the first
    /// blocking call, and there waits for the bus's answer without any limit, whatever the call's timeout.
    private static func authenticate(_ connection: OpaquePointer, address: String, timeout: Duration) throws(DBusFailure) {
        try readWrite(
            connection, while: { dbus_connection_get_is_authenticated($0) == 0 }, within: timeout,
            timedOut: "the bus at \(address) did not authenticate the connection within \(timeout)",
            closed: "the bus at \(address) closed the connection while authenticating it")
    }

    /// Reads and writes on `connection` while `pending` holds, for at most `timeout`: each round writes what the
    /// socket takes and reads what has come (queued for ``nextMessage(waitingAtMost:orUntil:)``), waiting at most
    /// the time left for either.
    /// - Throws: ``DBusFailure/Name/timeout`` saying `timedOut` when `pending` still holds at the end,
    ///   ``DBusFailure/Name/disconnected`` saying `closed` when the bus went away.
    private static func readWrite(
        _ connection: OpaquePointer, while pending: (OpaquePointer) -> Bool, within timeout: Duration, timedOut: @autoclosure () -> String,
        closed: @autoclosure () -> String
    ) throws(DBusFailure) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while pending(connection) {
            let left = deadline - clock.now
            guard left > .zero else { throw DBusFailure(name: DBusFailure.Name.timeout, message: timedOut()) }
            guard dbus_connection_read_write(connection, milliseconds(left)) != 0 else {
                throw DBusFailure(name: DBusFailure.Name.disconnected, message: closed())
            }
        }
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// The system bus's address: `DBUS_SYSTEM_BUS_ADDRESS` if set, else the standard socket.
    static var systemBusAddress: String {
        ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/var/run/dbus/system_bus_socket"
    }

    /// Whether the connection is still up.
    var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// Calls `member` of `interface` on the object at `path` of `destination` and waits at most `timeout`
    /// for the answer; returns its arguments.
    /// - Throws: the peer's or the bus's error, ``DBusFailure/Name/noReply`` when no answer came in time.
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration
    ) throws(DBusFailure) -> [DBusValue] {
        try Self.call(on: connection, destination, path, interface, member, arguments, timeout: timeout)
    }

    /// ``call(_:_:_:_:_:timeout:)`` on `connection`, before the connection is wrapped (its Hello).
    private static func call(
        on connection: OpaquePointer, _ destination: String, _ path: String, _ interface: String, _ member: String,
        _ arguments: [DBusValue] = [], timeout: Duration
    ) throws(DBusFailure) -> [DBusValue] {
        guard DBusMessageCoding.isValidCall(destination: destination, path: path, interface: interface, member: member),
            let message = dbus_message_new_method_call(destination, path, interface, member)
        else {
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "cannot call \(interface).\(member) on \(path) of \(destination)")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, milliseconds(timeout), &error) else {
            throw failure(&error)
        }
        defer { dbus_message_unref(reply) }
        return try DBusMessageCoding.arguments(of: reply)
    }

    /// Asks the bus to route signals matching `rule` (a match rule: `type='signal',interface='...'`) here,
    /// waiting at most `timeout` for its answer.
    func addMatch(_ rule: String, timeout: Duration) throws(DBusFailure) {
        _ = try call(Self.bus.name, Self.bus.path, Self.bus.interface, "AddMatch", [.string(rule)], timeout: timeout)
    }

    /// Asks the bus to stop routing signals matching `rule` (added before with ``addMatch(_:timeout:)``) here,
    /// without waiting for its answer: nothing follows from it, and a bus that does not answer must not hold a
    /// stop. (Closing the connection drops its rules anyway.)
    func removeMatch(_ rule: String) {
        dbus_bus_remove_match(connection, rule, nil)
    }

    /// A method call addressed to this connection, to answer with ``reply(to:_:)``.
    final class MethodCall {
        let path: String
        let interface: String
        let member: String
        let arguments: [DBusValue]
        fileprivate let message: OpaquePointer

        fileprivate init(_ message: OpaquePointer, arguments: [DBusValue]) {
            dbus_message_ref(message)
            self.message = message
            path = DBusConnection.string(dbus_message_get_path(message))
            interface = DBusConnection.string(dbus_message_get_interface(message))
            member = DBusConnection.string(dbus_message_get_member(message))
            self.arguments = arguments
        }

        deinit { dbus_message_unref(message) }
    }

    /// A message received: a signal, or a method call to answer.
    enum Incoming {
        case signal(Signal)
        case call(MethodCall)
    }

    /// The next signal received, waiting at most `timeout` for one (`nil`: no limit) or until `wake` is signalled;
    /// `nil` when none came before. Method calls addressed to this connection are answered as unknown.
    /// - Throws: ``DBusFailure/Name/disconnected`` when the bus went away.
    func nextSignal(waitingAtMost timeout: Duration?, orUntil wake: WakeSignal? = nil) throws(DBusFailure) -> Signal? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let left = deadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) }
            switch try nextMessage(waitingAtMost: left, orUntil: wake) {
            case .signal(let signal)?: return signal
            case .call(let call)?: try? replyError(to: call, DBusFailure.Name.unknownMethod, "this client exports no objects")
            case nil: return nil
            }
        }
    }

    /// The next signal or method call received, waiting at most `timeout` for one (`nil`: no limit) or until
    /// `wake` is signalled; `nil` when none came before. The thread sleeps in `poll(2)` on the bus's socket and
    /// `wake` meanwhile: it wakes only when either has news. Replies to calls made with ``send(_:_:_:_:_:)`` and
    /// signals whose arguments cannot be read are dropped.
    /// - Throws: ``DBusFailure/Name/disconnected`` when the bus went away.
    func nextMessage(waitingAtMost timeout: Duration?, orUntil wake: WakeSignal? = nil) throws(DBusFailure) -> Incoming? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            // A blocking call may have read messages into libdbus's queue: those come first.
            while let message = dbus_connection_pop_message(connection) {
                defer { dbus_message_unref(message) }
                if let incoming = try incoming(message) { return incoming }
            }
            let left = deadline.map { ContinuousClock.now.duration(to: $0) }
            if let left, left <= .zero { return nil }
            // A negative descriptor is ignored by poll(2): without a wake-up only the socket is watched.
            var entries = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0), pollfd(fd: wake?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = WakeSignal.waitForEvents(&entries, count: entries.count, timeout: left)
            wakeups += 1
            if ready > 0, entries[1].revents != 0 {
                wake?.drain()
                return nil
            }
            if ready > 0, entries[0].revents != 0 {
                // Reads what the socket has without blocking; the messages it completes are queued above.
                guard dbus_connection_read_write(connection, 0) != 0 else {
                    throw DBusFailure(name: DBusFailure.Name.disconnected, message: "the bus closed the connection")
                }
            }
        }
    }

    /// Takes the number of times a wait of ``nextMessage(waitingAtMost:orUntil:)`` woke since the last take.
    func takeWakeups() -> Int {
        defer { wakeups = 0 }
        return wakeups
    }

    /// Answers `call` with `arguments`.
    func reply(to call: MethodCall, _ arguments: [DBusValue]) throws(DBusFailure) {
        guard let reply = dbus_message_new_method_return(call.message) else { throw Self.noMemory }
        defer { dbus_message_unref(reply) }
        try DBusMessageCoding.append(arguments, to: reply)
        try send(reply)
    }

    /// Answers `call` with the error `name` saying `message`.
    func replyError(to call: MethodCall, _ name: String, _ message: String) throws(DBusFailure) {
        guard dbus_message_get_no_reply(call.message) == 0 else { return }
        guard let reply = dbus_message_new_error(call.message, name, message) else { throw Self.noMemory }
        defer { dbus_message_unref(reply) }
        try send(reply)
    }

    /// Calls `member` without waiting for the answer (it is dropped when it comes).
    func send(_ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws(DBusFailure) {
        guard DBusMessageCoding.isValidCall(destination: destination, path: path, interface: interface, member: member),
            let message = dbus_message_new_method_call(destination, path, interface, member)
        else {
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "cannot call \(interface).\(member) on \(path) of \(destination)")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        try send(message)
    }

    /// Emits the signal `member` of `interface` from the object at `path` of this connection, to whoever the bus
    /// routes it to (a peer that serves objects: a stand-in for a service).
    func emitSignal(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws(DBusFailure) {
        guard DBusMessageCoding.isValidSignal(path: path, interface: interface, member: member),
            let message = dbus_message_new_signal(path, interface, member)
        else {
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "cannot emit \(interface).\(member) from \(path)")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        try send(message)
    }

    /// Queues `message` and writes out the queue, waiting at most the connection's timeout for the bus to take it.
    private func send(_ message: OpaquePointer) throws(DBusFailure) {
        guard dbus_connection_send(connection, message, nil) != 0 else { throw Self.noMemory }
        try writeOut(within: sendTimeout)
    }

    /// Writes out what libdbus has queued to send, for at most `timeout`. Not `dbus_connection_flush`, which
    /// waits without a limit while a bus that stopped reading leaves the socket's buffer full. What is still
    /// queued then stays queued, and goes out with a later write.
    /// - Throws: ``DBusFailure/Name/timeout`` when the queue did not go out in time, ``DBusFailure/Name/disconnected``
    ///   when the bus went away.
    private func writeOut(within timeout: Duration) throws(DBusFailure) {
        try Self.readWrite(
            connection, while: { dbus_connection_has_messages_to_send($0) != 0 }, within: timeout,
            timedOut: "the bus took no message for \(timeout): it has stopped reading", closed: "the bus closed the connection")
    }

    private func incoming(_ message: OpaquePointer) throws(DBusFailure) -> Incoming? {
        switch dbus_message_get_type(message) {
        case DBUS_MESSAGE_TYPE_SIGNAL:
            let interface = Self.string(dbus_message_get_interface(message))
            let member = Self.string(dbus_message_get_member(message))
            if interface == "org.freedesktop.DBus.Local" && member == "Disconnected" {
                throw DBusFailure(name: DBusFailure.Name.disconnected, message: "the bus closed the connection")
            }
            // A signal whose arguments cannot be read is dropped, not fatal: the peer sent garbage.
            guard let arguments = try? DBusMessageCoding.arguments(of: message) else { return nil }
            return .signal(Signal(
                sender: Self.string(dbus_message_get_sender(message)), path: Self.string(dbus_message_get_path(message)),
                interface: interface, member: member, arguments: arguments))
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            guard let arguments = try? DBusMessageCoding.arguments(of: message) else {
                if dbus_message_get_no_reply(message) == 0,
                    let reply = dbus_message_new_error(message, "org.freedesktop.DBus.Error.InvalidArgs", "unreadable arguments")
                {
                    dbus_connection_send(connection, reply, nil)
                    dbus_message_unref(reply)
                }
                return nil
            }
            return .call(MethodCall(message, arguments: arguments))
        default:
            return nil
        }
    }

    fileprivate static func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    private static var noMemory: DBusFailure { DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus ran out of memory") }

    /// A call's timeout in whole milliseconds for libdbus, at least 1 (libdbus reads 0 as no wait at all).
    private static func milliseconds(_ duration: Duration) -> Int32 { max(1, WakeSignal.milliseconds(duration)) }

    private static func failure(_ error: inout CDBus.DBusError) -> DBusFailure {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "libdbus failed without saying why") }
        return DBusFailure(name: String(cString: error.name), message: error.message.map { String(cString: $0) } ?? "")
    }
}
