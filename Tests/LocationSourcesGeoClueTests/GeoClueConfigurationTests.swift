import LocationEngine
import LocationSourcesGeoClue
import Testing

/// The GeoClue source's settings are bounded whenever they are set, not only when they are made: a
/// negative pause would retry the bus in a busy loop, a NaN reach would serve nothing.
struct GeoClueConfigurationTests {
    @Test func settingsSetLaterAreBoundedAsAtInit() {
        var configuration = GeoClueConfiguration(desktopId: "locationengine-tests")
        configuration.callTimeout = .seconds(-1)
        configuration.retryDelay = .zero
        #expect(configuration.callTimeout == .milliseconds(10) && configuration.retryDelay == .milliseconds(10))
        configuration.retryDelay = .seconds(30)
        #expect(configuration.maximumRetryDelay == .seconds(30), "the longest pause is never below the first")
        configuration.maximumRetryDelay = .seconds(1)
        #expect(configuration.maximumRetryDelay == .seconds(30))
        configuration.firstFixTime = .seconds(-2)
        #expect(configuration.firstFixTime == .zero)
        configuration.reach = .nan
        configuration.watts = -.infinity
        #expect(configuration.reach == 0 && configuration.watts == 0)
        configuration.accuracyClasses = [0: 7.5, 1: .nan, .infinity: 3, 3: -1]
        #expect(configuration.accuracyClasses == [0: 7.5])
    }
}
