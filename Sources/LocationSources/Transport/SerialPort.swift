#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// Opens serial devices for reading NMEA: non-blocking, without becoming the controlling terminal,
/// in raw mode (no echo, no line editing, 8 data bits) at a given baud rate.
enum SerialPort {
    /// Opens `path` at `baudRate` and returns its file descriptor, which the caller owns.
    ///
    /// A path that is not a terminal (a named pipe) is opened as it is, without termios settings.
    static func open(path: String, baudRate: Int) throws(DeviceOpenError) -> CInt {
        guard let speed = speed(for: baudRate) else { throw .unsupportedBaudRate(path, baudRate) }
        let fd = openDescriptor(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .openDevice(path, errno: errno) }
        guard isatty(fd) == 1 else {
            // A named pipe or a pseudo-terminal pair's other end is read as it is; a device the poller cannot
            // watch (`/dev/null`, a regular file) is no serial device: refused, not handed to the pipe channel,
            // which traps on it.
            guard Pollability.canPoll(fd) else {
                closeDescriptor(fd)
                throw .notSerial(path)
            }
            return fd
        }
        var attributes = termios()
        guard tcgetattr(fd, &attributes) == 0 else {
            let number = errno
            closeDescriptor(fd)
            throw .termios(path, errno: number)
        }
        cfmakeraw(&attributes)
        attributes.c_cflag |= tcflag_t(CLOCAL | CREAD)
        attributes.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        withUnsafeMutableBytes(of: &attributes.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        guard cfsetispeed(&attributes, speed) == 0, cfsetospeed(&attributes, speed) == 0,
            tcsetattr(fd, TCSANOW, &attributes) == 0
        else {
            let number = errno
            closeDescriptor(fd)
            throw .termios(path, errno: number)
        }
        tcflush(fd, TCIFLUSH)
        return fd
    }

    /// The termios speed constant for `baudRate`, or `nil` when there is none.
    static func speed(for baudRate: Int) -> speed_t? {
        switch baudRate {
        case 1200: speed_t(B1200)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115_200: speed_t(B115200)
        case 230_400: speed_t(B230400)
        case 460_800: speed_t(B460800)
        default: nil
        }
    }
}

/// `open(2)`, at file scope so that the name is not taken for ``SerialPort/open(path:baudRate:)``.
func openDescriptor(_ path: String, _ flags: CInt) -> CInt {
    open(path, flags)
}

/// `close(2)`, at file scope so that the name is not taken for a link's `close(farewell:)`.
func closeDescriptor(_ descriptor: CInt) {
    _ = close(descriptor)
}
