import LocbenchModel
import Testing

@Suite struct MixTests {
    @Test func parsesWeightsIgnoringCaseAndSpaces() throws {
        #expect(try Mix(parsing: "oneshot=70,subscription=10,cancel=10,force=10") == .standard)
        let mix = try Mix(parsing: " OneShot = 3 ,force=1")
        #expect(mix.weights == [.oneShot: 3, .forceComplete: 1])
        #expect(mix.total == 4)
        #expect((0..<4).map(mix.kind(for:)) == [.oneShot, .oneShot, .oneShot, .forceComplete])
    }

    @Test(arguments: ["oneshot=1", "subscription=2,cancel=0", "oneshot=70,subscription=10,cancel=10,force=10", "force=1,oneshot=5,oneshot=0,subscription=1"])
    func theDescriptionParsesBackToTheSameMix(text: String) throws {
        let mix = try Mix(parsing: text)
        #expect(try Mix(parsing: mix.description) == mix)
    }

    @Test func zeroWeightsDoNotMakeADifferentMix() throws {
        #expect(try Mix(parsing: "oneshot=1,cancel=0") == Mix(weights: [.oneShot: 1]))
        #expect(Mix.standard.description == "oneshot=70,subscription=10,cancel=10,force=10")
    }

    @Test(arguments: [
        ("oneshot", "--mix: unknown entry 'oneshot'; use names oneshot, subscription, cancel, force with integer weights, e.g. oneshot=70,subscription=10,cancel=10,force=10"),
        ("often=3", "--mix: unknown entry 'often=3'; use names oneshot, subscription, cancel, force with integer weights, e.g. oneshot=70,subscription=10,cancel=10,force=10"),
        ("oneshot=-1", "--mix: weight of oneshot must be a non-negative integer, got '-1'"),
        ("cancel=2.5", "--mix: weight of cancel must be a non-negative integer, got '2.5'"),
        ("oneshot=99999999999999999999", "--mix: weight of oneshot must be a non-negative integer, got '99999999999999999999'"),
        ("", "--mix: at least one of oneshot or subscription needs a positive weight"),
        ("cancel=5,force=5", "--mix: at least one of oneshot or subscription needs a positive weight"),
    ])
    func rejectsWithAMessage(text: String, message: String) {
        let error = #expect(throws: LocbenchError.self) { try Mix(parsing: text) }
        #expect(error?.description == message)
    }

    /// The total of the weights overflowed `Int` and trapped (reproduced with the fuzz target).
    @Test func weightsWhoseSumOverflowsAreRejected() {
        let error = #expect(throws: LocbenchError.self) { try Mix(parsing: "oneshot=9223372036854775807,force=1") }
        #expect(error?.description == "--mix: the weights add up to more than 9223372036854775807; use smaller weights in the same proportions")
        #expect(throws: Never.self) { try Mix(parsing: "oneshot=9223372036854775806,force=1") }
    }
}
