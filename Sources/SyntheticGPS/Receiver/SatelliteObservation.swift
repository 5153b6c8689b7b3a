/// One satellite as the receiver sees it.
public struct SatelliteObservation: Sendable, Hashable {
    /// The satellite's PRN.
    public var prn: Int
    /// Elevation above the horizon in degrees.
    public var elevation: Double
    /// Azimuth in degrees clockwise from true north, `0 ..< 360`.
    public var azimuth: Double
    /// Carrier-to-noise density in dB-Hz (`0` when tracked but not locked).
    public var snr: Double
    /// Whether the satellite is used in the fix.
    public var used: Bool

    /// Creates an observation.
    public init(prn: Int, elevation: Double, azimuth: Double, snr: Double, used: Bool) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}

/// Dilutions of precision computed from the geometry of the satellites used in a fix.
public struct DilutionOfPrecision: Sendable, Hashable {
    /// Horizontal DOP.
    public var horizontal: Double
    /// Vertical DOP.
    public var vertical: Double
    /// Position (3D) DOP: `√(HDOP² + VDOP²)`.
    public var position: Double

    /// Creates a DOP triple.
    public init(horizontal: Double, vertical: Double, position: Double) {
        self.horizontal = horizontal
        self.vertical = vertical
        self.position = position
    }

    /// The DOPs of `satellites` (only those marked used count), or `nil` with fewer than four or a
    /// degenerate geometry.
    ///
    /// Builds the normal matrix `GᵀG` of the unit line-of-sight rows `[−cos e sin a, −cos e cos a, −sin e, 1]`
    /// and inverts it; HDOP is `√(Q_EE + Q_NN)`, VDOP `√Q_UU`.
    /// - Complexity: O(n) in the number of satellites, plus a constant 4×4 inversion.
    public init?(satellites: [SatelliteObservation]) {
        var normal = [Double](repeating: 0, count: 16)
        var count = 0
        for satellite in satellites where satellite.used {
            let e = satellite.elevation * Math.radians
            let a = satellite.azimuth * Math.radians
            let row = [-Math.cos(e) * Math.sin(a), -Math.cos(e) * Math.cos(a), -Math.sin(e), 1]
            for i in 0..<4 {
                for j in 0..<4 { normal[i * 4 + j] += row[i] * row[j] }
            }
            count += 1
        }
        guard count >= 4, let q = Self.inverse(normal) else { return nil }
        let qEE = q[0], qNN = q[5], qUU = q[10]
        guard qEE > 0, qNN > 0, qUU > 0 else { return nil }
        horizontal = (qEE + qNN).squareRoot()
        vertical = qUU.squareRoot()
        position = (qEE + qNN + qUU).squareRoot()
    }

    /// Gauss–Jordan inversion of a 4×4 matrix with partial pivoting; `nil` when singular.
    private static func inverse(_ matrix: [Double]) -> [Double]? {
        var m = matrix
        var inv = [Double](repeating: 0, count: 16)
        for i in 0..<4 { inv[i * 4 + i] = 1 }
        for column in 0..<4 {
            var pivot = column
            for row in column + 1..<4 where abs(m[row * 4 + column]) > abs(m[pivot * 4 + column]) { pivot = row }
            guard abs(m[pivot * 4 + column]) > 1e-12 else { return nil }
            if pivot != column {
                for k in 0..<4 {
                    m.swapAt(pivot * 4 + k, column * 4 + k)
                    inv.swapAt(pivot * 4 + k, column * 4 + k)
                }
            }
            let scale = 1 / m[column * 4 + column]
            for k in 0..<4 {
                m[column * 4 + k] *= scale
                inv[column * 4 + k] *= scale
            }
            for row in 0..<4 where row != column {
                let factor = m[row * 4 + column]
                guard factor != 0 else { continue }
                for k in 0..<4 {
                    m[row * 4 + k] -= factor * m[column * 4 + k]
                    inv[row * 4 + k] -= factor * inv[column * 4 + k]
                }
            }
        }
        return inv
    }
}
