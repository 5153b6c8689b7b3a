import Foundation
import NIOConcurrencyHelpers
@testable import LocationSourcesGeoClue

/// A GeoClue agent that answers as the test says (`org.freedesktop.GeoClue2.Agent` on its own connection,
/// registered with `Manager.AddAgent` under the demo agent's whitelisted ID): geolocation on for the user
/// (`MaxAccuracyLevel` exact) or off (0: GeoClue then refuses every start, as when a user turns location
/// services off in a desktop's privacy settings), and its answer to `AuthorizeApp` (which GeoClue asks
/// only of sandboxed applications). It runs on a thread of its own until stopped.
final class ScriptedGeoClueAgent: Sendable {
    private let stopped = NIOLockedValueBox(false)
    /// The applications GeoClue asked about, in order.
    let asked = NIOLockedValueBox<[String]>([])

    /// Registers with GeoClue on the bus at `address`, with geolocation on for the user if `authorize`,
    /// and answers `authorize` to every `AuthorizeApp`.
    init(address: String, authorize: Bool) throws {
        let connection = try DBusConnection(address: address, timeout: .seconds(5))
        // Not awaited: GeoClue reads the agent's properties before it answers AddAgent.
        try connection.send(
            GeoClueSession.service, "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.GeoClue2.Manager", "AddAgent",
            [.string("geoclue-demo-agent")])
        let box = UnsafeTransfer(connection)
        let thread = Thread { [self] in serve(box.value, authorize: authorize) }
        thread.start()
    }

    func stop() { stopped.withLockedValue { $0 = true } }

    private func serve(_ connection: DBusConnection, authorize: Bool) {
        let maximum = DBusValue.uint32(authorize ? GeoClueAccuracyLevel.exact.rawValue : GeoClueAccuracyLevel.none.rawValue)
        while !stopped.withLockedValue({ $0 }) {
            guard case .call(let call)? = try? connection.nextMessage(waitingAtMost: .milliseconds(20)) else { continue }
            switch (call.interface, call.member) {
            case ("org.freedesktop.DBus.Properties", "GetAll"):
                try? connection.reply(to: call, [.array([.dictionaryEntry(.string("MaxAccuracyLevel"), .variant(maximum))])])
            case ("org.freedesktop.DBus.Properties", "Get"):
                try? connection.reply(to: call, [.variant(maximum)])
            case ("org.freedesktop.GeoClue2.Agent", "AuthorizeApp"):
                asked.withLockedValue { $0.append(call.arguments.first?.text ?? "") }
                let level = call.arguments.count > 1 ? call.arguments[1] : maximum
                try? connection.reply(to: call, [.boolean(authorize), level])
            default:
                try? connection.replyError(to: call, DBusFailure.Name.unknownMethod, "\(call.interface).\(call.member)")
            }
        }
    }
}

/// Moves a value confined to one thread to the thread that will own it from then on.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
