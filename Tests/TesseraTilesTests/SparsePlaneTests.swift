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
    @Test(arguments: [("B3/S23", 1), ("B36/S23", 2), ("B2/S", 3), ("B34/S34", 4), ("B3678/S34678", 5), ("B0123478/S01234678", 6)])
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
}
