import LocationEngine
import LocbenchModel
import Testing

@Suite struct AuthorizationScriptTests {
    @Test func parsesStartAnswersAndChangesInTheirOrder() throws {
        let text = "start=not-determined,answer=allow-once@2s,answer=coarse, at=90s:denied,at=30s:reduced"
        let parsed = try AuthorizationScript(parsing: text)
        #expect(parsed.description == text)
        #expect(parsed.script.initial == .notDetermined)
        #expect(parsed.script.authorizationAnswers == [.init(.allowOnce(), after: .seconds(2)), .init(.allowWhileUsing(precise: false))])
        #expect(parsed.script.changes == [.init(.denied, after: .seconds(90)), .init(.authorizedWhenInUse(accuracy: .reduced), after: .seconds(30))])
    }

    @Test func startsAuthorizedAndTakesEveryStateAndAnswer() throws {
        #expect(try AuthorizationScript(parsing: "answer=deny").script.initial == .authorizedAlways)
        let states = try AuthorizationScript(parsing: "at=1:restricted,at=1h30m:disabled,at=250ms:authorized,at=24h:not-determined").script.changes
        #expect(states.map(\.value) == [.restricted, AuthorizationState(status: .authorizedAlways, servicesEnabled: false), .authorizedAlways, .notDetermined])
        #expect(states.map(\.after) == [.seconds(1), .seconds(5_400), .milliseconds(250), .seconds(86_400)])
        let answers = try AuthorizationScript(parsing: "answer=while-using,answer=always,answer=dismiss@0s").script.authorizationAnswers
        #expect(answers.map(\.value) == [.allowWhileUsing(), .allowAlways(), .dismiss])
    }

    @Test(arguments: [
        (",", "the script is empty in ','"),
        ("start", "'start' is not KEY=VALUE in 'start'"),
        ("begin=denied", "unknown item 'begin' (start, answer, at) in 'begin=denied'"),
        ("start=maybe", "unknown state 'maybe' (authorized, reduced, not-determined, denied, restricted, disabled) in 'start=maybe'"),
        ("answer=yes@2s", "unknown answer 'yes' (allow-once, while-using, always, coarse, deny, dismiss) in 'answer=yes@2s'"),
        ("at=60s", "'at=60s' should be at=TIME:STATE in 'at=60s'"),
        ("at=25h:denied", "bad time '25h' (e.g. 2s, 10m; at most 24h) in 'at=25h:denied'"),
        ("at=99999999999999999999s:denied", "bad time '99999999999999999999s' (e.g. 2s, 10m; at most 24h) in 'at=99999999999999999999s:denied'"),
        ("answer=deny@1e308s", "bad time '1e308s' (e.g. 2s, 10m; at most 24h) in 'answer=deny@1e308s'"),
        ("answer=deny@1e308", "bad time '1e308' (e.g. 2s, 10m; at most 24h) in 'answer=deny@1e308'"),
        ("answer=deny@-2s", "bad time '-2s' (e.g. 2s, 10m; at most 24h) in 'answer=deny@-2s'"),
        ("answer=always@", "'answer=always@' should be answer=ANSWER[@DELAY] in 'answer=always@'"),
    ])
    func rejectsWithAMessage(text: String, message: String) {
        let error = #expect(throws: LocbenchError.self) { try AuthorizationScript(parsing: text) }
        #expect(error?.description == "--authorization: \(message)")
    }

    /// Found by the fuzzer: an answer of only `@` split into nothing and indexing it trapped.
    @Test func anAnswerOfOnlyAnAtSignIsRejected() {
        let error = #expect(throws: LocbenchError.self) { try AuthorizationScript(parsing: "answer=deny,answer=@") }
        #expect(error?.description == "--authorization: 'answer=@' should be answer=ANSWER[@DELAY] in 'answer=deny,answer=@'")
    }
}
