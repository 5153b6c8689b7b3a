/// Walks the data fields of one sentence left to right, handing out views into the line.
///
/// The field boundaries were found in the same pass that checked the checksum
/// (``NMEASentenceParser``), so each field is reached in O(1). Fields past the
/// end read as empty, so parsers of sentences that grew optional trailing
/// fields over NMEA versions need no special cases; parsers check ``count``
/// against their minimum first.
struct NMEAFieldCursor {
    /// The whole line, from `$`.
    private let line: UnsafeRawBufferPointer
    /// Offsets of the commas in the line: comma `k` ends field `k` and starts field `k + 1`.
    private var commas: NMEACommaOffsets
    /// The offset of the `*` (or the end of the data when there is none).
    private let dataEnd: Int
    /// The 1-based index the next field will have.
    private(set) var nextIndex = 1
    /// The number of data fields in the sentence.
    let count: Int
    /// The sentence type, for error reports.
    let sentence: NMEASentenceKind

    /// Creates a cursor over the fields that follow the address.
    init(line: UnsafeRawBufferPointer, commas: NMEACommaOffsets, dataEnd: Int, sentence: NMEASentenceKind) {
        self.line = line
        self.commas = commas
        self.dataEnd = dataEnd
        self.count = commas.count
        self.sentence = sentence
    }

    /// The number of fields not read yet.
    var remaining: Int { max(0, count - nextIndex + 1) }

    /// Throws `.truncated` unless the sentence has at least `minimum` fields.
    func require(_ minimum: Int) throws(NMEAError) {
        guard count >= minimum else { throw NMEAError(.truncated, sentence: sentence) }
    }

    /// The next field; an empty one past the end.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func next() -> NMEAField {
        let index = nextIndex
        nextIndex += 1
        guard index <= count else {
            return NMEAField(bytes: UnsafeRawBufferPointer(rebasing: line[dataEnd..<dataEnd]), index: index, sentence: sentence)
        }
        let start = commas[index - 1] + 1
        let end = index < count ? commas[index] : dataEnd
        return NMEAField(bytes: UnsafeRawBufferPointer(rebasing: line[start..<end]), index: index, sentence: sentence)
    }

    /// Skips `n` fields. - Complexity: O(1).
    mutating func skip(_ n: Int) { nextIndex += n }
}

/// The offsets of up to ``capacity`` commas of one line, held inline (no allocation).
struct NMEACommaOffsets {
    private var storage: (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// The number of offsets held.
    private(set) var count = 0

    /// The most commas a sentence may have (GSV of NMEA 4.10 has 20 fields).
    static let capacity = 64

    /// Records the next comma; `false` when full. - Complexity: O(1).
    mutating func append(_ offset: Int) -> Bool {
        guard count < NMEACommaOffsets.capacity else { return false }
        let index = count
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: UInt16(truncatingIfNeeded: offset), toByteOffset: index &* 2, as: UInt16.self) }
        count += 1
        return true
    }

    /// The offset of comma `index`. - Complexity: O(1).
    ///
    /// A `mutating get` so that the tuple is read in place: a non-mutating
    /// `withUnsafeBytes(of:)` would copy all 128 bytes to a temporary first.
    subscript(index: Int) -> Int {
        mutating get {
            withUnsafeMutableBytes(of: &storage) { Int($0.load(fromByteOffset: index &* 2, as: UInt16.self)) }
        }
    }
}
