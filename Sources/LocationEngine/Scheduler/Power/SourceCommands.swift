/// What the sources must do after one call into the power planner: a command for each source that must
/// change, in source order, returned by every call that can command a source.
///
/// Most calls command one source or none — every request's way through the core, whatever how many
/// sources there are — so one command is held inline and only two or more in an array: returning none or one
/// copies a few bytes and allocates nothing. Hand-written because no standard collection keeps a first
/// element inline.
struct SourceCommands: Sendable {
    /// A command for one source.
    typealias Element = (source: SourceID, command: PowerPlanner.Command)

    private enum Storage: Sendable {
        case none
        case one(SourceID, PowerPlanner.Command)
        case several([Element])
    }

    private var storage = Storage.none

    /// No command.
    init() {}

    /// Adds `command` for `source`, after those already held (sources are commanded in source order).
    /// - Complexity: O(1) amortised.
    mutating func append(_ command: PowerPlanner.Command, for source: SourceID) {
        switch storage {
        case .none: storage = .one(source, command)
        case .one(let first, let firstCommand): storage = .several([(first, firstCommand), (source, command)])
        case .several(var commands):
            storage = .none  // the array alone holds its buffer: appending does not copy it
            commands.append((source, command))
            storage = .several(commands)
        }
    }

    /// Calls `body` with each command, in order, without making an iterator.
    @inline(__always)
    func forEach(_ body: (Element) throws -> Void) rethrows {
        switch storage {
        case .none: break
        case .one(let source, let command): try body((source, command))
        case .several(let commands): for command in commands { try body(command) }
        }
    }
}
