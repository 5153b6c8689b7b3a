import ArgumentParser

/// `gpsgen`: a deterministic synthetic GPS receiver on the command line.
@main
struct GPSGen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpsgen",
        abstract: "Generate deterministic synthetic GPS data (NMEA, GPX, GeoJSON), serve it to gpsd, or decode NMEA.",
        subcommands: [Generate.self, Decode.self],
        defaultSubcommand: Generate.self
    )
}
