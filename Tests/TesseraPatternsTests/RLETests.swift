import Foundation
import Testing
import TesseraCore
@testable import TesseraPatterns

@Suite struct RLETests {
    /// A file read a piece at a time (a header after more than the first read's worth of
    /// comments, a body of several megabytes) gives the same pattern as its whole text.
    @Test func largeFileIsReadInPiecesToTheSamePattern() throws {
        let shape = BoardShape(width: 3000, height: 2000, topology: .torus)
        let board = try Soup(density: 0.4, seed: 3).cells(x: shape.left, y: shape.top, width: shape.width, height: shape.height)
        var encoder = RLE.Encoder(shape: shape, rule: .life, generation: 9)
        let comments = String(repeating: "#C a long comment line to push the header past the first read\n", count: 2000)
        let text = comments + encoder.encode(board)
        #expect(text.utf8.count > 3 << 20)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-big-\(getpid()).rle").path
        defer { unlink(path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try PatternFile.load(path)
        #expect(loaded == (try RLE.parse(text)))
        #expect(loaded.cells == board && loaded.generation == 9 && loaded.comments.count == 2000)
        // Cut short, it is refused the same way as text.
        try String(text.dropLast(200)).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TesseraError.self) { try PatternFile.load(path) }
    }

    @Test func readsGollyExtendedRLE() throws {
        let text = """
            #N Glider
            #C A comment
            #CXRLE Pos=3,-2 Gen=1234567890123
            x = 3, y = 3, rule = B36/S23:T20,10
            bo$2bo$
            3o!
            anything after the end is ignored
            """
        let pattern = try RLE.parse(text)
        #expect(pattern.position?.x == 3 && pattern.position?.y == -2)
        #expect(pattern.generation == 1_234_567_890_123)
        #expect(pattern.rule?.description == "B36/S23")
        #expect(pattern.board == BoardShape(width: 20, height: 10, topology: .torus))
        #expect(pattern.cells.population == 5)
        #expect(pattern.cells[1, 0] && pattern.cells[2, 1] && pattern.cells[0, 2])
        #expect(pattern.comments.count == 2)
    }

    @Test func countsBeforeDollarAndLongLines() throws {
        let row = String(repeating: "o", count: 200)
        let pattern = try RLE.parse("x = 200, y = 4\n\(row)3$\n199bo!")
        #expect(pattern.cells.population == 201)
        #expect(pattern.cells[199, 3] && !pattern.cells[0, 3] && pattern.cells[0, 0])
    }

    @Test func centresLikeGollyWithoutPos() throws {
        let pattern = try RLE.parse("x = 5, y = 3\nobo$2bo$3o!")
        #expect(pattern.position == nil)
        #expect(pattern.topLeft == (-2, -1))
    }

    @Test(arguments: [
        ("x = 3, y = 3\nbo$2bo$3o", "without '!'"),
        ("x = 3, y = 3\nbo$2bo$3q!", "unexpected character 'q'"),
        ("x = 2, y = 3\nbo$2bo$3o!", "beyond the declared size"),
        ("x = 3, y = 2\nbo$2bo$3o!", "beyond the declared size"),
        ("x = 3, y = 3\n0o!", "run count 0"),
        ("x = 3, y = 3\n99999999999o!", "too large"),
        ("bo$2bo$3o!", "no header"),
        ("x = 3, y = 3, rule = B3/S23:Q1\n3o!", "bounded grid"),
        ("x = -3, y = 3\n3o!", "valid x or y"),
        ("#CXRLE Pos=a,b\nx = 3, y = 3\n3o!", "bad Pos"),
        ("#CXRLE Pos=-9223372036854775808,0\nx = 3, y = 3\n3o!", "beyond ±2^62"),
        ("#CXRLE Pos=0,4611686018427387904\nx = 3, y = 3\n3o!", "beyond ±2^62"),
    ])
    func rejectsMalformedRLE(text: String, problem: String) {
        #expect { try RLE.parse(text) } throws: { error in
            let message = "\(error)"
            return message.contains(problem) && !message.contains("\n")
        }
    }

    /// A pattern fits a board when its live cells do: a grid wider than the board whose
    /// extra columns are dead fits, one whose live cells reach past the edge does not.
    @Test func aPatternFitsWhereItsLiveCellsFit() throws {
        let small = BoardShape(width: 10, height: 4, topology: .plane)
        #expect(try RLE.parse("x = 7, y = 3\nbo$3bo$2o2b3o!").checkFits(on: small) == ())
        // 20 columns declared from the board's left edge, 7 used: the dead ones hang over the right.
        #expect(try RLE.parse("#CXRLE Pos=-5,-2\nx = 20, y = 3\nbo$3bo$2o2b3o!").checkFits(on: small) == ())
        #expect { try RLE.parse("#CXRLE Pos=-1,-2\nx = 20, y = 3\nbo$3bo$2o2b3o!").checkFits(on: small) } throws: { error in
            "\(error)".contains("extends beyond the 10x4 board")
        }
        #expect { try RLE.parse("x = 7, y = 3\nbo$3bo$2o2b3o!").checkFits(on: BoardShape(width: 4, height: 4, topology: .plane)) } throws: { error in
            "\(error)".contains("extends beyond the 4x4 board")
        }
        // Held in blocks (a box past 2^24 cells), it is named as it was declared, not by a block.
        let wide = try RLE.parse("x = 5000, y = 5000, rule = B3/S23:T100,100\no$4998bo!")
        #expect(wide.hasParts)
        #expect { try wide.checkFits(on: wide.board!) } throws: { error in
            "\(error)".contains("the 5000x5000 pattern at (-2500,-2500) extends beyond the 100x100 board")
        }
    }

    /// Golly's reader centres a pattern that gives no place on a bounded grid where its
    /// declared box fits (a tube's open direction always does), else puts it at the
    /// grid's top-left corner; a place the file gives, and the unbounded plane, stay.
    @Test func aPatternIsPlacedOnAGridAsGollysReaderPlacesIt() throws {
        let pattern = try RLE.parse("x = 20, y = 3\nbo$3bo$2o2b3o!")
        #expect(pattern.placedAsGollyDoes(onGrid: 40, 10).position! == (-10, -1))
        #expect(pattern.placedAsGollyDoes(onGrid: 10, 4).position! == (-5, -2))
        #expect(pattern.placedAsGollyDoes(onGrid: 0, 4).position! == (-10, -1))
        #expect(pattern.placedAsGollyDoes(onGrid: 0, 2).position! == (0, -1))
        #expect(pattern.placedAsGollyDoes(onGrid: 0, 0).position == nil)
        let placed = try RLE.parse("#CXRLE Pos=3,4\nx = 20, y = 3\nbo$3bo$2o2b3o!")
        #expect(placed.placedAsGollyDoes(onGrid: 10, 4).position! == (3, 4))
    }

    @Test func writeThenReadGivesTheSameBoard() throws {
        let shape = BoardShape(width: 150, height: 37, topology: .plane)
        let board = try Soup(density: 0.3, seed: 7).cells(x: 0, y: 0, width: 150, height: 37)
        let text = RLE.string(for: board, shape: shape, rule: try Rule(parsing: "B36/S23"), generation: 99)
        #expect(text.hasPrefix("#CXRLE Pos=-75,-18 Gen=99\nx = 150, y = 37, rule = B36/S23:P150,37\n"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 70 })
        let pattern = try RLE.parse(text)
        #expect(pattern.cells == board)
        #expect(pattern.board == shape && pattern.generation == 99)
        #expect(pattern.topLeft == (shape.left, shape.top))
        #expect(try pattern.checkFits(on: shape) == ())
    }

    /// Golly counts the closing `!` against the 70 columns like any run (writepattern's
    /// AddRun): a last line already 70 long puts it on a line of its own. Written on
    /// the end of that line, blom's result after 23314 generations differed from bgolly's
    /// file in that one byte.
    @Test func theClosingBangWrapsAsGollyWrapsIt() throws {
        // 34 single cells with a gap after each, then two: 68 one-letter runs and "2o".
        var row = BitGrid(width: 70, height: 1)
        for x in stride(from: 0, to: 68, by: 2) { row[x, 0] = true }
        row[68, 0] = true
        row[69, 0] = true
        let shape = BoardShape(width: 70, height: 1, topology: .plane)
        let lines = RLE.string(for: row, shape: shape, rule: .life, generation: 0).split(separator: "\n")
        // Nor does Golly name generation 0 (writerle: Gen= only past zero).
        #expect(lines.first == "#CXRLE Pos=-35,0")
        #expect(lines.suffix(2) == [Substring(String(repeating: "ob", count: 34) + "2o"), "!"])
        #expect(try RLE.parse(lines.joined(separator: "\n")).cells == row)
    }

    @Test func emptyAndFullBoardsRoundTrip() throws {
        let shape = BoardShape(width: 70, height: 3, topology: .torus)
        for density in [0.0, 1.0] {
            let board = try Soup(density: density, seed: 1).cells(x: 0, y: 0, width: 70, height: 3)
            #expect(try RLE.parse(RLE.string(for: board, shape: shape, rule: .life, generation: 0)).cells == board)
        }
    }
}

@Suite struct OtherFormatTests {
    @Test func plaintextRoundTripAndPlacement() throws {
        let board = try Soup(density: 0.4, seed: 2).cells(x: 0, y: 0, width: 33, height: 9)
        let text = PlainText.string(for: board, name: "soup")
        let pattern = try PatternFile.parse(text, path: "x.cells")
        #expect(pattern.cells == board)
        #expect(pattern.topLeft == (0, 0))
    }

    @Test func plaintextRejectsStrangeCharacters() {
        #expect(throws: TesseraError.self) { try PlainText.parse("!c\n.O.\n.X.\n") }
    }

    @Test func life106UsesAbsoluteCoordinates() throws {
        let pattern = try PatternFile.parse("#Life 1.06\n0 0\n1 1\n-1 1\n")
        #expect(pattern.topLeft == (-1, 0))
        #expect(pattern.cells.width == 3 && pattern.cells.height == 2 && pattern.cells.population == 3)
        #expect(throws: TesseraError.self) { try PatternFile.parse("#Life 1.06\n0 zero\n") }
    }

    @Test func builtInPatternsParse() throws {
        let populations = ["blinker": 3, "beacon": 8, "octagon": 16, "glider": 5, "lwss": 9, "pulsar": 48,
                           "gosper": 36, "rpentomino": 5, "acorn": 7, "diehard": 7]
        for name in PatternLibrary.names {
            #expect(PatternLibrary.pattern(named: name)?.cells.population == populations[name], "\(name)")
        }
        #expect(PatternLibrary.pattern(named: "nonesuch") == nil)
    }

    @Test func patternOutsideTheBoardIsRefused() throws {
        let glider = PatternLibrary.pattern(named: "glider")!
        #expect(throws: TesseraError.self) {
            try glider.checkFits(on: BoardShape(width: 2, height: 2, topology: .torus))
        }
        var moved = glider
        moved.position = (100, 0)
        #expect(throws: TesseraError.self) {
            try moved.checkFits(on: BoardShape(width: 64, height: 64, topology: .torus))
        }
    }
}

/// A wide one-grid pattern is read as its live blocks, each where Golly puts it.
@Suite struct PatternGroupsTests {
    @Test func blocksABillionColumnsApartAreTwoParts() throws {
        // One grid 600002 cells wide (as a bounded grid's reader keeps it): a part for
        // each live block.
        var cells = BitGrid(width: 600_002, height: 2)
        for x in [0, 1, 600_000, 600_001] { (cells[x, 0], cells[x, 1]) = (true, true) }
        let blocks = Pattern(cells: cells, position: (-5, 7), rule: .life).inLiveBlocks()
        let far = [CellBounds(left: -5, top: 7, width: 2, height: 2), CellBounds(left: 599_995, top: 7, width: 2, height: 2)]
        #expect(blocks.parts.map(\.bounds) == far)
        #expect(blocks.parts.allSatisfy { $0.cells.population == 4 })
        // On the unbounded plane the reader finds the blocks itself (`SparseBlocks`), and
        // never holds the box.
        let read = try RLE.parse("#CXRLE Pos=-5,7\nx = 600002, y = 2, rule = B3/S23\n2o599998b2o$2o599998b2o!\n")
        #expect(read.cells.width == 0 && read.placedParts(on: .infinite).map(\.bounds) == far)
        let pattern = try RLE.parse("#CXRLE Pos=-5,7\nx = 1000000002, y = 2, rule = B3/S23\n2o999999998b2o$2o999999998b2o!\n")
        #expect(pattern.placedParts(on: .infinite).map(\.bounds) == [CellBounds(left: -5, top: 7, width: 2, height: 2),
                                                                    CellBounds(left: 999_999_995, top: 7, width: 2, height: 2)])
        // On a bounded grid the box up to 2^24 cells is one grid, as its engines take it.
        let bounded = try RLE.parse("x = 600002, y = 2, rule = B3/S23:P600002,2\n2o599998b2o$2o599998b2o!\n")
        #expect(bounded.cells.width == 600_002 && !bounded.hasParts)
    }

    /// Cut at block edges, the parts hold every cell, each once, as the reader's blocks do.
    @Test func aWideGridsBlocksHoldEveryCell() throws {
        var cells = BitGrid(width: 1_000_000, height: 1)
        for x in [62, 63, 64, 700_000, 700_001, 700_002] { cells[x, 0] = true }
        let blocks = Pattern(cells: cells, position: (0, 0), rule: .life).inLiveBlocks()
        #expect(blocks.parts.map(\.bounds) == [CellBounds(left: 62, top: 0, width: 2, height: 1), CellBounds(left: 64, top: 0, width: 1, height: 1),
                                              CellBounds(left: 700_000, top: 0, width: 3, height: 1)])
        let read = try RLE.parse("#CXRLE Pos=0,0\nx = 1000000, y = 1, rule = B3/S23\n62b3o699935b3o!\n")
        #expect(read.placedParts(on: .infinite) == blocks.parts)
        let small = try RLE.parse("x = 3, y = 1\n3o!\n")
        #expect(small.inLiveBlocks() == small)
    }
}

/// A declared box too large to hold whole is read into blocks where its cells are,
/// placed as Golly places the box.
@Suite struct SparseReadingTests {
    @Test func farCornersOfAHugeBoxAreTwoGroupsPlacedFromItsTopLeft() throws {
        let pattern = try RLE.parse("x = 200000, y = 200000, rule = B3/S23\nbo$2bo$3o199994$199997b3o!\n")
        #expect(pattern.cells.width == 0 && pattern.extent?.width == 200_000 && pattern.extent?.height == 200_000)
        #expect(pattern.parts.map(\.bounds) == [CellBounds(left: 0, top: 0, width: 3, height: 3),
                                               CellBounds(left: 199_997, top: 199_996, width: 3, height: 1)])
        // On the unbounded plane the box's top-left is at the origin; on a bounded grid it is centred.
        #expect(pattern.placedParts(on: .infinite).map(\.bounds) == pattern.parts.map(\.bounds))
        #expect(pattern.placedParts(on: .torus).map(\.bounds) == [CellBounds(left: -100_000, top: -100_000, width: 3, height: 3),
                                                                 CellBounds(left: 99_997, top: 99_996, width: 3, height: 1)])
        let placed = try RLE.parse("#CXRLE Pos=5,-6\nx = 200000, y = 200000\nbo$2bo$3o!\n")
        #expect(placed.placedParts(on: .torus).map(\.bounds) == [CellBounds(left: 5, top: -6, width: 3, height: 3)])
    }

    /// A box larger than 2^19 cells (64 KiB as one grid) on the unbounded plane, or 2^24
    /// (2 MiB) on a bounded grid, is read into blocks: two gliders 13000 cells apart
    /// (Golly's slow-salvo-MWSS-oscillator declares 12970 x 13293) are two small parts,
    /// not 21 MiB of grid; boxes of those sizes are one grid.
    @Test func aLargeBoxIsReadWhereItsCellsAre() throws {
        let apart = try RLE.parse("x = 13003, y = 13003\nbo$2bo$3o12998$13000b3o!\n")
        #expect(apart.cells.width == 0 && apart.extent?.width == 13003)
        #expect(apart.parts.map(\.cells.population) == [5, 3])
        #expect(apart.parts.reduce(0) { $0 + $1.cells.width * $1.cells.height } < 16)
        let plane = try RLE.parse("x = 1024, y = 1024\nbo$2bo$3o!\n")
        #expect(plane.hasParts && plane.parts.map(\.cells.population) == [5])
        let smallPlane = try RLE.parse("x = 1024, y = 512\nbo$2bo$3o!\n")
        #expect(!smallPlane.hasParts && smallPlane.cells.width == 1024 && smallPlane.cells.population == 5)
        let bounded = try RLE.parse("x = 4096, y = 4096, rule = B3/S23:T4096,4096\nbo$2bo$3o!\n")
        #expect(!bounded.hasParts && bounded.cells.width == 4096 && bounded.cells.population == 5)
    }

    @Test func cellsAcrossBlockEdgesArePartsOfTheirBlocks() throws {
        // A row of 200 cells from column 50 crosses four 64-cell blocks: a part for
        // each, cut to its cells, holding no more than what lives.
        let pattern = try RLE.parse("x = 100000, y = 100000\n63$50b200o!\n")
        #expect(pattern.parts.map(\.bounds) == [CellBounds(left: 50, top: 63, width: 14, height: 1),
                                               CellBounds(left: 64, top: 63, width: 64, height: 1),
                                               CellBounds(left: 128, top: 63, width: 64, height: 1),
                                               CellBounds(left: 192, top: 63, width: 58, height: 1)])
        #expect(pattern.parts.allSatisfy { $0.cells.population == $0.cells.width })
    }

    /// A checkpoint's origin digests a box read in blocks as it was read before blocks
    /// were 64 cells: one grid up to 2^24 cells, else 512-cell blocks, each trimmed; so
    /// a checkpoint written then still resumes.
    @Test func aBoxInBlocksHasTheDigestOfHowItWasReadBefore() throws {
        let text = "x = 1024, y = 1024, rule = B3/S23\n5$10b200o$bo$2bo$3o1000$1020b3o!\n"
        let blocked = try RLE.parse(text)
        #expect(blocked.hasParts && blocked.parts.count > 4)
        var grid = BitGrid(width: 1024, height: 1024)
        grid.setRun(y: 5, x: 10, count: 200)
        for (x, y) in [(1, 6), (2, 7), (0, 8), (1, 8), (2, 8), (1020, 1008), (1021, 1008), (1022, 1008)] { grid[x, y] = true }
        let whole = Pattern(cells: grid, rule: .life)
        #expect(blocked.inOneGrid() == whole)
        let digest = { (pattern: Pattern) in Checkpoint.Origin(pattern: pattern, name: "p.rle", soup: nil).cells }
        #expect(digest(blocked) == digest(whole))
        // Past 2^24 cells: 512-cell blocks of the box, each cut to its live cells.
        let huge = try RLE.parse("x = 200000, y = 200000, rule = B3/S23\n5$10b200o$bo$2bo$3o!\n")
        var row = BitGrid(width: 200, height: 1), glider = BitGrid(width: 3, height: 3)
        row.setRun(y: 0, x: 0, count: 200)
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { glider[x, y] = true }
        #expect(huge.inOneGrid() == nil && huge.parts.count == 4)
        var block = BitGrid(width: 512, height: 512)
        block.formUnion(row, atX: 10, y: 5)
        block.formUnion(glider, atX: 0, y: 6)
        let oneBlock = Pattern(parts: [PlacedCells(trimming: block, left: 0, top: 0)!], extent: (200_000, 200_000), position: nil,
                               rule: .life, board: nil, generation: 0, comments: [])
        #expect(huge.inBlocksOf512().parts == oneBlock.parts)
        #expect(digest(huge) == digest(oneBlock))
    }

    @Test func aLife106SpanTooLargeToHoldIsReadInBlocks() throws {
        let pattern = try PatternFile.parse("#Life 1.06\n-300000 5\n-299999 5\n-299998 5\n400000 -700000\n")
        #expect(pattern.placedParts(on: .torus).map(\.bounds) == [CellBounds(left: 400_000, top: -700_000, width: 1, height: 1),
                                                                 CellBounds(left: -300_000, top: 5, width: 3, height: 1)])
    }
}

/// Cells of many states in a box past `largestWholeOnPlane`, under a rule tree on the
/// unbounded plane, are read into squares (`StateTreeRows`), never a grid of the box.
@Suite struct StateSquaresReadingTests {
    /// One state as RLE writes it: 1..24 as `A`..`X`, past that a `p`..`y` first.
    private static func letter(_ state: Int) -> String {
        let prefix = (state - 1) / 24, letter = Character(UnicodeScalar(UInt8(ascii: "A") + UInt8((state - 1) % 24)))
        return (prefix > 0 ? String(Character(UnicodeScalar(UInt8(ascii: "p") + UInt8(prefix - 1)))) : "") + String(letter)
    }

    /// Seeded rows of runs of JvN29's states, gaps and runs long and short, across a box
    /// of 700001 x 5: the squares made into cells are every cell in its state and no
    /// other, in the box the file declared, placed where the file put it.
    @Test(arguments: [1, 2, 3])
    func squaresHoldEveryCellInItsState(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let (width, height) = (700_001, 5)
        var expected: [(x: Int, y: Int, state: Int)] = []
        var body = ""
        for y in 0..<height {
            var x = Int.random(in: 0..<70_000, using: &generator)
            body += x > 0 ? "\(x)." : ""
            while true {
                let count = Bool.random(using: &generator) ? Int.random(in: 1...3, using: &generator) : Int.random(in: 1...200_000, using: &generator)
                guard x + count <= width else { break }
                let state = Int.random(in: 1...28, using: &generator)
                expected += (x..<x + count).map { (x: $0, y: y, state: state) }
                body += "\(count)\(Self.letter(state))"
                x += count
                let gap = Int.random(in: 0...5000, using: &generator)
                guard x + gap < width else { break }
                body += gap > 0 ? "\(gap)." : ""
                x += gap
            }
            body += y < height - 1 ? "$\n" : "!\n"
        }
        let pattern = try RLE.parse("#CXRLE Pos=-5,7\nx = \(width), y = \(height), rule = JvN29\n" + body)
        let squares = try #require(pattern.stateTree)
        #expect(pattern.cells.width == 0 && pattern.extent?.width == width && pattern.extent?.height == height)
        #expect(squares.left == -5 && squares.top == 7)
        // Each square once.
        #expect(Set(squares.nodes.map { [$0.level, Int($0.children[0]), Int($0.children[1]), Int($0.children[2]), Int($0.children[3])] }).count
                == squares.nodes.count)
        let made = try pattern.withStatesMade()
        let states = try #require(made.states)
        #expect(made.position?.x == -5 && made.position?.y == 7 && states.width == width && states.height == height)
        #expect(made.cells.population == expected.count)
        let wrong = expected.filter { states[$0.x, $0.y] != $0.state }
        #expect(wrong.isEmpty, "\(wrong.count) cells in another state, first \(wrong.prefix(3))")
    }

    /// A wire a million cells long is a few squares a level, not a square per 2x2 cells;
    /// a file with no position keeps none (a bounded grid centres it); a box up to
    /// `largestWholeOnPlane`, or on a bounded grid, is read whole as before.
    @Test func aLongWireIsAFewSquares() throws {
        let wire = try RLE.parse("x = 1000000, y = 3, rule = JvN29\n$3.999990C!\n")
        let squares = try #require(wire.stateTree)
        #expect(squares.nodes.count < 100, "\(squares.nodes.count) squares")
        let made = try wire.withStatesMade()
        #expect(made.position == nil && made.cells.population == 999_990 && made.states?[3, 1] == 3 && made.states?[2, 1] == 0)
        let small = try RLE.parse("x = 1000, y = 3, rule = JvN29\n$3.990C!\n")
        #expect(small.stateTree == nil && small.states?[3, 1] == 3)
        let bounded = try RLE.parse("x = 1000000, y = 3, rule = JvN29:P1000000,3\n$3.999990C!\n")
        #expect(bounded.stateTree == nil && bounded.states?[999_992, 1] == 3)
    }
}
