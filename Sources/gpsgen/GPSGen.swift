import ArgumentParser

/// `gpsgen`: a deterministic synthetic GPS receiver on the command line.
@main
struct GPSGen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpsgen",
        abstract: """
            Generate deterministic synthetic GPS data: NMEA, GPX or GeoJSON to standard output or a file, \
            or NMEA in real time over TCP (--listen, for gpsd) or on a terminal (--terminal); or decode NMEA \
            (gpsgen decode).
            """,
        discussion: """
            Examples:
              gpsgen --scenario drive --duration 10m > drive.nmea
              gpsgen --scenario walk --duration 1h --format gpx --output walk.gpx
              # NMEA over TCP for gpsd (then: gpsd -N -S 2948 tcp://127.0.0.1:4000)
              gpsgen --scenario tunnel --listen 127.0.0.1:4000
              # for GeoClue (then: /usr/libexec/geoclue -u /tmp/nmea.sock)
              gpsgen --scenario walk --listen unix:/tmp/nmea.sock
              # a MediaTek that obeys PMTK power commands
              gpsgen --persona mtk --listen 127.0.0.1:4000
              # a u-blox on one end of a socat pty pair
              gpsgen --persona ublox --terminal /tmp/ttyGPS1
              # NMEA to gpsd's TPV JSON
              gpsgen decode drive.nmea | head
            """,
        subcommands: [Decode.self, Generate.self]
    )

    @OptionGroup var options: GenerateOptions

    func run() async throws { try await options.generate() }
}
