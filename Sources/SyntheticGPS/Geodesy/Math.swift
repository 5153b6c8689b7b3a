#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// The C maths functions the generator needs, in one place so that no other file imports libc.
@usableFromInline
enum Math {
    @usableFromInline static func sin(_ x: Double) -> Double { libcSin(x) }
    @usableFromInline static func cos(_ x: Double) -> Double { libcCos(x) }
    @usableFromInline static func tan(_ x: Double) -> Double { libcTan(x) }
    @usableFromInline static func atan2(_ y: Double, _ x: Double) -> Double { libcAtan2(y, x) }
    @usableFromInline static func exp(_ x: Double) -> Double { libcExp(x) }
    @usableFromInline static func log(_ x: Double) -> Double { libcLog(x) }
    @usableFromInline static func hypot(_ x: Double, _ y: Double) -> Double { libcHypot(x, y) }

    /// Degrees to radians.
    @usableFromInline static let radians = Double.pi / 180
    /// Radians to degrees.
    @usableFromInline static let degrees = 180 / Double.pi

    /// `angle` in degrees wrapped into `0 ..< 360`.
    @usableFromInline
    static func normalizedDegrees(_ angle: Double) -> Double {
        var a = angle.truncatingRemainder(dividingBy: 360)
        if a < 0 { a += 360 }
        return a >= 360 ? 0 : a
    }

    /// `angle` in radians wrapped into `-π ..< π`.
    @usableFromInline
    static func wrappedRadians(_ angle: Double) -> Double {
        var a = (angle + Double.pi).truncatingRemainder(dividingBy: 2 * Double.pi)
        if a < 0 { a += 2 * Double.pi }
        return a - Double.pi
    }
}

@inline(__always) private func libcSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func libcCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func libcTan(_ x: Double) -> Double { tan(x) }
@inline(__always) private func libcAtan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inline(__always) private func libcExp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func libcLog(_ x: Double) -> Double { log(x) }
@inline(__always) private func libcHypot(_ x: Double, _ y: Double) -> Double { hypot(x, y) }
