import Foundation
import Testing
import TesseraCore
import Glibc
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

    /// A board or a box past what can be held is refused in one line, not trapped or
    /// allocated: sides past Golly's ints, runs that spread cells 2^31 apart.
    @Test(arguments: ["#MCell 4.20\n#RULE 345/3/6\n#BOARD 9223372036854775807x1\n#L A\n",
                      "#MCell 4.20\n#RULE 345/3/6\n#L A2147483647.A2147483647$A\n",
                      "#MCell 4.20\n#RULE 345/3/6\n#L 99999999999A\n"])
    func hugeBoardsAndBoxesAreRefused(text: String) {
        #expect(throws: TesseraError.self) { try PatternFile.parse(text, path: "p.mcl") }
    }

    /// A run is held as one, however long, and a two-state box on the unbounded plane
    /// past the RLE reader's whole grid is held in blocks of its live cells: a million
    /// cells in a row, and two cells 2^31 apart, each read in a moment.
    @Test func longRunsAndFarApartCellsAreReadAsTheirLiveCells() throws {
        let row = try PatternFile.parse("#MCell 4.20\n#RULE B3/S23\n#L 1000000A$3A\n", path: "p.mcl")
        #expect(row.hasParts && row.extent?.width == 1_000_000 && row.extent?.height == 2)
        #expect(row.parts.reduce(0) { $0 + $1.cells.population } == 1_000_003)
        let apart = try PatternFile.parse("#MCell 4.20\n#RULE B3/S23\n#L A2147483647.A\n", path: "p.mcl")
        #expect(apart.parts.map(\.left) == [0, 2_147_483_648] && apart.parts.allSatisfy { $0.cells.population == 1 })
    }

    /// A run that crosses a Larger than Life grid's edge keeps its cells on the grid.
    @Test func aRunIsCutAtTheGridsEdge() throws {
        let text = "#MCell 4.20\n#GAME Larger than Life\n#RULE R1,C0,M0,S2..3,B3..3,NM\n#BOARD 20x10\n#L 30A$5.3A\n"
        let pattern = try PatternFile.parse(text, path: "p.mcl")
        #expect(!pattern.hasParts && pattern.cells.population == 23)
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

@Suite struct MultiStateRLETests {
    /// Cells of many states written as Golly writes them, read back the same: `.`,
    /// `A`..`X`, `pA`.. past 24, runs, and lines of at most 70 characters.
    @Test func writesAndReadsBackEveryState() throws {
        let rule = try Rule(parsing: "345/3/200")
        var states = StateGrid(width: 130, height: 9, states: 200)
        var generator = SplitMix64(seed: 3)
        for y in 0..<9 { for x in 0..<130 where generator.next() % 3 == 0 { states[x, y] = Int(generator.next() % 200) } }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-states-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.rle").path
        let output = try BoardOutput(path: path, shape: BoardShape(width: 0, height: 0, topology: .infinite), rule: rule, name: "s")
        try output.write(states: states, left: -7, top: 4, rule: rule, generation: 12)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 70 })
        #expect(text.contains("pA") || text.contains("qA") || text.contains("p"))
        let read = try PatternFile.load(path)
        #expect(read.rule == rule && read.generation == 12)
        let box = try #require(states.occupied.liveBounds)
        #expect(read.position?.x == -7 + box.x && read.position?.y == 4 + box.y)
        #expect(read.states == states.cropped(x: box.x, y: box.y, width: box.width, height: box.height))
    }

    /// The same as a macrocell: nodes of level 1 hold four cells' states, and the cells
    /// come back in their states, where they were, from any corner of the plane.
    @Test(arguments: [(-7, 4), (1000, -3), (-(1 << 40), 1 << 40)])
    func writesAndReadsBackAMacrocellOfStates(left: Int, top: Int) throws {
        let rule = try Rule(parsing: "345/3/200")
        var states = StateGrid(width: 70, height: 21, states: 200)
        var generator = SplitMix64(seed: 4)
        for y in 0..<21 { for x in 0..<70 where generator.next() % 3 == 0 { states[x, y] = Int(generator.next() % 200) } }
        let text = Macrocell.string(forStates: states, left: left, top: top, rule: "\(rule)", generation: 12)
        #expect(text.split(separator: "\n").contains { $0.hasPrefix("1 ") })
        let read = try Macrocell.parse(text)
        #expect(read.rule == rule && read.generation == 12)
        let box = try #require(states.occupied.liveBounds)
        #expect(read.position?.x == left + box.x && read.position?.y == top + box.y)
        #expect(read.states == states.cropped(x: box.x, y: box.y, width: box.width, height: box.height))
        #expect(read.cells == states.occupied.cropped(x: box.x, y: box.y, width: box.width, height: box.height))
    }

    /// A macrocell of states with a state past its rule's, or level-1 nodes under a
    /// two-state rule, is refused.
    @Test func aMacrocellOfStatesPastItsRuleIsRefused() {
        #expect(throws: TesseraError.self) { try Macrocell.parse("[M2] (golly 3.3)\n#R 345/3/4\n1 0 5 0 0\n2 1 0 0 0\n") }
        #expect(throws: TesseraError.self) { try Macrocell.parse("[M2] (golly 3.3)\n#R B3/S23\n1 0 1 0 0\n2 1 0 0 0\n") }
        #expect(throws: TesseraError.self) { try Macrocell.parse("[M2] (golly 3.3)\n#R 345/3/4\n1 0 1 0 0\n3 1 0 0 0\n") }
    }

    /// A state past what the rule holds is refused, as Golly refuses it.
    @Test func aStatePastTheRuleIsRefused() {
        #expect(throws: TesseraError.self) { try RLE.parse("x = 2, y = 1, rule = 345/3/4\nAD!\n") }
        #expect(throws: TesseraError.self) { try RLE.parse("x = 2, y = 1, rule = B3/S23\noB!\n") }
    }
}
