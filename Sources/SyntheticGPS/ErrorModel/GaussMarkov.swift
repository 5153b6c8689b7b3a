/// A first-order Gauss–Markov process with unit stationary variance: exponentially correlated noise.
///
/// After an interval `dt` the value becomes `φ·x + √(1−φ²)·w` with `φ = exp(−dt/τ)` and `w` standard
/// normal. This is the exact discretisation of the continuous process for any `dt`, so the marginal
/// distribution stays N(0, 1) at every sample however irregular the sampling, and the autocorrelation
/// after a lag `t` is `exp(−t/τ)`. Scaling the value by a standard deviation σ(t) therefore gives an
/// error whose spread at every instant is exactly σ(t).
struct GaussMarkov: Sendable, Hashable {
    /// The current value, distributed N(0, 1).
    private(set) var value: Double
    /// The correlation time τ in seconds.
    let correlationTime: Double
    private var cachedInterval: Double = -1
    private var phi: Double = 0
    private var innovation: Double = 1

    /// A process with correlation time `correlationTime` seconds, started in its stationary distribution.
    init(correlationTime: Double, random: inout SeededGenerator) {
        self.correlationTime = correlationTime
        self.value = random.gaussian()
    }

    /// Advances the process by `dt` seconds.
    ///
    /// - Complexity: O(1); the exponential is only recomputed when `dt` changes.
    mutating func advance(by dt: Double, random: inout SeededGenerator) {
        guard dt > 0 else { return }
        if dt != cachedInterval {
            cachedInterval = dt
            phi = Math.exp(-dt / correlationTime)
            innovation = (1 - phi * phi).squareRoot()
        }
        value = phi * value + innovation * random.gaussian()
    }

    /// Replaces the value with a fresh independent draw: a jump that keeps the N(0, 1) distribution.
    mutating func redraw(random: inout SeededGenerator) {
        value = random.gaussian()
    }
}
