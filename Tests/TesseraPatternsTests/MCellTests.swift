import Foundation
import Testing
import TesseraCore
@testable import TesseraPatterns

@Suite struct MCellTests {
    /// Written from the board's top-left, then moved by ((W+1-w)/2, (H+1-h)/2), as
    /// Golly's reader does: `#BOARD 20x10` with `..AAA$$.A` lands at (-1,-1)..(2,1).
    @Test func placesCellsAsGollyDoes() throws {
        let text = "#MCell 4.20\r\n#GAME Larger than Life\r\n#RULE R1,C0,M0,S2..3,B3..3,NM\r\n#BOARD 20x10\r\n#WRAP 1\r\n#L ..AAA$$.A\r\n"
        let pattern = try PatternFile.parse(text, path: "p.mcl")
        #expect(pattern.rule?.description == "R1,C0,M0,S2..3,B3..3,NM")
        #expect(pattern.board == BoardShape(width: 20, height: 10, topology: .torus))
        #expect(pattern.position?.x == -1 && pattern.position?.y == -1)
        #expect(pattern.cells.width == 4 && pattern.cells.height == 3 && pattern.cells.population == 4)
        #expect(pattern.cells[1, 0] && pattern.cells[2, 0] && pattern.cells[3, 0] && pattern.cells[0, 2])
    }

    /// `#L` lines go on where the last left off; counts, `.` and `$` as in MCell; a
    /// state past one is one; a cell off a Larger than Life grid is lost.
    @Test func linesGoOnAndCellsOffTheGridAreLost() throws {
        let text = "#MCell 4.20\n#GAME Larger than Life\n#RULE R1,C0,M0,S2..3,B3..3,NM\n#BOARD 20x10\n#L 2A\n#L bB$\n#L 25.A\n"
        let pattern = try PatternFile.parse(text, path: "p.mcl")
        #expect(pattern.board == BoardShape(width: 20, height: 10, topology: .plane))
        #expect(pattern.cells.population == 3)
        #expect(throws: TesseraError.self) { try PatternFile.parse("#MCell 4.20\n#RULE B3/S23\n#L 2o\n", path: "p.mcl") }
    }

    /// Golly's own files, where bgolly 3.3 puts them (its `edges` at generation 0).
    @Test(arguments: [("Bosco.mcl", -17, -21, 69), ("Blinkers.mcl", -22, -7, 296), ("Gnarl.mcl", -1, -1, 2), ("Waffle.mcl", -11, -11, 437)])
    func gollysFilesLandWhereGollyPutsThem(name: String, left: Int, top: Int, population: Int) throws {
        let path = "/usr/share/golly/Patterns/Larger-than-Life/\(name)"
        guard FileManager.default.fileExists(atPath: path) else { return }
        let pattern = try PatternFile.load(path)
        let live = try #require(pattern.cells.liveBounds)
        #expect(pattern.position!.x + live.x == left && pattern.position!.y + live.y == top)
        #expect(pattern.cells.population == population)
    }
}
