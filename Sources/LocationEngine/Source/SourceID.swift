/// Which of an engine's sources: its place in the list the engine was given, from 0.
public struct SourceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The place in the list.
    public let index: Int

    /// The source at `index`.
    @inlinable public init(_ index: Int) { self.index = index }

    /// The first source (an engine's only one, when it has one).
    public static let first = SourceID(0)

    @inlinable public static func < (lhs: SourceID, rhs: SourceID) -> Bool { lhs.index < rhs.index }

    public var description: String { "source \(index)" }
}
