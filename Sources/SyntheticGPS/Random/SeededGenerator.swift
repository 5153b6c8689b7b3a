/// A small, fast, seedable pseudo-random generator (xoshiro256**, seeded through SplitMix64).
///
/// The standard library's `SystemRandomNumberGenerator` cannot be seeded, and every scenario must be
/// reproducible bit for bit from its seed, on every platform, so the receiver carries its own generator.
/// xoshiro256** (Blackman & Vigna, 2018) passes BigCrush, needs four words of state and a handful of
/// shifts per draw; SplitMix64 expands the 64-bit seed into that state as its authors recommend.
/// It is not cryptographically secure and must not be used for secrets.
public struct SeededGenerator: RandomNumberGenerator, Sendable, Hashable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64
    /// The second value of the last Box–Muller pair, not yet handed out.
    @usableFromInline var spareGaussian: Double?

    /// Creates a generator whose whole output is determined by `seed`.
    public init(seed: UInt64) {
        var splitMix = seed
        s0 = Self.splitMix64(&splitMix)
        s1 = Self.splitMix64(&splitMix)
        s2 = Self.splitMix64(&splitMix)
        s3 = Self.splitMix64(&splitMix)
        spareGaussian = nil
    }

    /// A generator for an independent stream, derived from this generator's seed and a `stream` label,
    /// so that adding draws to one concern (say, the route) does not shift another (the noise).
    public func derived(stream: UInt64) -> SeededGenerator {
        var mix = s0 ^ (stream &* 0x9E37_79B9_7F4A_7C15)
        return SeededGenerator(seed: Self.splitMix64(&mix) ^ s3)
    }

    /// The next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        nextValue()
    }

    @usableFromInline
    mutating func nextValue() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// A uniform value in `0 ..< 1` with 53 random bits.
    @inlinable
    public mutating func nextUnit() -> Double {
        Double(nextValue() >> 11) * 0x1.0p-53
    }

    /// A uniform value in `range`.
    @inlinable
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// A standard normal deviate (mean 0, standard deviation 1), by the Box–Muller transform.
    ///
    /// Each transform yields two independent deviates; the second is kept for the next call, which
    /// halves the cost (one logarithm, one square root, one sine and one cosine per pair).
    @inlinable
    public mutating func gaussian() -> Double {
        if let spare = spareGaussian {
            spareGaussian = nil
            return spare
        }
        // 1 - u is in (0, 1], so the logarithm is finite.
        let radius = (-2 * Math.log(1 - nextUnit())).squareRoot()
        let angle = 2 * Double.pi * nextUnit()
        spareGaussian = radius * Math.sin(angle)
        return radius * Math.cos(angle)
    }

    /// An exponentially distributed waiting time with the given `mean`.
    @inlinable
    public mutating func exponential(mean: Double) -> Double {
        -mean * Math.log(1 - nextUnit())
    }

    /// `true` with probability `p`.
    @inlinable
    public mutating func chance(_ p: Double) -> Bool {
        nextUnit() < p
    }

    private static func splitMix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@inlinable @inline(__always)
func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 - k))
}
