import Foundation
import LocationEngine
import LocbenchModel
import Testing

/// Placing fences along a path that gives them no room ends, with fewer fences than asked.
struct FencePlacementTests {
    /// Three times round a circle of radius 100 m through the start, at 5 m/s: every point lies within 200 m of
    /// the start, so no fence across the path (the path at least 60 m inside it) stays 200 m clear of the start.
    static let roundTheBlock: TruthPath = {
        let radius = 100.0
        let seconds = Int(3 * 2 * Double.pi * radius / 5)
        return TruthPath(
            samples: (0...seconds).map { second in
                let angle = Double(second) * 5 / radius
                let point = StraightPath.point(east: radius * sin(angle), north: radius - radius * cos(angle))
                return TruthPath.Sample(seconds: Double(second), point: point, speed: 5)
            })
    }()

    @Test func aPathThatNeverLeavesItsStartGivesUpRatherThanDrawingForever() {
        let path = Self.roundTheBlock
        #expect(path.distanceAlong.last! > FencePlacement.firstAnchor + 1_000)
        let fences = FencePlacement.place(count: 4, along: path, seed: 1)
        // The first two must cross the path (one per kilometre of it), and none can: placement stops there.
        #expect(fences.isEmpty)
    }

    @Test func aPathThatLeavesItsStartIsUnaffected() {
        let fences = FencePlacement.place(count: 4, along: StraightPath.path(seconds: 300), seed: 1)
        #expect(fences.count == 4)
        #expect(fences.map(\.intent).filter { $0 == .crossed }.count == 2)
    }
}
