import Testing
import TesseraCore
import TesseraPatterns
@testable import TesseraRun

/// The unbounded plane of the whole-board engines as a sparse map of tiles stepped as
/// one stack of blocks (`StackedPlane`), against the same engine stepping one dense board
/// with room around everything: cells, states, population and box, generation by
/// generation, for soups astride tile corners at negative coordinates and a patch far
/// off; and tiles kept only where a cell is.
@Suite struct StackedPlaneTests {
    /// The engine's step of a board with dead edges, as `WholeBoard` hands it over.
    static func step(_ rule: Rule) -> ([BitGrid]) throws -> [BitGrid] {
        if let generations = rule.generations {
            let alive = generations.alive
            return { planes in
                var next = StateGrid(width: planes[0].width, height: planes[0].height, states: generations.states)
                try StateGrid(layers: planes).step(alive: alive, states: generations.states, into: &next, wraps: false)
                return next.planes
            }
        }
        let ltl = rule.largerThanLife!
        if ltl.states > 2 {
            return { planes in
                var next = StateGrid(width: planes[0].width, height: planes[0].height, states: ltl.states)
                try StateGrid(layers: planes).step(ltl, into: &next, wraps: false)
                return next.planes
            }
        }
        return { planes in
            var next = BitGrid(width: planes[0].width, height: planes[0].height)
            try ltl.step(planes[0], into: &next, wraps: false)
            return [next]
        }
    }

    /// Astride the tiles' corner at (0, 0), then (-64, -128), and one far to the east.
    static let patches = [(x: -40, y: -30, width: 90, height: 70), (x: -100, y: -150, width: 60, height: 40),
                          (x: 700, y: -380, width: 24, height: 30)]

    /// Seeded cells in every state of `states`, in `patches` (Golly's coordinates), on a
    /// board whose top-left cell is at Golly's `origin`.
    static func start(states: Int, width: Int, height: Int, origin: (x: Int, y: Int), seed: UInt64,
                      patches: [(x: Int, y: Int, width: Int, height: Int)] = patches) -> StateGrid {
        var random = SplitMix64(seed: seed)
        var grid = StateGrid(width: width, height: height, states: states)
        for patch in patches {
            for y in patch.y..<patch.y + patch.height {
                for x in patch.x..<patch.x + patch.width where random.next() % 100 < 40 {
                    // Mostly live cells, some in the other states.
                    let state = random.next() % 4 == 0 ? 1 + Int(random.next() % UInt64(states - 1)) : 1
                    grid[x - origin.x, y - origin.y] = state
                }
            }
        }
        return grid
    }

    /// The rules, and how many generations each.
    static let rules = [("345/3/6", 30), ("3458/37/4", 40), ("R5,C0,M1,S34..58,B34..45,NM", 24), ("R2,C4,M1,S3..6,B4..5,NM", 30),
                        ("R32,C0,M1,S800..2000,B700..1200,NM", 6)]

    /// Tiles as blocks (`largestBox` 0), and a small pattern's box as one board where
    /// that is smaller (the first patch alone).
    @Test(arguments: rules, [0, 1 << 16])
    func tilesStepAsOneBoard(rule: (text: String, generations: Int), largestBox: Int) throws {
        let (text, generations) = rule
        let rule = try Rule(parsing: text)
        let reach = rule.largerThanLife?.range ?? 1
        // Room for everything to spread by its reach each generation.
        let room = reach * (generations + 1) + 8
        let origin = (x: -150 - room, y: -400 - room)
        let (width, height) = (724 + 150 + 2 * room, 440 + 2 * room)
        let patches = largestBox == 0 ? Self.patches : [Self.patches[0]]
        var dense = Self.start(states: rule.states, width: width, height: height, origin: origin, seed: 26, patches: patches).planes
        if rule.states == 2 { dense = [dense[0]] }
        var plane = StackedPlane(planes: dense, origin: origin, reach: reach)
        plane.largestBox = largestBox
        let step = Self.step(rule)
        let whole = CellBounds(left: origin.x, top: origin.y, width: width, height: height)
        for generation in 1...generations {
            dense = try step(dense)
            try plane.advance(by: step)
            let occupied = StateGrid(layers: dense).occupied
            let same = plane.planes(in: whole) == dense  // (not in the expectation: it would print every word)
            #expect(same, "\(text): generation \(generation)")
            #expect(plane.population == occupied.population, "\(text): generation \(generation)")
            #expect(plane.bounds == occupied.liveBounds.map {
                CellBounds(left: origin.x + $0.x, top: origin.y + $0.y, width: $0.width, height: $0.height)
            }, "\(text): generation \(generation)")
            // A tile is kept where a cell is, and nowhere else.
            var tiles = Set<TileKey>()
            for y in 0..<height {
                occupied.forEachLive(inRow: y) { x in tiles.insert(TileKey(cellX: origin.x + x, y: origin.y + y)) }
            }
            #expect(plane.tileCount == tiles.count, "\(text): generation \(generation)")
        }
        #expect(!plane.isEmpty, "\(text): something lives to the end")
    }
}

extension StackedPlaneTests {
    /// A lone cell at each corner of a tile, under a rule born of one neighbour: its
    /// births reach into the tiles across the corners (and only a tile's own corner
    /// cell could have made them).
    @Test(arguments: ["12/1/3", "R2,C0,M1,S1..3,B1..1,NM"])
    func aCornerReachesTheTileAcrossIt(rule text: String) throws {
        let rule = try Rule(parsing: text)
        let reach = rule.largerThanLife?.range ?? 1
        let origin = (x: -64, y: -64)
        var dense = StateGrid(width: 192, height: 192, states: rule.states)
        for (x, y) in [(64, 64), (127, 64), (64, 127), (127, 127)] { dense[x, y] = 1 }
        var planes = rule.states == 2 ? [dense.planes[0]] : dense.planes
        var plane = StackedPlane(planes: planes, origin: origin, reach: reach)
        plane.largestBox = 0  // (the four corners' box would be stepped as one board)
        let step = Self.step(rule)
        planes = try step(planes)
        try plane.advance(by: step)
        let same = plane.planes(in: CellBounds(left: origin.x, top: origin.y, width: 192, height: 192)) == planes
        #expect(same)
        #expect(plane.tileCount == 9)
    }
}

extension StackedPlaneTests {
    /// Cells placed 2^40 cells apart cost their tiles alone and step as each would
    /// alone; cells placed over others write their states over them, as `StateGrid.place`.
    @Test func partsFarApartStepAsEachAlone() throws {
        let rule = try Rule(parsing: "345/3/6")
        let step = Self.step(rule)
        let soup = Self.start(states: 6, width: 200, height: 160, origin: (-100, -80), seed: 7,
                              patches: [(x: -70, y: -50, width: 140, height: 100)])
        let far = (x: 1 << 40, y: -(1 << 40))
        var both = StackedPlane(planes: 3, reach: 1)
        for origin in [(x: -100, y: -80), (x: far.x - 100, y: far.y - 80)] {
            both.place(StateGrid(ones: soup.occupied, states: 6).planes, origin: origin)
            both.place(soup.planes, origin: origin)
        }
        var alone = StackedPlane(planes: soup.planes, origin: (-100, -80), reach: 1)
        #expect(both.tileCount == 2 * alone.tileCount)
        for _ in 0..<20 {
            try both.advance(by: step)
            try alone.advance(by: step)
        }
        let near = try #require(alone.bounds)
        let there = CellBounds(left: near.left + far.x, top: near.top + far.y, width: near.width, height: near.height)
        #expect(both.planes(in: near) == alone.planes(in: near) && both.planes(in: there) == alone.planes(in: near))
        #expect(both.tileCount == 2 * alone.tileCount && both.population == 2 * alone.population)
    }
}

extension StackedPlaneTests {
    /// A frame reads the cells of a rectangle tile by tile: those of the grid the plane
    /// was made from, in their states, in a rectangle that cuts through tiles.
    @Test func aRectanglesCellsAreTheGridsCells() {
        let origin = (x: -200, y: -450)
        let grid = Self.start(states: 5, width: 1000, height: 500, origin: origin, seed: 11)
        let plane = StackedPlane(planes: grid.planes, origin: origin, reach: 1)
        let area = CellBounds(left: -77, top: -141, width: 813, height: 150)
        var seen: [[Int]] = [], expected: [[Int]] = []
        plane.forEachCell(in: area) { x, y, state in seen.append([x, y, state]) }
        for y in area.top..<area.bottom {
            for x in area.left..<area.right where grid[x - origin.x, y - origin.y] != 0 {
                expected.append([x, y, grid[x - origin.x, y - origin.y]])
            }
        }
        #expect(expected.count > 100)
        #expect(seen.sorted { ($0[1], $0[0]) < ($1[1], $1[0]) } == expected)
    }
}

extension StackedPlaneTests {
    /// A macrocell read tile by tile is the one read from a grid of the same cells: the
    /// same squares in the same order, under the same root (Golly's root corner lies a
    /// row off the tiles).
    @Test func squaresReadFromTilesAreTheGridsSquares() {
        let origin = (x: -200, y: -450)
        let grid = Self.start(states: 5, width: 1000, height: 500, origin: origin, seed: 12)
        let plane = StackedPlane(planes: grid.planes, origin: origin, reach: 1)
        let squares = plane.squares()
        #expect(squares.nodes.count > 1000)
        #expect(squares == Macrocell.squares(ofStates: grid, left: origin.x, top: origin.y))
        #expect(StackedPlane(planes: 3, reach: 1).squares().nodes.isEmpty)
    }
}

extension StackedPlaneTests {
    /// A pattern's squares (`Pattern.stateTree`) fill the tiles their cells lie in, each
    /// cell in its state: the plane made from the grid of the same cells, tile for tile.
    @Test func squaresPlacedFillTheTilesTheGridWould() throws {
        let origin = (x: -200, y: -450)
        let grid = Self.start(states: 5, width: 1000, height: 500, origin: origin, seed: 13)
        let expected = StackedPlane(planes: grid.planes, origin: origin, reach: 1)
        var placed = StackedPlane(planes: 3, reach: 1)
        placed.place(Macrocell.squares(ofStates: grid, left: origin.x, top: origin.y))
        let box = try #require(expected.bounds)
        #expect(placed.tileCount == expected.tileCount && placed.population == expected.population && placed.bounds == box)
        #expect(placed.planes(in: box) == expected.planes(in: box))
    }
}

extension StackedPlaneTests {
    /// A frame's dots from the tiles (`forEachDot`: a tile under one dot by its lowest
    /// state, read until a cell in state 1; others cell by cell) are the grid's, each the
    /// lowest state under it, at every zoom, from views that cut through tiles.
    @Test(arguments: [1, 3, 64, 100, 256])
    func dotsFromTilesAreTheGridsDots(cellsPerDot: Int) {
        let origin = (x: -200, y: -450)
        let grid = Self.start(states: 5, width: 1000, height: 500, origin: origin, seed: 14)
        let plane = StackedPlane(planes: grid.planes, origin: origin, reach: 1)
        for (x, y) in [(-30, -20), (-95, -145), (705, -375)] {
            let view = Viewport(x: x, y: y, cellsPerDot: cellsPerDot, width: 40, height: 25)
            var dots = [UInt8](repeating: 0, count: view.width * view.height)
            plane.forEachDot(in: view) { column, row, state in
                let at = row * view.width + column
                if dots[at] == 0 || Int(dots[at]) > state { dots[at] = UInt8(state) }
            }
            let expected = grid.stateDots(in: view, left: view.x - origin.x, top: view.y - origin.y)
            #expect(dots == expected, "view at (\(x), \(y))")
            #expect(dots.contains { $0 > 1 } || cellsPerDot > 3)
        }
    }
}
