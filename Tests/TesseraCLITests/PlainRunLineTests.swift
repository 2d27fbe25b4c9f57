import ArgumentParser
import Testing
import TesseraCore
import TesseraRun
@testable import tessera

/// `run`'s common line is read without swift-argument-parser (PlainRunLine): every
/// line read that way must make the very request the parser's command makes, and every
/// other line must be left to the parser.
@Suite struct PlainRunLineTests {
    /// The request of the parser's command, validated as the parser validates it.
    private func parsed(_ arguments: [String]) throws -> RunRequest {
        let command = try #require(try Tessera.parseAsRoot(arguments) as? RunCommand)
        return command.request
    }

    /// The request read without the parser, or nil where the line is the parser's.
    private func readWithoutParser(_ arguments: [String]) -> RunRequest? {
        PlainRunLine(arguments)?.request
    }

    @Test func theLinesScriptsRunAreReadWithoutTheParser() throws {
        for line in [["run", "acorn.rle", "--generations", "5206"],
                     ["run", "gun.rle", "--generations", "100000", "--output", "out.rle"],
                     ["run", "--output", "out.mc", "rabbits.lif", "--algorithm", "hashlife", "--report"],
                     ["run", "rpentomino"]] {
            let plain = try #require(readWithoutParser(line), "\(line)")
            #expect(plain == (try parsed(line)), "\(line)")
        }
    }

    @Test func everyOtherLineIsLeftToTheParser() {
        for line in [["run"], ["run", "--generations", "5"], ["run", "a", "b"], ["run", "a", "--generations", "-5"],
                     ["run", "a", "--generations", "+5"], ["run", "a", "--generations=5"], ["run", "a", "--generations"],
                     ["run", "a", "--generations", "5", "--generations", "6"], ["run", "a", "--output", "--report"],
                     ["run", "a", "--algorithm", "quick"], ["run", "a", "--workers", "2"], ["run", "a", "--help"],
                     ["run", "a", "-h"], ["run", "-"], ["run", "--", "a"], ["run", ""], ["view", "a"],
                     ["run", "a", "--generations", "18446744073709551616"], ["run", "a", "--report", "--report"]] {
            #expect(readWithoutParser(line) == nil, "\(line)")
        }
    }

    /// Seeded random lines over the plain line's words and their near misses.
    @Test func randomLinesReadEitherWayGiveTheSameCommand() throws {
        let words = ["acorn", "x.rle", "help", "--generations", "0", "5", "18446744073709551615", "18446744073709551616", "-5",
                     "+5", "5x", "", "-", "--", "--output", "out.rle", "--algorithm", "hashlife", "tiles", "auto", "bogus",
                     "--report", "--workers", "2", "--rule", "B3/S23", "--generations=5", "-h"]
        var generator = SplitMix64(seed: 7)
        var read = 0
        for _ in 0..<2000 {
            let line = ["run"] + (0..<Int.random(in: 0...6, using: &generator)).map { _ in words.randomElement(using: &generator)! }
            guard let plain = readWithoutParser(line) else { continue }
            read += 1
            #expect(plain == (try parsed(line)), "\(line)")
        }
        #expect(read > 50, "the random lines should reach the plain reader often")
    }
}
