import Testing
import TesseraCore
@testable import TesseraPatterns

@Suite struct MacrocellTests {
    /// bgolly 3.3's own output for a glider after 8 generations (HashLife, `-o g.mc`).
    static let glider = "[M2] (golly 3.3)\n#R B3/S23\n#G 8\n$...*$....*$..***$\n4 0 0 0 1\n"

    @Test func readsGollysFileWhereGollyPutsIt() throws {
        let pattern = try PatternFile.parse(Self.glider)
        // The glider that started with its box at (0, 0), two cells on.
        #expect(pattern.position?.x == 2 && pattern.position?.y == 2)
        #expect(pattern.cells.width == 3 && pattern.cells.height == 3 && pattern.cells.population == 5)
        #expect(pattern.cells[1, 0] && pattern.cells[2, 1] && pattern.cells[0, 2] && pattern.cells[1, 2] && pattern.cells[2, 2])
        #expect(pattern.generation == 8)
        #expect(pattern.rule == .life && pattern.board == nil)
    }

    @Test func writesWhatGollyWrites() throws {
        let pattern = try PatternFile.parse(Self.glider)
        let text = Macrocell.string(for: pattern.cells, left: 2, top: 2, rule: "B3/S23", generation: 8)
        #expect(text.split(separator: "\n").dropFirst() == Self.glider.split(separator: "\n").dropFirst())
    }

    @Test(arguments: [(0, 0), (-1, -1), (1_000_003, -2_000_001), (-(1 << 40), 1 << 41)])
    func roundTripsAnywhere(x: Int, y: Int) throws {
        let cells = try Soup(density: 0.3, seed: 9).cells(x: 0, y: 0, width: 70, height: 45)
        let text = Macrocell.string(for: cells, left: x, top: y, rule: "B36/S23:T100,100", generation: 12)
        let back = try Macrocell.parse(text)
        let tight = cells.liveBounds!
        #expect(back.position?.x == x + tight.x && back.position?.y == y + tight.y)
        #expect(back.cells == cells.cropped(x: tight.x, y: tight.y, width: tight.width, height: tight.height))
        #expect(back.rule == (try Rule(parsing: "B36/S23")) && back.board?.width == 100 && back.generation == 12)
    }

    /// Patterns a trillion cells apart load as parts cut to their live cells, and a
    /// file written of them reads back the same: nothing the size of the span is made.
    @Test func partsFarApartLoadEachInAGridOfItsOwn() throws {
        let glider = try RLE.parse("x = 3, y = 3\nbo$2bo$3o!").cells
        let acorn = try RLE.parse("x = 7, y = 3\nbo$3bo$2o2b3o!").cells
        let parts = [PlacedCells(cells: glider, left: 1 << 40, top: -(1 << 40)), PlacedCells(cells: acorn, left: -3, top: 1),
                     PlacedCells(cells: glider, left: -(1 << 45), top: 77)]
        let text = Macrocell.string(for: parts, rule: "B3/S23", generation: 5)
        let back = try Macrocell.parse(text)
        #expect(back.cells.width == 0 && back.generation == 5)
        #expect(Self.cells(of: back.parts) == Self.cells(of: parts))
        let area = back.parts.reduce(0) { $0 + $1.cells.width * $1.cells.height }
        #expect(area <= 48)
        #expect(Macrocell.string(for: back.parts, rule: "B3/S23", generation: 5) == text)
        // A chain 10000 cells long: the parts of its 512-cell squares, not a grid of its span.
        let chain = [parts[1]] + stride(from: 400, through: 10000, by: 400).map { PlacedCells(cells: glider, left: $0, top: 0) }
        let near = try Macrocell.parse(Macrocell.string(for: chain, rule: "B3/S23", generation: 0))
        #expect(Self.cells(of: near.parts) == Self.cells(of: chain))
        #expect(near.parts.allSatisfy { $0.cells.width <= 512 && $0.cells.height <= 512 })
    }

    struct Cell: Hashable { let x: Int, y: Int }

    static func cells(of parts: [PlacedCells]) -> Set<Cell> {
        var cells = Set<Cell>()
        for part in parts {
            for y in 0..<part.cells.height {
                for x in 0..<part.cells.width where part.cells[x, y] { cells.insert(Cell(x: part.left + x, y: part.top + y)) }
            }
        }
        return cells
    }

    @Test func anEmptyBoardIsAFileWithNoNodes() throws {
        let text = Macrocell.string(for: BitGrid(width: 10, height: 10), left: 0, top: 0, rule: "B3/S23", generation: 0)
        #expect(try Macrocell.parse(text).cells.population == 0)
    }

    @Test(arguments: [
        ("[M2]\n4 0 0 0 1\n", "not an earlier node"),
        ("[M2]\n$*$\n5 0 0 0 1\n", "of level 3, not 4"),
        ("[M2]\n.........*$\n4 0 0 0 1\n", "8x8"),
        ("[M2]\n$x$\n", "'x'"),
        ("[M2]\n3 0 0 0 0\n", "level 3"),
        ("[M2]\n#G soon\n", "bad generation"),
        ("x = 1, y = 1\no!\n", "[M2]"),
    ])
    func badFilesSayWhatIsWrong(text: String, complaint: String) {
        do {
            _ = try Macrocell.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect("\(error)".contains(complaint), "\(error)")
        }
    }
}
