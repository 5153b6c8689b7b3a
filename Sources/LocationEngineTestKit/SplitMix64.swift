/// A small seedable random number generator (SplitMix64), for reproducible randomized tests and
/// workloads: the same seed gives the same sequence on every platform. Written here because the
/// standard library has no seedable generator.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator from `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<upper` (`upper` must be positive).
    public mutating func int(_ upper: Int) -> Int { Int(next(upperBound: UInt64(upper))) }

    /// True with probability 1/`n`.
    public mutating func oneIn(_ n: Int) -> Bool { int(n) == 0 }
}
