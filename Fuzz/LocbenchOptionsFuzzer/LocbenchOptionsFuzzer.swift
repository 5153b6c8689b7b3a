import LocationEngineTestKit
import LocbenchModel
import SyntheticGPS

/// One libFuzzer run of one of locbench's free-text option parsers.
///
/// One target for all of them, the parser chosen by the first byte modulo six (so the ASCII digits `0`…`5`
/// of the seeds pick `--mix`, `--authorization`, `--timeouts`, `--linger`, `--on-period`/`--off-period` and
/// `--source gpsd HOST:PORT`): they share the duration syntax, so inputs the fuzzer learns for one serve
/// the others, and one build and one time slot in CI cover them all. The rest of the input is the option's
/// text (invalid UTF-8 is repaired, as the command line's arguments are).
///
/// Invariants: no crash, no hang; a rejection is a non-empty message naming the option; an accepted
/// value is within the option's stated bounds, and a mix or address re-parses from its description to
/// an equal value.
func fuzzLocbenchOptions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch data[0] % 6 {
    case 0: checkMix(text)
    case 1: checkAuthorizationScript(text)
    case 2: checkTimeouts(text)
    case 3: checkLinger(text)
    case 4: checkOnOffPeriods(text)
    default: checkGPSDAddress(text)
    }
    return 0
}

/// `--mix`: weights non-negative with a positive total that some one-shot or subscription carries; every
/// draw picks a kind of positive weight; the description parses back to the same mix.
private func checkMix(_ text: String) {
    let mix: Mix
    do throws(LocbenchError) { mix = try Mix(parsing: text) } catch { return checkRejection(error, option: "--mix") }
    precondition(mix.weights.values.allSatisfy { $0 >= 0 }, "negative weight in \(mix)")
    precondition(mix.total > 0 && (mix.weights[.oneShot] ?? 0) + (mix.weights[.subscription] ?? 0) > 0, "no request in \(mix)")
    for draw in [0, mix.total / 2, mix.total - 1] { precondition((mix.weights[mix.kind(for: draw)] ?? 0) > 0, "draw \(draw) picks a kind of weight 0") }
    precondition((try? Mix(parsing: mix.description)) == mix, "'\(mix)' does not parse back to the same mix")
}

/// `--authorization`: one answer or change per item at most, each after a delay within 0…24 h.
private func checkAuthorizationScript(_ text: String) {
    let parsed: AuthorizationScript
    do throws(LocbenchError) { parsed = try AuthorizationScript(parsing: text) } catch { return checkRejection(error, option: "--authorization") }
    let script = parsed.script
    let delays = script.authorizationAnswers.map(\.after) + script.changes.map(\.after)
    precondition(delays.count <= text.split(separator: ",").count, "more answers and changes than items")
    precondition(delays.allSatisfy { (.zero...(.seconds(86_400))).contains($0) }, "a delay outside 0…24h")
    precondition(parsed.description == text, "the description is not the script's text")
}

/// `--timeouts`: 0 <= MIN <= MAX <= 24 h.
private func checkTimeouts(_ text: String) {
    do throws(LocbenchError) {
        let range = try DurationOptions.timeoutRange(parsing: text)
        precondition(range.lowerBound >= .zero && range.upperBound <= .seconds(86_400), "timeouts \(range) outside 0…24h")
    } catch {
        checkRejection(error, option: "--timeouts")
    }
}

/// `--linger`: 0…1 h.
private func checkLinger(_ text: String) {
    do throws(LocbenchError) {
        let linger = try DurationOptions.linger(parsing: text)
        precondition((.zero...(.seconds(3600))).contains(linger), "linger \(linger) outside 0…1h")
    } catch {
        checkRejection(error, option: "--linger")
    }
}

/// `--on-period` and `--off-period` (the input's text split at its first comma): each within 1 ms…24 h, and
/// the arrival process they make, at locbench's lowest default rate, reaches its first arrival.
private func checkOnOffPeriods(_ text: String) {
    let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    do throws(LocbenchError) {
        let periods = try DurationOptions.onOffPeriods(on: parts[0], off: parts.count == 2 ? parts[1] : "")
        for period in [periods.on, periods.off] { precondition((0.001...86_400).contains(period), "period \(period) s outside 1ms…24h") }
        var arrivals = OnOffArrivals(rate: 10, meanOn: periods.on, meanOff: periods.off)
        var generator = SplitMix64(seed: 42)
        precondition(arrivals.next(using: &generator) >= 0, "an arrival before the start")
    } catch {
        checkRejection(error, option: "--on-period")
    }
}

/// `--source gpsd HOST:PORT` (and gpsgen's `--listen`, which also takes `unix:PATH`): a non-empty host without
/// spaces or slashes and a port in 0…65535, or a Unix socket's path of 1 to 107 bytes; the description parses
/// back to the same address.
private func checkGPSDAddress(_ text: String) {
    let address: ListenAddress
    do throws(SyntheticGPSError) {
        address = try ListenAddress(parsing: text)
    } catch {
        precondition(error.message.hasPrefix("bad address"), "a rejection without its message: \(error)")
        return
    }
    if let path = address.unixSocketPath {
        precondition(!path.isEmpty && path.utf8.count < 108 && !path.contains("\0"), "malformed socket path '\(path)'")
        precondition(address.host.isEmpty && address.port == 0, "a Unix socket with a host or port: \(address)")
        precondition((try? ListenAddress(parsing: address.description)) == address, "'\(address)' does not parse back to the same address")
        return
    }
    precondition(!address.host.isEmpty && !address.host.contains(where: { $0 == " " || $0 == "/" }), "malformed host '\(address.host)'")
    precondition((0...65_535).contains(address.port), "port \(address.port) out of range")
    precondition((try? ListenAddress(parsing: address.description)) == address, "'\(address)' does not parse back to the same address")
}

/// A rejection is a bad argument whose message names the option.
private func checkRejection(_ error: LocbenchError, option: String) {
    guard case .badArgument(let message) = error else { preconditionFailure("not a bad argument: \(error)") }
    precondition(message.hasPrefix(option), "the message does not name \(option): \(message)")
}
