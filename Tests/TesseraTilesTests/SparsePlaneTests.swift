import Testing
import TesseraCore
import TesseraHashLife

/// The sparse plane against the rule applied cell by cell and against HashLife: tiles
/// made as life arrives and dropped once dead leave every generation exact.
@Suite struct SparsePlaneTests {
    static func soup(seed: UInt64, width: Int, height: Int, density: Double = 0.4) -> BitGrid {
        var generator = SplitMix64(seed: seed)
        var soup = BitGrid(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width where Double(generator.next() % 1000) < density * 1000 { soup[x, y] = true }
        }
        return soup
    }

    static func pattern(_ rows: [String]) -> BitGrid {
        var grid = BitGrid(width: rows.map(\.count).max() ?? 0, height: rows.count)
        for (y, row) in rows.enumerated() {
            for (x, c) in row.enumerated() where c == "o" { grid[x, y] = true }
        }
        return grid
    }

    static let glider = pattern([".o.", "..o", "ooo"])

    /// Every generation up to `generations`, checked against naive Life on a plane with
    /// room for it all, for both kernels (cells as Golly stores them: a rule with B0
    /// and S8 steps them by its complement).
    @Test(arguments: [("B3/S23", 1), ("B36/S23", 2), ("B2/S", 3), ("B34/S34", 4), ("B3678/S34678", 5), ("B0123478/S01234678", 6),
                      ("B2-a/S12", 7), ("B2ak3nr4iy/S3-nr4ent5er", 8), ("B2/S34H", 9)])
    func soupsMatchNaiveLifeEveryGeneration(rule text: String, seed: UInt64) throws {
        let rule = try Rule(parsing: text)
        // Straddling the origin and a tile corner, so cells start on four tiles.
        let (left, top) = (-37, -20)
        let soup = Self.soup(seed: seed, width: 70, height: 50)
        let generations = text == "B2/S" ? 20 : 40
        let room = generations + 2
        var naive = BitGrid(width: soup.width + 2 * room, height: soup.height + 2 * room)
        soup.copy(into: &naive, atX: room, y: room)
        let area = CellBounds(left: left - room, top: top - room, width: naive.width, height: naive.height)
        for implementation in Kernel.Implementation.allCases where implementation.isSupported {
            let plane = try SparsePlane(parts: [PlacedCells(cells: soup, left: left, top: top)], rule: rule,
                                        generation: 7, implementation: implementation)
            var expected = naive
            for g in 0...generations {
                #expect(plane.cells(in: area) == expected, "\(text) \(implementation) generation \(g)")
                #expect(plane.population == expected.population)
                if let box = expected.liveBounds {
                    #expect(plane.bounds == CellBounds(left: area.left + box.x, top: area.top + box.y, width: box.width, height: box.height))
                } else {
                    #expect(plane.bounds == nil)
                }
                plane.advance(1)
                expected = NaiveLife.step(expected, rule: rule.steps.from(UInt64(7 + g)), topology: .plane)
            }
            #expect(plane.generation == 7 + UInt64(generations) + 1)
        }
    }

    /// Gliders through tile corners and along tile edges in all four directions, with
    /// blinkers and blocks they pass (period-2 tiles that are skipped), far from the
    /// origin, against HashLife after thousands of generations.
    @Test func glidersAndOscillatorsMatchHashLife() throws {
        var parts: [PlacedCells] = []
        let flips = [Self.glider, Self.pattern(["oo.", "o.o", "o.."]), Self.pattern(["ooo", "o..", ".o."]), Self.pattern(["..o", ".oo", "o.o"])]
        for (i, glider) in flips.enumerated() {
            parts.append(PlacedCells(cells: glider, left: 1_000_000_000 + 64 * i - 1, top: -5_000 + 64 * i - 1))
        }
        parts.append(PlacedCells(cells: Self.pattern(["ooo"]), left: 1_000_000_030, top: -5_000 + 20))
        parts.append(PlacedCells(cells: Self.pattern(["oo", "oo"]), left: 1_000_000_000 + 300, top: -5_000 + 300))
        parts.append(PlacedCells(cells: Self.soup(seed: 9, width: 40, height: 40), left: -63, top: 1))
        let plane = try SparsePlane(parts: parts, rule: .life)
        var life = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 22)
        for generations: UInt64 in [1, 2, 61, 64, 500, 1373] {
            plane.advance(generations)
            try life.advance(generations)
            #expect(plane.population == Int(life.population), "generation \(plane.generation)")
            #expect(plane.bounds == life.bounds, "generation \(plane.generation)")
            // Every part the plane holds is HashLife's there, and the populations agree.
            for part in plane.liveParts() { #expect(life.cells(in: part.bounds) == part.cells, "generation \(plane.generation)") }
        }
    }

    /// Small objects scattered over a few tiles, so that a tile that steps has a few rows
    /// changing and the rest not: the kernel skips those rows, and must never skip one
    /// that changes, across tile edges and corners, nor after cells are added to a tile
    /// that steps or a neighbouring tile is cropped away. Every generation against naive
    /// Life, for both kernels.
    @Test(arguments: [("B3/S23", 11), ("B36/S23", 12), ("B2-a/S12", 13)])
    func rowsThatCannotChangeAreSkippedExactly(rule text: String, seed: UInt64) throws {
        let rule = try Rule(parsing: text)
        var generator = SplitMix64(seed: seed)
        var parts: [PlacedCells] = []
        for _ in 0..<14 {
            let patch = Self.soup(seed: generator.next(), width: 5, height: 5, density: 0.45)
            parts.append(PlacedCells(cells: patch, left: Int(generator.next() % 180) - 90, top: Int(generator.next() % 180) - 90))
        }
        // Gliders along the rows and columns where tiles meet, and through a corner.
        parts += [PlacedCells(cells: Self.glider, left: -30, top: -2), PlacedCells(cells: Self.glider, left: 62, top: -40),
                  PlacedCells(cells: Self.glider, left: 60, top: 60),
                  // A block across column 0, still until its west half is cropped away.
                  PlacedCells(cells: Self.pattern(["oo", "oo"]), left: -1, top: 120)]
        let room = 40
        var naive = BitGrid(width: 180 + 2 * room, height: 180 + 2 * room)
        let area = CellBounds(left: -90 - room, top: -90 - room, width: naive.width, height: naive.height)
        for part in parts { naive.formUnion(part.cells, atX: part.left - area.left, y: part.top - area.top) }
        for implementation in Kernel.Implementation.allCases where implementation.isSupported {
            let plane = try SparsePlane(parts: parts, rule: rule, implementation: implementation)
            var expected = naive
            for g in 0..<80 {
                if g == 30 {
                    // Into a tile that is stepping: a glider beside live cells.
                    let added = PlacedCells(cells: Self.glider, left: 20, top: 23)
                    plane.add(added)
                    expected.formUnion(added.cells, atX: added.left - area.left, y: added.top - area.top)
                }
                if g == 50 {
                    // The tiles west of column 0 go, whatever they hold.
                    plane.crop { $0.x >= 0 }
                    for y in 0..<expected.height {
                        for x in 0..<(-area.left) { expected[x, y] = false }
                    }
                }
                let same = plane.cells(in: area) == expected
                #expect(same, "\(text) \(implementation) generation \(g)")
                if !same { break }
                plane.advance(1)
                expected = NaiveLife.step(expected, rule: rule.steps.from(UInt64(g)), topology: .plane)
            }
        }
    }

    /// A pattern that dies out leaves no tile, and its generations then cost nothing.
    @Test func aPatternThatDiesLeavesNoTile() throws {
        let plane = try SparsePlane(parts: [PlacedCells(cells: Self.pattern(["o.o", ".o."]), left: 63, top: 63)], rule: .life)
        plane.advance(5)
        #expect(plane.population == 0)
        #expect(plane.tileCount == 0)
        plane.advance(1 << 60)
        #expect(plane.generation == 5 + 1 << 60)
    }

    /// Two gliders a billion cells apart take the tiles of two gliders, however far they fly.
    @Test func memoryFollowsTheLiveCellsNotTheExtent() throws {
        let plane = try SparsePlane(parts: [PlacedCells(cells: Self.glider, left: -500_000_000, top: 0),
                                            PlacedCells(cells: Self.glider, left: 500_000_000, top: 7)], rule: .life)
        for _ in 0..<20 {
            plane.advance(997)
            #expect(plane.tileCount <= 2 * 9)
            #expect(plane.population == 10)
        }
        #expect(plane.bounds?.width == 1_000_000_003)
        // Still lifes and blinkers alone: nothing is due, the generations are free.
        let still = try SparsePlane(parts: [PlacedCells(cells: Self.pattern(["oo.....ooo", "oo........"]), left: 0, top: 0)], rule: .life)
        still.advance(3)
        let stepped = still.tilesStepped
        still.advance(1_000_000)
        #expect(still.tilesStepped == stepped)
        #expect(still.cells(in: CellBounds(left: 0, top: -1, width: 10, height: 3)) == Self.pattern(["........o.", "oo......o.", "oo......o."]))
    }

    /// A switch engine grows for ever: tiles are made as it goes, and it matches HashLife.
    @Test func aSwitchEngineGrowsTilesAsItGoes() throws {
        let engine = Self.pattern(["oooooooo.ooooo...ooo......ooooooo.ooooo"])
        let parts = [PlacedCells(cells: engine, left: -20, top: 0)]
        let plane = try SparsePlane(parts: parts, rule: .life)
        var life = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 22)
        plane.advance(3000)
        try life.advance(3000)
        #expect(plane.population == Int(life.population))
        let lifeBounds = life.bounds
        let box = try #require(lifeBounds)
        #expect(plane.bounds == box)
        #expect(plane.cells(in: box) == life.cells(in: box))
    }

    /// Bounded grids as sparse maps, every generation against naive Life on the whole
    /// board: tori of whole tiles (one tile its own neighbour, two tiles each other's
    /// on both sides) and dead-edge planes whose last tiles hold cells beyond the edge.
    @Test(arguments: [(Topology.torus, 64, 64), (.torus, 128, 64), (.torus, 192, 128), (.plane, 100, 70), (.plane, 37, 5),
                      (.plane, 64, 129), (.plane, 1, 1)])
    func boundedGridsMatchNaiveLifeEveryGeneration(topology: Topology, width: Int, height: Int) throws {
        let board = BoardShape(width: width, height: height, topology: topology)
        for (rule, seed) in [(Rule.life, UInt64(width)), (try Rule(parsing: "B36/S23"), UInt64(height)), (try Rule(parsing: "B2/S"), 5)] {
            let soup = Self.soup(seed: seed, width: width, height: height, density: 0.35)
            let area = CellBounds(left: board.left, top: board.top, width: width, height: height)
            for implementation in Kernel.Implementation.allCases where implementation.isSupported {
                let plane = try SparsePlane(parts: [PlacedCells(cells: soup, left: board.left, top: board.top)], rule: rule,
                                            board: board, implementation: implementation)
                var expected = soup
                for g in 0...60 {
                    #expect(plane.cells(in: area) == expected, "\(rule) \(board) \(implementation) generation \(g)")
                    #expect(plane.population == expected.population)
                    let box = expected.liveBounds.map { CellBounds(left: board.left + $0.x, top: board.top + $0.y, width: $0.width, height: $0.height) }
                    #expect(plane.bounds == box)
                    plane.advance(1)
                    expected = NaiveLife.step(expected, rule: rule, topology: topology)
                }
            }
        }
    }

    /// A glider on a dead-edge plane 2^20 cells a side, in its corner, becomes a block
    /// at the edge (as Golly's does), in a tile or two; one on a torus of whole tiles
    /// comes round to where it began.
    @Test func aGliderMeetsTheEdgeOfAHugeBoard() throws {
        let side = 1 << 20
        let plane = BoardShape(width: side, height: side, topology: .plane)
        let corner = PlacedCells(cells: Self.glider, left: plane.left + side - 10, top: plane.top + side - 10)
        let edged = try SparsePlane(parts: [corner], rule: .life, board: plane)
        edged.advance(100)
        #expect(edged.population == 4)
        #expect(edged.bounds == CellBounds(left: plane.left + side - 2, top: plane.top + side - 2, width: 2, height: 2))
        #expect(edged.tileCount <= 4)
        let torus = BoardShape(width: 256, height: 128, topology: .torus)
        let round = try SparsePlane(parts: [PlacedCells(cells: Self.glider, left: 100, top: 50)], rule: .life, board: torus)
        round.advance(4 * 256)
        #expect(round.cells(in: CellBounds(left: 100, top: 50, width: 3, height: 3)) == Self.glider)
        #expect(round.population == 5)
    }

    /// What a sparse map cannot hold is said: B0 rules on a bounded grid, a torus whose
    /// sides are not whole tiles.
    @Test func boundedGridsItCannotHoldAreRefused() throws {
        #expect(!SparsePlane.holds(BoardShape(width: 100, height: 64, topology: .torus), rule: .life))
        #expect(!SparsePlane.holds(BoardShape(width: 64, height: 64, topology: .plane), rule: try Rule(parsing: "B0/S8")))
        #expect(SparsePlane.holds(BoardShape(width: 100, height: 3, topology: .plane), rule: .life))
        #expect(throws: TesseraError.self) { try SparsePlane(rule: .life, board: BoardShape(width: 65, height: 64, topology: .torus)) }
    }

    /// A frame from the tiles in view is the cells reduced dot by dot, at every zoom,
    /// from dots smaller than a tile to dots many tiles wide, on and off tile edges.
    @Test func framesAreTheCellsReducedToDots() throws {
        let soup = Self.soup(seed: 11, width: 300, height: 200, density: 0.02)
        let plane = try SparsePlane(parts: [PlacedCells(cells: soup, left: -130, top: -77),
                                            PlacedCells(cells: Self.glider, left: 100_000, top: -40_000)], rule: .life)
        plane.advance(9)
        var generator = SplitMix64(seed: 5)
        for z in [1, 2, 3, 7, 64, 100, 128, 1000] {
            for _ in 0..<6 {
                let x = Int(generator.next() % 400) - 250, y = Int(generator.next() % 300) - 150
                let most = max(1, 2000 / z)
                let view = Viewport(x: x, y: y, cellsPerDot: z, width: 1 + Int(generator.next() % UInt64(most)),
                                    height: 1 + Int(generator.next() % UInt64(most)))
                let cells = plane.cells(in: CellBounds(left: view.x, top: view.y, width: view.width * z, height: view.height * z))
                var expected = BitGrid(width: view.width, height: view.height)
                for cy in 0..<cells.height {
                    for cx in 0..<cells.width where cells[cx, cy] { expected[cx / z, cy / z] = true }
                }
                #expect(plane.dots(in: view) == expected, "\(view)")
            }
        }
    }
}
