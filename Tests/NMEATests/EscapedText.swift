import Testing

/// A test argument that is NMEA text (sentences end in CR LF): described escaped, so each test case reads as
/// one line in the test run's output.
struct EscapedText: CustomTestStringConvertible, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
    var testDescription: String { text.debugDescription }
}
