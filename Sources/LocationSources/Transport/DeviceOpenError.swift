#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// Why a serial device, file or standard input could not be opened for reading.
struct DeviceOpenError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case openDevice(errno: Int32)
        case openFile(errno: Int32)
        case termios(errno: Int32)
        case unsupportedBaudRate(Int)
        case duplicate(errno: Int32)
        case notSerial
    }

    private let code: Code
    /// The path, or `standard input`.
    let path: String

    private init(_ code: Code, path: String) {
        self.code = code
        self.path = path
    }

    /// `open(2)` of a serial device failed with `errno`.
    static func openDevice(_ path: String, errno: Int32) -> Self { Self(.openDevice(errno: errno), path: path) }
    /// `open(2)` of a log file failed with `errno`.
    static func openFile(_ path: String, errno: Int32) -> Self { Self(.openFile(errno: errno), path: path) }
    /// Reading or setting the terminal attributes failed with `errno`.
    static func termios(_ path: String, errno: Int32) -> Self { Self(.termios(errno: errno), path: path) }
    /// The baud rate is not one termios knows.
    static func unsupportedBaudRate(_ path: String, _ rate: Int) -> Self { Self(.unsupportedBaudRate(rate), path: path) }
    /// The path opened but is neither a terminal nor anything the poller can watch (`/dev/null`, a file).
    static func notSerial(_ path: String) -> Self { Self(.notSerial, path: path) }
    /// `dup(2)` of standard input failed.
    static func duplicate(errno: Int32) -> Self { Self(.duplicate(errno: errno), path: "standard input") }

    var description: String {
        switch code {
        case .openDevice(let number) where number == EACCES || number == EPERM:
            "permission denied opening \(path): add the user to the device's group (usually dialout: "
                + "sudo usermod -aG dialout $USER, then log in again)"
        case .openDevice(let number) where number == ENOENT:
            "\(path) does not exist: check the receiver is plugged in (ls /dev/ttyUSB* /dev/ttyACM*)"
        case .openDevice(let number) where number == EBUSY:
            "\(path) is busy: another program (gpsd, ModemManager) holds it"
        case .openDevice(let number):
            "cannot open \(path): \(Self.text(number))"
        case .openFile(let number) where number == ENOENT:
            "\(path) does not exist"
        case .openFile(let number):
            "cannot open \(path): \(Self.text(number))"
        case .termios(let number):
            "cannot set \(path) to raw mode: \(Self.text(number))"
        case .unsupportedBaudRate(let rate):
            "\(rate) baud is not supported for \(path); use 4800, 9600, 19200, 38400, 57600, 115200, 230400 or 460800"
        case .notSerial:
            "\(path) is not a serial device (nor a pipe): read a recorded log as a file instead"
        case .duplicate(let number):
            "cannot read standard input: \(Self.text(number))"
        }
    }

    private static func text(_ number: Int32) -> String {
        guard let message = strerror(number) else { return "errno \(number)" }
        return String(cString: message)
    }
}
