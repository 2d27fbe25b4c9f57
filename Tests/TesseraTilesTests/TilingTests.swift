import Testing
import TesseraCore
@testable import TesseraTiles

@Suite struct TilingTests {
    // The last two run as gates: isotropic non-totalistic, and hexagonal.
    static let rules = ["B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357", "B2-a/S12", "B2/S34H"]

    /// The default halo is about a 32nd of a tile's side, but a torus one tile across
    /// whose tiles are whole 256-cell columns takes a word's 64 where that is at most an
    /// eighth of a side: its rows wrap onto themselves, so its column halos cost nothing.
    @Test func aTorusOneTileAcrossTakesAWordOfHalo() throws {
        func halo(_ width: Int, _ height: Int, _ topology: Topology, _ tiles: (Int, Int), reach: Int = 1) throws -> Int {
            try Tiling(shape: BoardShape(width: width, height: height, topology: topology), columns: tiles.0, rows: tiles.1)
                .defaultHalo(reach: reach)
        }
        #expect(try halo(1024, 1024, .torus, (1, 1)) == 64)
        #expect(try halo(1024, 1024, .torus, (1, 2)) == 64)        // 1024x512 tiles, a column of two
        #expect(try halo(512, 512, .torus, (1, 1)) == 64)
        #expect(try halo(4096, 4096, .torus, (1, 1)) == 128)       // deeper already
        #expect(try halo(1024, 1024, .torus, (2, 1)) == 16)        // two columns: no wrap across
        #expect(try halo(1024, 1024, .plane, (1, 1)) == 32)        // dead edges
        #expect(try halo(1000, 1000, .torus, (1, 1)) == 31)        // not whole 256-cell columns
        #expect(try halo(256, 256, .torus, (1, 1)) == 8)           // 64 would be a quarter of a side
        #expect(try halo(1024, 1024, .torus, (1, 1), reach: 5) == 6)  // Larger than Life steps whole buffers
    }

    func run(_ board: BitGrid, rule: Rule, topology: Topology, tiles: (Int, Int), halo: Int,
             generations: UInt64, kernel: Kernel.Implementation, overlap: Bool? = nil,
             blocking: Bool? = nil) async throws -> BitGrid {
        let shape = BoardShape(width: board.width, height: board.height, topology: topology)
        let tiling = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1)
        let cluster = try await TileCluster(tiling: tiling, rule: rule, halo: halo, implementation: kernel,
                                            overlap: overlap, blocking: blocking) {
            board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
        }
        try await cluster.run(generations: generations)
        return try await cluster.board()
    }

    @Test(arguments: rules, Topology.allCases)
    func kernelMatchesNaiveReference(ruleText: String, topology: Topology) async throws {
        let rule = try Rule(parsing: ruleText)
        for (width, height) in [(1, 1), (3, 2), (37, 23), (64, 5), (65, 9), (130, 17), (300, 4)] {
            let board = try Soup(density: 0.4, seed: UInt64(width * 1000 + height)).cells(
                x: 0, y: 0, width: width, height: height)
            let expected = NaiveLife.run(board, rule: rule, topology: topology, generations: 7)
            for kernel in Kernel.Implementation.allCases where kernel != .avx2 || Kernel.best == .avx2 {
                let got = try await run(board, rule: rule, topology: topology, tiles: (1, 1), halo: 1,
                                        generations: 7, kernel: kernel)
                #expect(got == expected, "\(ruleText) \(topology) \(width)x\(height) \(kernel)")
            }
        }
    }

    @Test(arguments: Topology.allCases)
    func everyTilingAndHaloGivesTheSameBoard(topology: Topology) async throws {
        let rule = Rule.life
        let board = try Soup(density: 0.35, seed: 9).cells(x: 0, y: 0, width: 71, height: 45)
        let expected = NaiveLife.run(board, rule: rule, topology: topology, generations: 23)
        for tiles in [(1, 1), (2, 1), (1, 3), (2, 2), (3, 4), (7, 5), (71, 1), (10, 45)] {
            let shape = BoardShape(width: 71, height: 45, topology: topology)
            let deepest = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1).smallestSide
            for halo in Set([1, 2, 3, 5, deepest].filter { $0 <= deepest }) {
                for (overlap, blocking) in [(false, false), (true, false), (false, true), (true, true)] {
                    let got = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                            generations: 23, kernel: Kernel.best, overlap: overlap, blocking: blocking)
                    #expect(got == expected, "\(topology) tiles \(tiles) halo \(halo) overlap \(overlap) blocking \(blocking)")
                }
            }
        }
    }

    @Test(arguments: rules)
    func otherRulesAcrossTilings(ruleText: String) async throws {
        let rule = try Rule(parsing: ruleText)
        let board = try Soup(density: 0.3, seed: 5).cells(x: 0, y: 0, width: 97, height: 33)
        for topology in Topology.allCases {
            let expected = NaiveLife.run(board, rule: rule, topology: topology, generations: 12)
            for (tiles, halo, overlap) in [((3, 2), 4, false), ((4, 3), 1, true), ((2, 5), 6, true), ((1, 1), 3, true)] {
                let got = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                        generations: 12, kernel: Kernel.best, overlap: overlap, blocking: overlap)
                #expect(got == expected, "\(ruleText) \(topology) \(tiles) halo \(halo)")
            }
        }
    }

    /// B0 rules as Golly runs them. On a torus, where B0 has its plain meaning, the
    /// stored cells are the true ones, inverted at odd generations (B0 without S8) or
    /// always (with S8); on a plane the emulation is the definition, as in Golly.
    @Test(arguments: ["B0123478/S01234678", "B0/S8", "B012/S1", "B0134/S2", "B03/S23"])
    func b0RulesAcrossTilings(ruleText: String) async throws {
        let rule = try Rule(parsing: ruleText)
        let board = try Soup(density: 0.3, seed: 6).cells(x: 0, y: 0, width: 97, height: 33)
        for generations in [12, 13] {
            // With S8 the stored cells are the inverse of the true ones from the start.
            let complement = rule.emulation == .complement
            let truth = NaiveLife.run(complement ? NaiveLife.inverted(board) : board, rule: rule, topology: .torus,
                                      generations: generations)
            let storedOnTorus = complement || generations % 2 == 1 ? NaiveLife.inverted(truth) : truth
            #expect(NaiveLife.runStored(board, rule: rule, topology: .torus, generations: generations) == storedOnTorus)
            for topology in [Topology.torus, .plane] {
                let expected = topology == .torus ? storedOnTorus
                    : NaiveLife.runStored(board, rule: rule, topology: topology, generations: generations)
                for (tiles, halo, overlap) in [((3, 2), 4, false), ((4, 3), 1, true), ((2, 5), 5, true), ((1, 1), 3, true)] {
                    let got = try await run(board, rule: rule, topology: topology, tiles: tiles, halo: halo,
                                            generations: UInt64(generations), kernel: Kernel.best, overlap: overlap, blocking: overlap)
                    #expect(got == expected, "\(ruleText) \(topology) \(tiles) halo \(halo) generations \(generations)")
                }
            }
        }
    }

    /// The wavefront, in bands far smaller than the region, computes what one sweep per
    /// generation computes, on every row a round keeps, with a plane's dead edges.
    @Test(arguments: [1, 2, 3, 8])
    func temporalBlockingMatchesOneSweepPerGeneration(band: Int) {
        let (width, height, generations) = (200, 90, 9)
        let cells = try! Soup(density: 0.4, seed: 4).cells(x: 0, y: 0, width: width, height: height)
        let dead = [Box(x: 0, y: 0, width: 1000, height: 3), Box(x: 0, y: 0, width: 2, height: 1000)]
        var results: [BitGrid] = []
        for blocking in [false, true] {
            let region = Region(x: 0, y: 0, width: width, height: height)
            region.write(cells, atX: 0, y: 0)
            region.step(generations, from: 0, rules: Rule.life.steps, using: Kernel.best, dead: dead, blocking: blocking, band: band) { g in
                (g + 1)..<(height - 1 - g)
            }
            results.append(region.current.extract(x: 0, y: generations, width: width, height: height - 2 * generations))
        }
        #expect(results[0] == results[1])
        #expect(results[0].population > 1000)
    }

    @Test func unevenSplitCoversTheBoardOnce() throws {
        let shape = BoardShape(width: 10, height: 7, topology: .torus)
        let tiling = try Tiling(shape: shape, columns: 3, rows: 2)
        var covered = BitGrid(width: 10, height: 7)
        for tile in tiling.tiles {
            let rect = tiling.rect(of: tile)
            #expect(rect.width >= 3 && rect.width <= 4 && rect.height >= 3 && rect.height <= 4)
            for y in rect.y..<(rect.y + rect.height) {
                for x in rect.x..<(rect.x + rect.width) {
                    #expect(!covered[x, y])
                    covered[x, y] = true
                }
            }
        }
        #expect(covered.population == 70)
    }

    @Test func neighboursWrapOnTorusAndStopOnPlane() throws {
        let torus = try Tiling(shape: BoardShape(width: 9, height: 9, topology: .torus), columns: 3, rows: 3)
        #expect(torus.neighbour(of: TileID(column: 0, row: 0), .northWest) == TileID(column: 2, row: 2))
        let plane = try Tiling(shape: BoardShape(width: 9, height: 9, topology: .plane), columns: 3, rows: 3)
        #expect(plane.neighbour(of: TileID(column: 0, row: 0), .northWest) == nil)
        #expect(plane.neighbour(of: TileID(column: 0, row: 0), .southEast) == TileID(column: 1, row: 1))
    }

    @Test func refusesImpossibleTilingsAndHalos() throws {
        let shape = BoardShape(width: 4, height: 4, topology: .torus)
        #expect(throws: TesseraError.self) { try Tiling(shape: shape, columns: 5, rows: 1) }
        #expect(throws: TesseraError.self) { try Tiling(shape: shape, columns: 0, rows: 1) }
        let tiling = try Tiling(shape: shape, columns: 2, rows: 2)
        #expect(throws: TesseraError.self) { try tiling.validate(halo: 3) }
        #expect(throws: TesseraError.self) { try tiling.validate(halo: 0) }
    }
}
