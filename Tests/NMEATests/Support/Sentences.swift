import NMEA

/// Builds test input.
enum Sentences {
    /// `"$" + body + "*HH\r\n"` with the correct checksum.
    static func nmea(_ body: String) -> String {
        let sum = NMEASentenceParser.checksum(of: body.utf8)
        return "$\(body)*\(hex(sum))\r\n"
    }

    /// `"$" + body + "*HH\r\n"` with a checksum that is wrong by one.
    static func corrupted(_ body: String) -> String {
        let sum = NMEASentenceParser.checksum(of: body.utf8) ^ 0x01
        return "$\(body)*\(hex(sum))\r\n"
    }

    /// Two upper-case hex digits.
    static func hex(_ value: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
    }

    /// A three-epoch stream of a GPS receiver moving north, GGA+GSA+GSV+RMC+VTG+GST per epoch.
    static let movingReceiver: String = {
        var text = ""
        for second in 0..<3 {
            let time = "1234\(50 + second).00"
            let latitude = "4807.0\(38 + second)"
            text += nmea("GPGGA,\(time),\(latitude),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            text += nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
            text += nmea("GPGSV,2,1,05,04,45,120,42,05,30,200,38,09,10,310,,12,60,045,47")
            text += nmea("GPGSV,2,2,05,24,05,090,20")
            text += nmea("GPRMC,\(time),A,\(latitude),N,01131.000,E,022.4,084.4,230394,003.1,W,A")
            text += nmea("GPVTG,084.4,T,,M,022.4,N,041.5,K,A")
            text += nmea("GPGST,\(time),1.2,2.0,1.0,45.0,1.5,1.1,2.6")
        }
        return text
    }()

    /// Decodes a whole input at once and returns the epochs and the decoder.
    static func decode(_ text: String, decoder: NMEAStreamDecoder = NMEAStreamDecoder()) -> ([NMEAEpoch], NMEAStreamDecoder) {
        var decoder = decoder
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8)) { epochs.append($0) }
        decoder.finish { epochs.append($0) }
        return (epochs, decoder)
    }
}
