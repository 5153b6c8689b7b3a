import LocationEngine

/// A fix as JSON: position, accuracy radius (68 %, metres, with `horizontalAccuracyEstimated` when the
/// source assumed it) and its age when sent (seconds).
struct FixJSON: Codable, Equatable {
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double
    var altitude: Double?
    var speed: Double?
    var course: Double?
    var age: Double?
    /// `true` when the radius is the source's assumption (the receiver reported no error); absent otherwise.
    var horizontalAccuracyEstimated: Bool?

    init(_ location: Location, age: Duration?) {
        latitude = location.latitude
        longitude = location.longitude
        horizontalAccuracy = location.horizontalAccuracy
        altitude = location.altitude
        speed = location.speed
        course = location.course
        self.age = age?.secondsValue
        horizontalAccuracyEstimated = location.horizontalAccuracyIsEstimated ? true : nil
    }
}
