/// Where an ``NMEAStreamSource`` reads NMEA 0183 from.
public enum NMEAStreamEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A TCP feed (a serial-to-network bridge, `gpsgen --listen`, `socat`): `host:port`. A port outside
    /// 0–65535 fails each connection attempt with an error saying so, until the source gives up.
    case tcp(host: String, port: Int)
    /// A serial device such as `/dev/ttyUSB0` or `/dev/ttyACM0`, set to raw mode at `baudRate`
    /// (4800 is the NMEA 0183 standard; many USB receivers use 9600 or more).
    ///
    /// The user running the engine needs read and write access to the device: on Debian and Ubuntu
    /// that means membership of the `dialout` group (`sudo usermod -aG dialout $USER`, then log in
    /// again). A named pipe or other non-terminal path is read as it is, without termios settings.
    case serial(path: String, baudRate: Int)
    /// A recorded log file, replayed by `pacing`. Text that is not a sentence (a comment line such as
    /// `# recorded on the A9`) is skipped as noise; a sentence is read wherever its `$` is, even after a `#`.
    /// A named pipe (`mkfifo`) at `path` is opened without waiting for a writer and read as it comes; it ends
    /// when its writers have come and gone.
    case file(path: String, pacing: NMEAReplayPacing)
    /// The process's standard input: a pipe (`socat … | app`, `cat /dev/ttyUSB0 | app`) or a
    /// redirected file (replayed as fast as possible). Its end is final.
    case standardInput

    /// What the endpoint is, for messages: `"serial device /dev/ttyUSB0 at 4800 baud"`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "NMEA feed at [\(host)]:\(port)" : "NMEA feed at \(host):\(port)"
        case .serial(let path, let baudRate): "serial device \(path) at \(baudRate) baud"
        case .file(let path, _): "NMEA log \(path)"
        case .standardInput: "standard input"
        }
    }
}

/// How a recorded NMEA log is replayed.
public enum NMEAReplayPacing: Sendable, Hashable {
    /// Each epoch when its recorded time comes, relative to the first: `speed` 2 plays twice as
    /// fast. Gaps in the recording longer than `maximumGap` (and time running backwards, as where
    /// logs were concatenated) are shortened to nothing; no wait lasts more than a day, however slow the
    /// speed. A speed that is not a positive number plays as recorded (1).
    case recorded(speed: Double = 1, maximumGap: Duration = .seconds(10))
    /// Every epoch as soon as it is decoded.
    case asFastAsPossible
}
