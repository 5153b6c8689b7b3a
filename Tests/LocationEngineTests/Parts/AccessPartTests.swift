@testable import LocationEngine
import Testing

/// The access part on its own: what a change of the picture asks of the other parts, in order, and
/// the facts it keeps (prompts, the fix history, temporary full accuracy).
@Suite("Access part")
struct AccessPartTests {
    typealias Access = SchedulerStateMachine<String, String, String>.Access

    static let usage = UsageDeclarations(whenInUse: "to find you", temporaryFullAccuracyPurposes: ["Navigation": "turn by turn"])
    static let reduced = AuthorizationState(status: .authorizedWhenInUse, accuracy: .reduced)
    static let fix = Location(latitude: 52.52, longitude: 13.40, horizontalAccuracy: 5)

    static func access(_ picture: AuthorizationState, usage: UsageDeclarations = usage) -> Access {
        Access(picture: picture, reducedAccuracy: ReducedAccuracyPolicy(), usage: usage)
    }

    @Test("a revocation ends everything as revoked, forgets the fixes and powers the source off at once")
    func revocation() {
        var access = Self.access(.authorizedAlways)
        _ = access.remember(Self.fix, age: .zero, now: .zero)
        #expect(access.lastKnownLocation(now: .zero) != nil)
        let consequences = access.apply(.denied, answering: nil)
        #expect(
            consequences == [
                .announce(from: .authorizedAlways, to: .denied), .endEverything(.unauthorized(.denied), .unauthorized(.denied)), .powerOff,
                .reconcilePower,
            ])
        #expect(access.lastKnownLocation(now: .zero) == nil)
    }

    @Test("a grant under reduced accuracy holds what coarse fixes cannot serve before it admits the waiting requests")
    func grantUnderReducedAccuracy() {
        var access = Self.access(.notDetermined)
        let consequences = access.apply(Self.reduced, answering: nil)
        #expect(
            consequences == [
                .announce(from: .notDetermined, to: Self.reduced), .holdUnservable(mayWait: true), .reconcilePower, .admitAwaitingAuthorization,
                .reconcilePower,
            ])
        #expect(access.rules.reduced != nil)
    }

    @Test("the authorization request is made once per not-determined period; with nothing declared, nothing can be shown")
    func authorizationAskedOnce() {
        var access = Self.access(.notDetermined)
        guard case .askForAuthorization(let prompt, let token)? = access.authorizationNeeded().first else {
            Issue.record("no prompt")
            return
        }
        #expect(prompt.usageDescription == "to find you")
        #expect(access.authorizationNeeded() == [])
        #expect(access.counts.authorizationRequests == 1)
        // Dismissed: still not determined, the waiting requests end undecided, and the next one asks again.
        #expect(access.apply(.notDetermined, answering: token) == [.endAwaitingAuthorization(.unauthorized(.undecided), .unauthorized(.undecided))])
        #expect(access.authorizationNeeded() != [])

        var undeclared = Self.access(.notDetermined, usage: .none)
        // Nothing declared: reported, the waiting requests end misconfigured, and the next one asks again.
        let misconfigured = LocationStatus.misconfigured(.noUsageDeclared)
        let expected: [Access.Consequence] = [
            .reportConfigurationError(.noUsageDeclared), .endAwaitingAuthorization(misconfigured, .misconfigured(.noUsageDeclared)),
        ]
        #expect(undeclared.authorizationNeeded() == expected)
        #expect(undeclared.authorizationNeeded() == expected)
    }

    @Test("an answer to a prompt that is no longer open changes nothing and is counted")
    func staleAnswer() {
        var access = Self.access(.notDetermined)
        guard case .askForAuthorization(_, let token)? = access.authorizationNeeded().first else {
            Issue.record("no prompt")
            return
        }
        _ = access.apply(.denied, answering: nil)  // access changed: the prompt closed
        #expect(access.apply(.authorizedAlways, answering: token) == [])
        #expect(access.counts.authorizationAnswersIgnored == 1)
        #expect(access.gate == .unauthorized(.denied))
    }

    @Test("temporary full accuracy: asked once, a refusal ends the waiting requests and stands until the session ends")
    func temporaryFullAccuracy() {
        var access = Self.access(Self.reduced)
        guard let (_, token) = access.requestTemporaryFullAccuracyOnce("Navigation") else {
            Issue.record("no prompt")
            return
        }
        #expect(access.requestTemporaryFullAccuracyOnce("Navigation") == nil)
        #expect(access.apply(Self.reduced, answering: token) == [.endAwaitingFullAccuracy, .reconcilePower])
        #expect(access.rules.fullAccuracyRefused)
        #expect(access.sessionEnded() == [])
        #expect(!access.rules.fullAccuracyRefused)
    }

    @Test("at the end of a session temporary full accuracy reverts without prompting again, and the provider is told")
    func sessionEndRevertsTemporaryFullAccuracy() {
        let temporary = AuthorizationState(status: .authorizedWhenInUse, accuracy: .full, isFullAccuracyTemporary: true)
        var access = Self.access(temporary)
        #expect(
            access.sessionEnded() == [
                .announce(from: temporary, to: Self.reduced), .holdUnservable(mayWait: false), .reconcilePower, .tellProvider(Self.reduced),
            ])
    }

    @Test("under reduced accuracy fixes are coarsened and throttled before anyone sees them")
    func reducedAccuracyFixes() {
        var access = Self.access(Self.reduced)
        let first = access.remember(Self.fix, age: .zero, now: .zero)
        #expect(first != nil && first!.location.horizontalAccuracy >= ReducedAccuracyPolicy().gridSpacing)
        #expect(access.remember(Self.fix, age: .zero, now: .zero + .seconds(1)) == nil)
        #expect(access.cachedResult(satisfying: .block, now: .zero) == nil)
        #expect(access.cachedResult(satisfying: .city, now: .zero)?.status == .success)
    }
}
