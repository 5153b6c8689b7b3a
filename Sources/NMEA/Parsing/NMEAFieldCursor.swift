/// Walks the data fields of one sentence left to right, handing out views into the line.
///
/// Fields past the end read as empty, so parsers of sentences that grew optional
/// trailing fields over NMEA versions need no special cases; parsers check
/// ``count`` against their minimum first.
struct NMEAFieldCursor {
    /// The bytes between the address comma and the `*` (or the end of line).
    private let body: UnsafeRawBufferPointer
    /// The offset of the next field's first byte.
    private var position: Int
    /// The 1-based index the next field will have.
    private(set) var nextIndex: Int
    /// The number of data fields in the sentence.
    let count: Int
    /// The sentence type, for error reports.
    let sentence: NMEASentenceKind

    /// Creates a cursor over `body`; `hasFields` is false when the address had no comma after it.
    ///
    /// - Complexity: O(n) in the body length, to count the fields.
    init(body: UnsafeRawBufferPointer, hasFields: Bool, sentence: NMEASentenceKind) {
        self.body = body
        self.position = 0
        self.nextIndex = 1
        self.sentence = sentence
        var commas = 0
        for byte in body where byte == 0x2C { commas += 1 }
        self.count = hasFields ? commas + 1 : 0
    }

    /// The number of fields not read yet.
    var remaining: Int { max(0, count - nextIndex + 1) }

    /// Throws `.truncated` unless the sentence has at least `minimum` fields.
    func require(_ minimum: Int) throws(NMEAError) {
        guard count >= minimum else { throw NMEAError(.truncated, sentence: sentence) }
    }

    /// The next field; an empty one past the end.
    ///
    /// - Complexity: O(field length).
    mutating func next() -> NMEAField {
        defer { nextIndex += 1 }
        guard nextIndex <= count else {
            return NMEAField(bytes: UnsafeRawBufferPointer(rebasing: body[body.count...]), index: nextIndex, sentence: sentence)
        }
        var end = position
        while end < body.count, body[end] != 0x2C { end += 1 }
        let field = NMEAField(bytes: UnsafeRawBufferPointer(rebasing: body[position..<end]), index: nextIndex, sentence: sentence)
        position = min(end + 1, body.count)
        return field
    }

    /// Skips `n` fields.
    mutating func skip(_ n: Int) {
        for _ in 0..<n { _ = next() }
    }
}
