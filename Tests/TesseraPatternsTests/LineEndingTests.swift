import FoundationEssentials
import Testing
import TesseraCore
@testable import TesseraPatterns

/// Files from Windows (CR LF) read as the same patterns: Swift takes CR LF as one
/// Character, so a reader that splits on "\n" alone saw one line and read nothing.
@Suite struct LineEndingTests {
    @Test(arguments: [("g.cells", "!Name: g\n.O.\n..O\nOOO\n"), ("g.lif", "#Life 1.06\n0 0\n1 1\n-1 1\n"),
                      ("g.lif", "#Life 1.05\n#P -1 -1\n.*.\n..*\n***\n"), ("g.rle", "#C g\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n"),
                      ("g.mcl", "#MCell 4.20\n#GAME Generations\n#RULE 345/3/6\n#BOARD 20x10\n#L .A$2.B\n")])
    func crLFReadsAsLF(name: String, text: String) throws {
        let unix = try PatternFile.parse(text, path: name)
        let windows = try PatternFile.parse(text.replacingOccurrences(of: "\n", with: "\r\n"), path: name)
        #expect(unix.cells.population > 0)
        #expect(windows == unix)
    }
}
