import LocationEngine

/// A fix as JSON: position, accuracy radius (68 %, metres, with `horizontalAccuracyEstimated` when the
/// source assumed it), its age when sent (seconds), and `coarsened` when it is the reduced-accuracy
/// grid's cell (a client with permission `approximate`).
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
    /// `true` when the fix is the coarse form of the measured one (the client's permission is `approximate`); absent otherwise.
    var coarsened: Bool?

    init(_ location: Location, age: Duration?, coarsened: Bool = false) {
        latitude = location.latitude
        longitude = location.longitude
        horizontalAccuracy = location.horizontalAccuracy
        altitude = location.altitude
        speed = location.speed
        course = location.course
        self.age = age?.secondsValue
        horizontalAccuracyEstimated = location.horizontalAccuracyIsEstimated ? true : nil
        self.coarsened = coarsened ? true : nil
    }
}
