import LocationEngine
import LocbenchModel
import Testing

@Suite struct GeofenceSpeedTests {
    @Test func parsesTheTrajectoryTheEngineDefaultAndASpeed() throws {
        #expect(try GeofenceSpeed(parsing: "trajectory") == .trajectory)
        #expect(try GeofenceSpeed(parsing: "default") == .fixed(GeofenceConfiguration().maximumSpeed))
        #expect(try GeofenceSpeed(parsing: "12.5") == .fixed(12.5))
        #expect(try GeofenceSpeed(parsing: "1000") == .fixed(1000))
        #expect(try GeofenceSpeed(parsing: "0.1") == .fixed(0.1))
    }

    @Test(arguments: ["0", "-3", "1000.5", "nan", "inf", "", "fast", "30 m/s", "1e-300", "0.09", "0x10", "1e2"])
    func rejectsWhatIsNotASpeedWithinBounds(text: String) {
        let error = #expect(throws: LocbenchError.self) { try GeofenceSpeed(parsing: text) }
        #expect(
            error?.description
                == "--geofence-max-speed must be 'trajectory', 'default' or a speed in m/s from 0.1 to 1000 (got '\(text)')")
    }

    @Test func aTrajectorysOwnSpeedAndAccelerationOrOneSpeedWithoutABound() {
        for shape in GeofenceShape.allCases {
            #expect(GeofenceSpeed.trajectory.speed(for: shape) == shape.topSpeed)
            #expect(GeofenceSpeed.trajectory.acceleration(for: shape) == shape.motion.acceleration)
            #expect(GeofenceSpeed.fixed(7).speed(for: shape) == 7)
            #expect(GeofenceSpeed.fixed(7).acceleration(for: shape) == nil)
        }
    }
}
