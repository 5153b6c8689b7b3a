import Testing

@testable import LocationEngine

/// The inbox takes a cancel or force-complete only for an ID it handed out: another engine's ID — below this
/// engine's IDs (made earlier) or above them (made later) — and one not handed out yet are dropped at the door.
@Suite("The inbox and other engines' IDs")
struct InboxIDTests {
    @Test("a withdrawal of an ID of an engine made earlier or later, or of one not handed out yet, is not appended")
    func foreignIDsAreDropped() {
        let earlier = Inbox()
        let inbox = Inbox()
        let later = Inbox()
        #expect(earlier.engine != inbox.engine && inbox.engine != later.engine)
        for id in [
            RequestID(engine: earlier.engine, sequence: 1), RequestID(engine: later.engine, sequence: 1),
            RequestID(engine: inbox.engine, sequence: 1),
        ] {
            _ = inbox.appendWithdrawal(id, .cancel)
            #expect(!inbox.hasWithdrawals, "\(id)")
        }
    }
}
