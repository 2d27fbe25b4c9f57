import Testing
import TesseraCore
@testable import TesseraTiles

/// Skipping the blocks that cannot change gives the board that stepping every cell
/// gives, whatever the rule, topology, size, tiling, halo depth and schedule.
@Suite struct SkippingTests {
    static let rules = ["B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357", "B1/S12", "B2/S23", "B37/S2-i34q", "B2/S013V"]

    /// A mostly empty board: a few soup patches and spaceships, placed from `seed`.
    static func sparseBoard(width: Int, height: Int, seed: UInt64) -> BitGrid {
        var generator = SplitMix64(seed: seed)
        var board = BitGrid(width: width, height: height)
        for _ in 0..<4 {
            let (w, h) = (Int.random(in: 5...24, using: &generator), Int.random(in: 5...24, using: &generator))
            let patch = try! Soup(density: 0.45, seed: generator.next()).cells(x: 0, y: 0, width: min(w, width), height: min(h, height))
            board.formUnion(patch, atX: Int.random(in: 0...max(0, width - w), using: &generator),
                            y: Int.random(in: 0...max(0, height - h), using: &generator))
        }
        return board
    }

    /// Boards compared without printing them: a failure says how many cells differ.
    func expectSame(_ got: BitGrid, _ expected: BitGrid, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        guard got != expected else { return }
        let differing = zip(got.words, expected.words).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
        Issue.record("\(differing) cells differ (\(got.population) alive, expected \(expected.population)) \(comment)",
                     sourceLocation: sourceLocation)
    }

    func run(_ board: BitGrid, rule: Rule, topology: Topology, tiles: (Int, Int), halo: Int, generations: UInt64,
             skipping: Bool, overlap: Bool? = nil, blocking: Bool? = nil,
             implementation: Kernel.Implementation = Kernel.best) async throws -> (BitGrid, blocks: Int) {
        let shape = BoardShape(width: board.width, height: board.height, topology: topology)
        let tiling = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1)
        let cluster = try await TileCluster(tiling: tiling, rule: rule, halo: halo, implementation: implementation,
                                            overlap: overlap, blocking: blocking, skipping: skipping) {
            board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
        }
        try await cluster.run(generations: generations)
        return (try await cluster.board(), await cluster.blocksStepped().blocks)
    }

    @Test(arguments: rules, Topology.allCases)
    func skippingMatchesTheNaiveReference(ruleText: String, topology: Topology) async throws {
        let rule = try Rule(parsing: ruleText)
        for (width, height) in [(300, 70), (517, 41)] {
            let board = Self.sparseBoard(width: width, height: height, seed: UInt64(width * height))
            let expected = NaiveLife.run(board, rule: rule, topology: topology, generations: 21)
            for (tiles, halo) in [((1, 1), 1), ((1, 1), 8), ((2, 1), 3), ((2, 2), 5), ((3, 1), 13)] {
                // The portable kernel reports changes as the AVX2 one does, for CPUs without it.
                for implementation in Kernel.Implementation.allCases where implementation.isSupported {
                    let (got, _) = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                                 generations: 21, skipping: true, implementation: implementation)
                    expectSame(got, expected, "\(ruleText) \(topology) \(width)x\(height) tiles \(tiles) halo \(halo) \(implementation)")
                }
            }
        }
    }

    /// A torus one tile across steps only its interior's words in dense rounds, each row
    /// wrapping onto itself (`TileEngine.wrapAcross`): where the halos are whole words and
    /// the tile whole 256-cell columns, dense soups and sparse boards, one tile or a
    /// column of two, give the reference's board, through the AVX2 kernel and the
    /// portable one.
    @Test(arguments: ["B3/S23", "B36/S23", "B37/S2-i34q"])
    func aTorusOneTileAcrossWrapsItsRows(ruleText: String) async throws {
        let rule = try Rule(parsing: ruleText)
        let (width, height) = (512, 160)
        let soup = try Soup(density: 0.4, seed: 12).cells(x: 0, y: 0, width: width, height: height)
        for board in [soup, Self.sparseBoard(width: width, height: height, seed: 13)] {
            let expected = NaiveLife.run(board, rule: rule, topology: .torus, generations: 140)
            // A column of two with overlap: its north and south halos come late, into
            // frames stepped whole, while the rest of the tile wraps across.
            for (tiles, halo, overlap) in [((1, 1), 64, false), ((1, 2), 64, false), ((1, 2), 64, true), ((1, 1), 128, false)] {
                for implementation in Kernel.Implementation.allCases where implementation.isSupported {
                    let (got, _) = try await run(board, rule: rule, topology: .torus, tiles: tiles, halo: halo,
                                                 generations: 140, skipping: true, overlap: overlap,
                                                 implementation: implementation)
                    expectSame(got, expected, "\(ruleText) tiles \(tiles) halo \(halo) overlap \(overlap) \(implementation)")
                }
            }
        }
    }

    /// Cells written into a tile (its start, or a load) have no true predecessor in the
    /// other buffer. A lone cell dies at once; its block compared equal to that empty
    /// buffer, was skipped the generation after, and the cell came back from it every
    /// other generation (found with `tessera run` on a one-cell RLE: population 0, 1, 0, 1).
    @Test(arguments: [1, 3])
    func cellsThatDieAtOnceStayDead(halo: Int) async throws {
        var board = BitGrid(width: 600, height: 300)
        board[5, 5] = true                      // a lone cell
        board[300, 100] = true; board[301, 100] = true   // a domino
        board[520, 290] = true; board[522, 292] = true   // two cells, a gap between
        for topology in [Topology.plane, .torus] {
            for generations in 1...4 {
                let (got, _) = try await run(board, rule: .life, topology: topology, tiles: (2, 1), halo: halo,
                                             generations: UInt64(generations), skipping: true)
                expectSame(got, BitGrid(width: 600, height: 300), "\(topology) \(generations)")
            }
        }
        // The same after a load into a running tile.
        let shape = BoardShape(width: 600, height: 300, topology: .plane)
        let cluster = try await TileCluster(tiling: try Tiling(shape: shape, columns: 1, rows: 1), rule: .life, halo: halo) { _ in
            BitGrid(width: 600, height: 300)
        }
        try await cluster.run(generations: 3)
        try await cluster.actors.values.first!.load(board, generation: 3)
        for _ in 1...4 {
            try await cluster.run(generations: 1)
            #expect(try await cluster.population() == 0)
        }
    }

    /// B0 rules step the stored cells by two rules in turn (or one complementary rule):
    /// skipping must hold for them too, at even and odd round ends.
    @Test(arguments: ["B0123478/S01234678", "B012/S1", "B0134/S2"], [Topology.torus, .plane])
    func skippingHoldsForB0Rules(ruleText: String, topology: Topology) async throws {
        let rule = try Rule(parsing: ruleText)
        let board = Self.sparseBoard(width: 517, height: 41, seed: 77)
        for generations in [20, 21] {
            let expected = NaiveLife.runStored(board, rule: rule, topology: topology, generations: generations)
            for (tiles, halo) in [((1, 1), 1), ((2, 1), 3), ((2, 2), 5)] {
                let (got, _) = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                             generations: UInt64(generations), skipping: true)
                expectSame(got, expected, "\(ruleText) \(topology) tiles \(tiles) halo \(halo) generations \(generations)")
            }
        }
    }

    /// Larger boards, every schedule: skipping on equals skipping off.
    @Test(arguments: Topology.allCases)
    func skippingMatchesSteppingEverythingOnLargerBoards(topology: Topology) async throws {
        for (index, ruleText) in Self.rules.enumerated() {
            let rule = try Rule(parsing: ruleText)
            let board = Self.sparseBoard(width: 1037, height: 611, seed: UInt64(index + 1))
            let (expected, _) = try await run(board, rule: rule, topology: topology, tiles: (1, 1), halo: 1,
                                              generations: 150, skipping: false)
            for (tiles, halo, overlap, blocking) in [((1, 1), 32, false, false), ((2, 2), 16, true, true), ((3, 2), 7, true, false),
                                                     ((4, 4), 3, false, true)] {
                let (got, _) = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                             generations: 150, skipping: true, overlap: overlap, blocking: blocking)
                expectSame(got, expected, "\(ruleText) \(topology) tiles \(tiles) halo \(halo)")
            }
        }
    }

    /// A glider's path crosses a block corner (256, 256) and the corner of four tiles.
    @Test(arguments: Topology.allCases)
    func aGliderCrossesABlockCornerAndATileCorner(topology: Topology) async throws {
        var board = BitGrid(width: 512, height: 512)
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { board[230 + x, 230 + y] = true }
        let (expected, _) = try await run(board, rule: .life, topology: topology, tiles: (1, 1), halo: 1, generations: 160, skipping: false)
        let (got, _) = try await run(board, rule: .life, topology: topology, tiles: (2, 2), halo: 4, generations: 160, skipping: true)
        expectSame(got, expected)
        #expect(got.population == 5)
    }

    /// Spaceships crossing tile borders, the seam of a torus and the corners, for many
    /// rounds: a tile's west and east halos, which its own steps overwrite, stay right.
    @Test(arguments: [((1, 1), 32), ((2, 2), 16), ((3, 1), 5)])
    func spaceshipsCrossTileBordersAndTheSeam(tiles: (Int, Int), halo: Int) async throws {
        var board = BitGrid(width: 700, height: 300)
        let lwss = [(1, 0), (4, 0), (0, 1), (0, 2), (4, 2), (0, 3), (1, 3), (2, 3), (3, 3)]
        for (i, (x, y)) in [(650, 20), (40, 150), (600, 250), (300, 100)].enumerated() {
            for (dx, dy) in lwss { board[x + (i.isMultiple(of: 2) ? dx : 4 - dx), y + dy] = true }
        }
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { board[690 + x, 290 + y] = true }
        let (expected, _) = try await run(board, rule: .life, topology: .torus, tiles: (1, 1), halo: 1, generations: 1500, skipping: false)
        let (got, _) = try await run(board, rule: .life, topology: .torus, tiles: tiles, halo: halo, generations: 1500, skipping: true)
        expectSame(got, expected, "tiles \(tiles) halo \(halo)")
    }

    /// A tile's own steps leave debris in its east halo and the padding beyond it when a
    /// spaceship leaves through the torus seam (the halo's outer column has no neighbour
    /// to read). Here that debris makes a glider which, kept between rounds, wandered
    /// along the padding and came back into the board 1500 generations later. Both
    /// must be rewritten every round.
    @Test(arguments: [((1, 1), 4), ((2, 1), 8)])
    func debrisLeftBeyondTheEastEdgeDoesNotComeBack(tiles: (Int, Int), halo: Int) async throws {
        let lwss = [(3, 0), (0, 0), (4, 1), (4, 2), (0, 2), (4, 3), (3, 3), (2, 3), (1, 3)]  // heading east
        func ship(at x: Int) -> BitGrid {
            var board = BitGrid(width: 520, height: 400)
            for (dx, dy) in lwss { board[(x + dx) % 520, 300 + dy] = true }
            return board
        }
        // A lightweight spaceship moves two cells every four generations.
        let (got, blocks) = try await run(ship(at: 131), rule: .life, topology: .torus, tiles: tiles, halo: halo,
                                     generations: 2400, skipping: true)
        expectSame(got, ship(at: 131 + 1200), "tiles \(tiles) halo \(halo)")
        // The ship keeps about 2.7 blocks a generation awake; debris left in the padding
        // kept twice as many awake.
        #expect(blocks < 2400 * 7 / 2, "stepped \(blocks) blocks")
    }

    /// A blinker across a block edge (cells 255 and 256, rows 31 and 32) keeps blinking.
    @Test func blinkersStraddlingBlockEdges() async throws {
        var board = BitGrid(width: 600, height: 200)
        for x in 254...256 { board[x, 100] = true }
        for y in 30...32 { board[400, y] = true }
        for (tiles, halo) in [((1, 1), 8), ((3, 3), 4)] {
            for generations: UInt64 in [1, 2, 51] {
                let (got, _) = try await run(board, rule: .life, topology: .plane, tiles: tiles, halo: halo,
                                             generations: generations, skipping: true)
                expectSame(got, NaiveLife.run(board, rule: .life, topology: .plane, generations: Int(generations)), "\(tiles) \(generations)")
            }
        }
    }

    /// A still life sleeps for many rounds until a glider reaches it in another tile.
    @Test func aSleepingStillLifeWakesWhenAGliderArrives() async throws {
        var board = BitGrid(width: 400, height: 400)
        for (x, y) in [(300, 300), (301, 300), (300, 301), (301, 301)] { board[x, y] = true }  // a block
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { board[20 + x, 20 + y] = true }  // a glider, heading for it
        let (expected, _) = try await run(board, rule: .life, topology: .plane, tiles: (1, 1), halo: 1, generations: 1300, skipping: false)
        let (got, _) = try await run(board, rule: .life, topology: .plane, tiles: (2, 2), halo: 8, generations: 1300, skipping: true)
        expectSame(got, expected)
        let changed = got != board
        #expect(changed, "the glider reached the block")
    }

    /// On a board of still lifes, nothing is stepped after the first generations: fails
    /// if skipping silently stops working.
    @Test func aBoardOfStillLifesStepsAlmostNothing() async throws {
        var board = BitGrid(width: 2048, height: 2048)
        for i in 0..<40 {
            let (x, y) = (37 + i * 50, 91 + (i * 97) % 1900)
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { board[x + dx, y + dy] = true }
        }
        let (got, blocks) = try await run(board, rule: .life, topology: .torus, tiles: (2, 2), halo: 16, generations: 1000,
                                          skipping: true)
        expectSame(got, board)
        // 40 blocks, each in at most 4 block cells of 256x32, each with 8 neighbours, for
        // the first 2 generations (then nothing changes): far below one generation of
        // the 2048x2048 board's 512 blocks.
        #expect(blocks <= 40 * 4 * 9 * 2, "stepped \(blocks) blocks")
        let (_, everything) = try await run(board, rule: .life, topology: .torus, tiles: (2, 2), halo: 16, generations: 10,
                                            skipping: false)
        #expect(everything == 0, "without skipping nothing goes through the block stepper")
    }

    /// Inside a block only the rows next to a change are stepped: a glider wakes a few
    /// rows of 32, whichever block edges and corners it crosses. Fails if stepping
    /// falls back to whole blocks.
    @Test func aGliderStepsOnlyTheRowsAroundIt() async throws {
        func glider(at x: Int, _ y: Int) -> BitGrid {
            var board = BitGrid(width: 1024, height: 1024)
            for (dx, dy) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { board[x + dx, y + dy] = true }  // heading south-east
            return board
        }
        let board = glider(at: 250, 26)
        let shape = BoardShape(width: 1024, height: 1024, topology: .plane)
        let cluster = try await TileCluster(tiling: try Tiling(shape: shape, columns: 1, rows: 1), rule: .life, halo: 8,
                                            skipping: true) { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        // A glider moves one cell diagonally every four generations: across a block's
        // east edge, four block rows and their corners.
        try await cluster.run(generations: 400)
        expectSame(try await cluster.board(), glider(at: 350, 126))
        let (blocks, rows) = await cluster.blocksStepped()
        // A glider spans 3 rows; with a row either side and the neighbours its edges
        // touch, about 6 rows of each block stepped: whole blocks would be 32.
        #expect(blocks > 400 && rows <= blocks * 8, "stepped \(rows) rows of \(blocks) blocks")
    }

    /// A period-2 oscillator costs nothing either: the target buffer already holds its
    /// next phase, and once nothing changes a round only swaps buffers. Odd and even
    /// counts, rounds of every length, blinkers across tile borders: a swap too many or
    /// too few shows as the wrong phase.
    @Test(arguments: [1000, 1001] as [UInt64])
    func blinkersAreFree(generations: UInt64) async throws {
        var board = BitGrid(width: 1024, height: 1024)
        for i in 0..<20 { for x in 0..<3 { board[100 + i * 40 + x, 500] = true } }
        for y in 0..<3 { board[511, 510 + y] = true }  // across the border of 2x2 tiles
        let expected = NaiveLife.run(board, rule: .life, topology: .plane, generations: Int(generations % 2))
        for (tiles, halo) in [((1, 1), 32), ((1, 1), 7), ((2, 2), 5)] {
            let (got, blocks) = try await run(board, rule: .life, topology: .plane, tiles: tiles, halo: halo,
                                              generations: generations, skipping: true)
            expectSame(got, expected, "tiles \(tiles) halo \(halo)")
            #expect(blocks <= 21 * 9 * 3 * 4, "stepped \(blocks) blocks")
        }
    }

    /// Live bounds within a rectangle (how an atlas finds each window's cells): only the
    /// cells inside count, across tile borders, and a rectangle with none gives nil.
    @Test func liveBoundsWithinARectangleSeeOnlyItsCells() async throws {
        let shape = BoardShape(width: 1024, height: 512, topology: .plane)
        var board = BitGrid(width: 1024, height: 512)
        for (x, y) in [(10, 10), (11, 12), (500, 300), (515, 301), (1000, 20)] { board[x, y] = true }
        let cluster = try await TileCluster(tiling: try Tiling(shape: shape, columns: 2, rows: 2), rule: .life, halo: 8) { rect in
            board.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        }
        #expect(try await cluster.liveBounds(in: TileRect(x: 0, y: 0, width: 100, height: 100)) == TileRect(x: 10, y: 10, width: 2, height: 3))
        // (500, 300) and (515, 301) lie in two tiles.
        #expect(try await cluster.liveBounds(in: TileRect(x: 400, y: 250, width: 200, height: 100)) == TileRect(x: 500, y: 300, width: 16, height: 2))
        #expect(try await cluster.liveBounds(in: TileRect(x: 600, y: 0, width: 300, height: 512)) == nil)
        #expect(try await cluster.liveBounds(in: TileRect(x: 0, y: 0, width: 1024, height: 512)) == cluster.liveBounds())
    }
}
