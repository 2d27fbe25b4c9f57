import Foundation
import Testing
import TesseraCore
import TesseraRun
@testable import tessera

/// How a config file is read: its bytes, its line endings and its keys, without a process.
@Suite struct ConfigFileTests {
    private func config(_ bytes: [UInt8]) throws -> ConfigFile {
        let url = try Harness.temporaryDirectory().appendingPathComponent("c.toml")
        try Data(bytes).write(to: url)
        return try ConfigFile(path: url.path, allowed: ["pattern", "generations", "workers", "connect-timeout"])
    }

    private func refusal(_ bytes: [UInt8]) throws -> String {
        do {
            _ = try config(bytes)
        } catch let error as TesseraError {
            return error.description
        }
        Issue.record("the config was accepted")
        return ""
    }

    @Test func crlfLinesReadAsLines() throws {
        let read = try config(Array("pattern = \"glider\"\r\ngenerations = 4\r\n\r\nworkers = 0\r\n".utf8))
        #expect(read["pattern"] == "glider" && read["generations"] == "4" && read["workers"] == "0")
    }

    @Test func aKeySetTwiceIsRefusedNamingBothLines() throws {
        let problem = try refusal(Array("generations = 4\nworkers = 0\n\ngenerations = 8\n".utf8))
        #expect(problem.contains("line 4: 'generations' is set again (first on line 1)"), "\(problem)")
        // The two spellings of one key are one key.
        let spelled = try refusal(Array("connect_timeout = 4\nconnect-timeout = 8\n".utf8))
        #expect(spelled.contains("line 2: 'connect-timeout' is set again (first on line 1)"), "\(spelled)")
    }

    @Test func bytesThatAreNotUTF8AreNamedAsSuch() throws {
        let problem = try refusal(Array("pattern = \"gl".utf8) + [0xFF] + Array("ider\"\n".utf8))
        #expect(problem.contains("is not UTF-8 text") && !problem.contains("check the path"), "\(problem)")
    }
}

/// A config the user got subtly wrong is one line on the real command line, and one
/// with Windows line endings runs.
@Suite struct ConfigFileCommandLineTests {
    private func run(_ bytes: [UInt8]) throws -> Harness.Result {
        let url = try Harness.temporaryDirectory().appendingPathComponent("c.toml")
        try Data(bytes).write(to: url)
        return try Harness.tessera(["run", "--config", url.path])
    }

    @Test func aCRLFConfigRuns() throws {
        let result = try run(Array("pattern = \"glider\"\r\ngenerations = 4\r\nworkers = 0\r\n".utf8))
        #expect(result.status == 0 && result.stdout.contains("glider: 4 generations"), "\(result.stderr)")
    }

    @Test func aDuplicateKeyIsOneLineAndStatus2() throws {
        let result = try run(Array("pattern = \"glider\"\ngenerations = 4\nworkers = 0\ngenerations = 8\n".utf8))
        #expect(result.status == 2 && result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1
                    && result.stderr.contains("line 4: 'generations' is set again (first on line 2)"), "\(result.stderr)")
    }

    @Test func aConfigThatIsNotUTF8IsOneLineAndStatus2() throws {
        let result = try run(Array("pattern = \"gl".utf8) + [0xFF] + Array("ider\"\n".utf8))
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("is not UTF-8 text")
                    && result.stderr.contains("save it as UTF-8"), "\(result.stderr)")
    }
}
