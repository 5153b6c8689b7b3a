import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SyntheticGPS
import Foundation
import Hummingbird
import Testing

@testable import LocationServer

@Suite("Starting with or without clients")
struct ClientStartTests {
    @Test("beyond loopback without --tokens the server refuses to start, saying how to configure them")
    func refusedBeyondLoopback() throws {
        for host in ["0.0.0.0", "::", "192.168.1.2"] {
            #expect {
                _ = try LocationServerCommand.parse(["--host", host])
            } throws: { error in
                LocationServerCommand.message(for: error).contains("without --tokens the server would give the device's position to anyone")
                    && LocationServerCommand.message(for: error).contains("--tokens FILE, one client a line: TOKEN CLIENT PERMISSION")
            }
        }
        _ = try LocationServerCommand.parse(["--host", "0.0.0.0", "--tokens", "clients.txt"])
        _ = try LocationServerCommand.parse(["--host", "::1"])
        _ = try LocationServerCommand.parse([])
    }

    @Test("--unix-socket needs no token file, takes a path a socket can have, and replaces only a socket")
    func unixSocketOption() throws {
        let directory = FileManager.default.temporaryDirectory.path
        let path = directory + "/location-server-option-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let command = try LocationServerCommand.parse(["--unix-socket", path, "--host", "0.0.0.0"])
        #expect(try command.bindAddress() == .unixDomainSocket(path: path))
        #expect(try LocationServerCommand.parse([]).bindAddress() == .hostname("127.0.0.1", port: 8080))
        #expect(throws: (any Error).self) { _ = try LocationServerCommand.parse(["--unix-socket", String(repeating: "s", count: 108)]) }
        #expect(throws: (any Error).self) { _ = try LocationServerCommand.parse(["--unix-socket", ""]) }
        // A regular file there is not the server's to remove.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        #expect(throws: (any Error).self) { _ = try command.bindAddress() }
        #expect(FileManager.default.contents(atPath: path) == Data("keep".utf8))
    }

    @Test("--unix-socket in a directory this user may not write is refused at start, naming the directory")
    func unixSocketInAnUnwritableDirectory() throws {
        // A process's /proc directory: no user, root included, may create a file there.
        #expect {
            _ = try LocationServerCommand.parse(["--unix-socket", "/proc/self/location-server.sock"])
        } throws: { error in
            LocationServerCommand.message(for: error).contains("the directory /proc/self may not be written by this user")
        }
    }

    @Test("--host as an IPv6 literal in brackets, as a URL writes it, is loopback and is bound without the brackets")
    func bracketedIPv6Host() throws {
        #expect(try LocationServerCommand.parse(["--host", "[::1]"]).bindAddress() == .hostname("::1", port: 8080))
        #expect(try LocationServerCommand.parse(["--host", "::1"]).bindAddress() == .hostname("::1", port: 8080))
    }

    @Test("without a token file a SIGHUP is trapped and ignored, not the end of the server that is its default action")
    func sighupWithoutTokens() async throws {
        let directory = ClientDirectory.open(logger: ClientTestSupport.silent)
        let ended = NIOLockedValueBox(false)
        let running = Task {
            try? await directory.run()
            ended.withLockedValue { $0 = true }
        }
        defer { running.cancel() }
        // Trapped once the signal's action is no longer the default, which would end the test process.
        func trapped() -> Bool {
            var action = sigaction()
            sigaction(SIGHUP, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_DFL, to: Int.self)
        }
        for _ in 0..<1000 where !trapped() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(trapped(), "SIGHUP trapped")
        // With the default action the process would end here.
        #expect(raise(SIGHUP) == 0)
        #expect(!ended.withLockedValue { $0 }, "it goes on trapping")
    }

    @Test("--unix-socket refuses the socket a running server listens on, and replaces one left by a run that ended")
    func unixSocketInUse() async throws {
        let path = FileManager.default.temporaryDirectory.path + "/location-server-live-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(unixDomainSocketPath: path).get()
        let command = try LocationServerCommand.parse(["--unix-socket", path])
        #expect {
            _ = try command.bindAddress()
        } throws: { error in
            "\(error)".contains("a running server listens there")
        }
        // A socket we may not connect to (its mode), or whose backlog is full, is taken as in use too; only a
        // refusal or no file says nothing listens.
        for number in [EACCES, EAGAIN, EPERM] { #expect(UnixSocketFile.isInUse(afterConnectFailedWith: number), "errno \(number)") }
        for number in [ECONNREFUSED, ENOENT] { #expect(!UnixSocketFile.isInUse(afterConnectFailedWith: number), "errno \(number)") }
        try await listener.close().get()
        #expect(try command.bindAddress() == .unixDomainSocket(path: path))
    }

    @Test("a rate limit is a number of requests a second more than 0; a burst needs a limit")
    func rateLimitOptions() throws {
        #expect(try LocationServerCommand.parse(["--client-rate-limit", "20"]).rateLimit() == RateLimit(rate: 20, burst: 20))
        #expect(try LocationServerCommand.parse(["--client-rate-limit", "0.5"]).rateLimit() == RateLimit(rate: 0.5, burst: 1))
        for arguments in [["--client-rate-limit", "0"], ["--client-rate-limit", "nan"], ["--client-rate-burst", "5"],
                          ["--client-rate-limit", "5", "--client-rate-burst", "0.5"]] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try LocationServerCommand.parse(arguments) }
        }
    }

    @Test("a limit of requests open at once is 1 or more")
    func maxOpenOption() throws {
        #expect(try LocationServerCommand.parse(["--client-max-open", "64"]).clientMaxOpen == 64)
        #expect(try LocationServerCommand.parse([]).clientMaxOpen == nil)
        for value in ["0", "-3", "many"] {
            #expect(throws: (any Error).self, "\(value)") { _ = try LocationServerCommand.parse(["--client-max-open", value]) }
        }
    }

    @Test("the README's token file reads as the clients it describes")
    func readmeTokenFile() throws {
        let text = ReadmeExampleTests.readmes[1].text
        let start = try #require(text.range(of: "```\n# TOKEN"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let table = try TokenFile.parse(String(text[text.index(start.lowerBound, offsetBy: 4)..<end.lowerBound]), path: "README")
        let clients = Dictionary(uniqueKeysWithValues: table.clients.values.map { ($0.name, $0) })
        #expect(clients["fleet"]?.permission == .precise && clients["fleet"]?.isAdmin == true)
        #expect(clients["weather"]?.permission == .approximate && clients["weather"]?.expires != nil)
        #expect(clients["kiosk"]?.permission == ClientPermission.none)
        #expect(clients.count == 3)
        // Its lines for local users, on the Unix socket.
        let users = try #require(text.range(of: "```\n# a token file's lines for local users"))
        let usersEnd = try #require(text.range(of: "```", range: users.upperBound..<text.endIndex))
        let local = try TokenFile.parse(String(text[text.index(users.lowerBound, offsetBy: 4)..<usersEnd.lowerBound]), path: "README")
        #expect(local.users == [1000: Client(name: "alice", permission: .precise), 1001: Client(name: "kiosk", permission: .approximate)])
    }
}
