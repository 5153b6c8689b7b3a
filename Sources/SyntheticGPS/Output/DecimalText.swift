/// Fixed-point number formatting without Foundation, for the text writers.
enum DecimalText {
    /// `value` rounded to `decimals` digits after the point (at most 9), e.g. `52.5200080`.
    /// Non-finite values are written as `0`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        let places = min(9, max(0, decimals))
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 9.0e18 else { return String(value) }
        let integer = Int64(scaled)
        let whole = integer / scale
        var text = value < 0 && integer != 0 ? "-" : ""
        text += String(whole)
        guard places > 0 else { return text }
        let fraction = String(integer % scale)
        text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        return text
    }
}
