import Foundation
import Testing

@testable import LocationServer

@Suite("The token file")
struct TokenFileTests {
    static let fleet = "fleet-token-0123456789abcdef"
    static let weather = "weather-token-0123456789abcdef"

    @Test("each line names a client, its permission, admin and expiry; comments and blank lines are skipped")
    func parses() throws {
        let text = """
            # location-server clients
            \(Self.fleet)  fleet  precise  admin

            \(Self.weather)\tweather\tapproximate expires=2027-01-31T00:00:00Z
            blocked-token-0123456789abcdef blocked none\r
            """
        let table = try TokenFile.parse(text, path: "tokens")
        #expect(table.clients[Self.fleet] == Client(name: "fleet", permission: .precise, isAdmin: true))
        #expect(table.clients[Self.weather]?.permission == .approximate)
        #expect(table.clients[Self.weather]?.expires == Date(timeIntervalSince1970: 1_801_353_600))
        #expect(table.clients["blocked-token-0123456789abcdef"] == Client(name: "blocked", permission: .none))
        #expect(table.clientCount == 3)
    }

    @Test("a uid:N line names a local user's client (the Unix socket's peer); a bad or repeated one names its line")
    func users() throws {
        let table = try TokenFile.parse(
            "uid:1000 alice approximate\nuid:0 root precise admin expires=2027-01-31T00:00:00Z\n\(Self.fleet) alice approximate", path: "tokens")
        #expect(table.lookup(user: 1000, at: Date(timeIntervalSince1970: 0)) == .client(Client(name: "alice", permission: .approximate)))
        #expect(table.lookup(user: 0, at: Date(timeIntervalSince1970: 1_801_353_600)) == .expired(table.users[0]!))
        #expect(table.lookup(user: 1001, at: Date()) == .unknown)
        #expect(table.lookup(Self.fleet, at: Date()) == .client(Client(name: "alice", permission: .approximate)))
        #expect(table.clientCount == 2)
        for (text, line, message) in [
            ("uid:alice alice precise", 1, "a local user is uid:N"), ("uid:-1 alice precise", 1, "a local user is uid:N"),
            ("uid:4294967296 alice precise", 1, "a local user is uid:N"),
            ("uid:7 alice precise\nuid:7 bob precise", 2, "user id 7 is on line 1 too"),
        ] {
            #expect {
                _ = try TokenFile.parse(text, path: "tokens")
            } throws: { error in
                guard let error = error as? TokenFileError else { return false }
                return error.line == line && error.message.contains(message)
            }
        }
    }

    @Test("a token is refused from its expiry on; an unknown token is unknown")
    func lookup() throws {
        let table = try TokenFile.parse("\(Self.weather) weather approximate expires=2027-01-31T00:00:00Z", path: "tokens")
        let expiry = Date(timeIntervalSince1970: 1_801_353_600)
        #expect(table.lookup(Self.weather, at: expiry - 1) == .client(table.clients[Self.weather]!))
        #expect(table.lookup(Self.weather, at: expiry) == .expired(table.clients[Self.weather]!))
        #expect(table.lookup(Self.fleet, at: expiry) == .unknown)
    }

    @Test(
        "a bad line is an error naming the file, the line and what is expected",
        arguments: [
            ("\(fleet) fleet", "tokens line 2: expected TOKEN CLIENT PERMISSION [admin] [expires=DATE], found 2 fields"),
            ("short fleet precise", "tokens line 2: the token must be 16 to 512 characters"),
            ("\(fleet) fl/eet precise", "tokens line 2: client 'fl/eet': a name is 1 to 64 characters"),
            ("\(fleet) fleet exact", "tokens line 2: permission 'exact': expected precise, approximate or none"),
            ("\(fleet) fleet precise root", "tokens line 2: 'root': expected admin or expires=DATE"),
            ("\(fleet) fleet precise expires=2027-01-31", "tokens line 2: expires=2027-01-31: expected an ISO 8601 date and time"),
            ("\(weather) fleet none", "tokens line 2: client 'fleet' has another permission on line 1"),
            ("\(fleet) other precise", "tokens line 2: the same token as line 1"),
            ("\(weather) weather approximate admin", "tokens line 2: admin sees every client's fences and their events: it needs permission precise"),
            ("\(weather) local precise", "tokens line 2: client 'local': local is the name of the server's one client without a token file"),
            ("\(weather) uid-1000 precise", "tokens line 2: client 'uid-1000': uid-1000 is the name the server gives user 1000"),
            ("uid:1001 uid-1000 precise", "tokens line 2: client 'uid-1000': uid-1000 is the name the server gives user 1000"),
        ])
    func badLine(line: String, message: String) {
        let text = "\(Self.fleet) fleet precise\n\(line)\n"
        #expect {
            _ = try TokenFile.parse(text, path: "tokens")
        } throws: { error in
            "\(error)".hasPrefix("--tokens \(message)")
        }
    }

    @Test("an error names a field that could be a token (a second token on the line) by its length only: errors are logged")
    func secretsStayOutOfErrors() {
        for line in ["\(Self.fleet) fleet precise \(Self.weather)", "\(Self.fleet) fleet \(Self.weather)", "\(Self.fleet) fleet/x \(Self.weather) precise"] {
            #expect {
                _ = try TokenFile.parse(line + "\n", path: "tokens")
            } throws: { error in
                !"\(error)".contains(Self.weather) && "\(error)".contains("\(Self.weather.count) characters, not shown")
                    || "\(error)".contains("client 'fleet/x'") && !"\(error)".contains(Self.weather)
            }
        }
    }

    @Test("a user's uid:N line may keep the name uid-N the server gave it without a token file; names like it that are no user's are free")
    func reservedNames() throws {
        let table = try TokenFile.parse("uid:1000 uid-1000 precise\n\(Self.fleet) uid-01 precise\n\(Self.weather) uid-x approximate\n", path: "tokens")
        #expect(table.lookup(user: 1000, at: .distantPast) == .client(Client(name: "uid-1000", permission: .precise)))
        #expect(table.clients[Self.fleet]?.name == "uid-01" && table.clients[Self.weather]?.name == "uid-x")
    }

    @Test("a file saved with Windows line endings is read line by line, not as one line")
    func windowsLineEndings() throws {
        let text = "# location-server clients\r\n\(Self.fleet) fleet precise admin\r\n\(Self.weather) weather approximate\r\n"
        let table = try TokenFile.parse(text, path: "tokens")
        #expect(table.clientCount == 2, "the comment on the first line hid every client")
        #expect(table.clients[Self.fleet] == Client(name: "fleet", permission: .precise, isAdmin: true))
        #expect(table.clients[Self.weather]?.permission == .approximate)
        let bad = try #require(throws: TokenFileError.self) { try TokenFile.parse("\(Self.fleet) fleet exact\r\n\(Self.weather) weather precise\r\n", path: "tokens") }
        #expect(bad.line == 1 && !bad.message.contains(Self.weather), "the next line's token is not read into the error: \(bad.message)")
    }

    @Test("a client may have several tokens with one permission; an empty file names no client")
    func rotationAndEmpty() throws {
        let table = try TokenFile.parse("\(Self.fleet) fleet precise\n\(Self.weather) fleet precise\n", path: "tokens")
        #expect(table.clients.count == 2 && table.clientCount == 1)
        #expect(try TokenFile.parse("# nobody yet\n", path: "tokens").clients.isEmpty)
    }

    @Test("a file that cannot be read is an error naming it")
    func unreadable() throws {
        #expect(throws: TokenFileError.self) { try TokenFile.load(path: "/nonexistent/location-server-tokens") }
        // An endless file is refused after 1 MiB, not read into memory for ever.
        let endless = try #require(throws: TokenFileError.self) { try TokenFile.load(path: "/dev/zero") }
        #expect(endless.message.contains("larger than 1 MiB"))
    }

    @Test("loopback addresses are the only ones that need no token file")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"] { #expect(ListenScope.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.168.1.2", "example.org", "127.0.0.256", "128.0.0.1"] { #expect(!ListenScope.isLoopback(host), "\(host)") }
    }
}
