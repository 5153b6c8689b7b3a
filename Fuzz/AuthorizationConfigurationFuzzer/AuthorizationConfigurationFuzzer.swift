import LocationEngine

/// One libFuzzer run of the authorization configuration file parser.
///
/// The input is the text of a configuration file (invalid UTF-8 is repaired, as reading a file would
/// reject it first). Invariants: no crash, no hang; a rejected file names a line within the file; an
/// accepted file yields a consistent state (a one-time grant is a grant).
func fuzzAuthorizationConfiguration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do throws(AuthorizationConfigurationError) {
        let provider = try StaticAuthorizationProvider(configuration: text)
        precondition(!provider.state.isOneTime || provider.state.status.isGrant, "one-time without a grant")
    } catch {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        if let line = error.line { precondition((1...max(1, lines)).contains(line), "error names line \(line) of \(lines)") }
    }
    return 0
}
