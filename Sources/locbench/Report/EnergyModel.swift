import LocationEngine

/// A documented per-mode power model for a GNSS receiver, to turn the source's mode timeline into an
/// energy estimate. Figures are typical of consumer receivers (continuous tracking at 1 Hz draws
/// ~100–150 mW; duty-cycled low-power modes a fraction of it); they are a model, not a measurement.
enum EnergyModel {
    /// Milliwatts drawn in each mode.
    static func milliwatts(_ mode: PowerMode) -> Double {
        switch mode {
        case .best: 120
        case .high: 90
        case .medium: 60
        case .low: 30
        case .lowest: 15
        }
    }

    /// Joules spent given nanoseconds per mode.
    static func joules(_ timeInModes: [PowerMode: Int64]) -> Double {
        timeInModes.reduce(0) { $0 + milliwatts($1.key) / 1000 * Double($1.value) / 1e9 }
    }

    /// Joules an always-on source in its best mode would spend over `seconds`.
    static func alwaysOnJoules(seconds: Double) -> Double { milliwatts(.best) / 1000 * seconds }
}
