/// Durations as people type them on a command line: `90s`, `10m`, `1h`, `1h30m`, `250ms`, or a plain
/// number of seconds (`42`, `0.5`).
public enum DurationText {
    /// The number of seconds `text` stands for.
    /// - Throws: ``SyntheticGPSError`` when `text` is empty, malformed, negative or infinite.
    public static func seconds(parsing text: String) throws(SyntheticGPSError) -> Double {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { throw .invalidArgument("empty duration; write e.g. 90s, 10m or 1h") }
        if trimmed.hasPrefix("-") {
            throw .invalidArgument("negative duration '\(text)'; durations must be zero or more")
        }
        // A plain number is decimal digits with at most one point: `Double` alone would also read `0x1E`,
        // `1e3` and `nan`, which no one types as a duration.
        if trimmed.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }) {
            guard let plain = Double(trimmed) else { throw .invalidArgument("bad duration '\(text)'; write e.g. 90s, 10m or 1h") }
            guard plain.isFinite else { throw .invalidArgument("duration '\(text)' is beyond any number of seconds") }
            return plain
        }
        var total = 0.0
        var number = ""
        var unit = ""
        func flush() throws(SyntheticGPSError) {
            guard let value = Double(number), value.isFinite else {
                throw .invalidArgument("bad duration '\(text)'; write e.g. 90s, 10m, 1h or 1h30m")
            }
            let scale: Double
            switch unit {
            case "ms": scale = 0.001
            case "s": scale = 1
            case "m", "min": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            default: throw .invalidArgument("unknown unit '\(unit)' in duration '\(text)'; use ms, s, m, h or d")
            }
            total += value * scale
            number = ""
            unit = ""
        }
        for character in trimmed {
            if ("0"..."9").contains(character) || character == "." {
                if !unit.isEmpty { try flush() }
                number.append(character)
            } else if character.isLetter {
                guard !number.isEmpty else { throw .invalidArgument("bad duration '\(text)'; a unit needs a number before it") }
                unit.append(character)
            } else {
                throw .invalidArgument("bad duration '\(text)'; write e.g. 90s, 10m, 1h or 1h30m")
            }
        }
        guard !unit.isEmpty else { throw .invalidArgument("bad duration '\(text)'; write e.g. 90s, 10m or 1h") }
        try flush()
        guard total.isFinite else { throw .invalidArgument("duration '\(text)' is beyond any number of seconds") }
        return total
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
