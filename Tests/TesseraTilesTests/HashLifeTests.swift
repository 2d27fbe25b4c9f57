import CTesseraKernel
import Testing
import TesseraCore
import TesseraHashLife
import TesseraPatterns

/// HashLife against the rule applied cell by cell, on a plane wide enough that nothing
/// reaches its edge: the unbounded plane, for as long as the test runs.
@Suite struct HashLifeTests {
    /// A seeded soup of `side`² cells at (`left`, `top`), and the plane around it with
    /// room for `generations` of growth, as naive Life steps it.
    struct Case {
        let soup: BitGrid
        let left: Int, top: Int
        let rule: Rule

        init(seed: UInt64, side: Int, density: Double = 0.4, left: Int = -7, top: Int = 5, rule: Rule = .life) {
            var generator = SplitMix64(seed: seed)
            var soup = BitGrid(width: side, height: side)
            for y in 0..<side {
                for x in 0..<side where Double(generator.next() % 1000) < density * 1000 { soup[x, y] = true }
            }
            (self.soup, self.left, self.top, self.rule) = (soup, left, top, rule)
        }

        /// Naive Life's cells after `generations`, as a grid whose corner is (left − room, top − room).
        func naive(after generations: Int) -> (cells: BitGrid, room: Int) {
            let room = generations + 2
            var plane = BitGrid(width: soup.width + 2 * room, height: soup.height + 2 * room)
            soup.copy(into: &plane, atX: room, y: room)
            return (NaiveLife.run(plane, rule: rule, topology: .plane, generations: generations), room)
        }

        func hashLife(nodeLimit: Int = 1 << 22) throws -> HashLife {
            try HashLife(parts: [PlacedCells(cells: soup, left: left, top: top)], rule: rule, generation: 0, nodeLimit: nodeLimit)
        }
    }

    func expectSame(_ life: borrowing HashLife, _ naive: (cells: BitGrid, room: Int), _ c: Case, _ note: String) {
        let area = CellBounds(left: c.left - naive.room, top: c.top - naive.room, width: naive.cells.width, height: naive.cells.height)
        #expect(life.cells(in: area) == naive.cells, "\(note)")
        #expect(Int(life.population) == naive.cells.population, "\(note)")
        if let box = naive.cells.liveBounds {
            #expect(life.bounds == CellBounds(left: area.left + box.x, top: area.top + box.y, width: box.width, height: box.height), "\(note)")
        } else {
            #expect(life.bounds == nil, "\(note)")
        }
    }

    /// Every count up to 70 (each a different mix of powers of two, so of the
    /// result's speeds), under several rules.
    @Test(arguments: [("B3/S23", 1), ("B36/S23", 2), ("B2/S", 3), ("B34/S34", 4), ("B1/S1", 5)])
    func everyGenerationCountMatchesNaiveLife(rule: String, seed: UInt64) throws {
        let c = Case(seed: seed, side: 12, rule: try Rule(parsing: rule))
        for generations in [0, 1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 33, 64, 70] {
            var life = try c.hashLife()
            try life.advance(UInt64(generations))
            #expect(life.generation == UInt64(generations))
            expectSame(life, c.naive(after: generations), c, "\(rule) after \(generations)")
        }
    }

    /// The base case, a 32×32 square of sixteen leaves stepped 1, 2, 4 or 8 generations,
    /// against naive Life on its centre 16×16: both the AVX2 path (on a CPU with it) and
    /// the one every x86-64 CPU takes, which this machine would otherwise never run.
    @Test(arguments: ["B3/S23", "B36/S23", "B2/S", "B34/S34", "B1/S1", "B2-a/S12", "B2aei3r4kn5jnr6k/S2ai3k4iknqr5r6ai", "B2/S013V"])
    func theBaseCaseMatchesNaiveLife(rule text: String) throws {
        let rule = try Rule(parsing: text)
        var generator = SplitMix64(seed: 21)
        for sparseness in 1...3 {
            // Leaves in rows of four from the top-left; byte r of a leaf is its row r. A
            // cell lives with odds 1 in 2^sparseness.
            let leaves = (0..<16).map { _ in (1..<sparseness).reduce(generator.next()) { bits, _ in bits & generator.next() } }
            var square = BitGrid(width: 32, height: 32)
            for (index, leaf) in leaves.enumerated() {
                for bit in 0..<64 where leaf >> UInt64(bit) & 1 == 1 { square[index % 4 * 8 + bit % 8, index / 4 * 8 + bit / 8] = true }
            }
            for generations in [1, 2, 4, 8] {
                let stepped = NaiveLife.run(square, rule: rule, topology: .plane, generations: generations)
                let expected = [(8, 8), (16, 8), (8, 16), (16, 16)].map { x, y in
                    (0..<64).reduce(UInt64(0)) { $0 | (stepped[x + $1 % 8, y + $1 / 8] ? 1 << UInt64($1) : 0) }
                }
                for (name, function) in [("dispatched", tessera_square_result), ("narrow", tessera_square_result_narrow)] {
                    let centre = leaves.withUnsafeBufferPointer { cells in
                        rule.withKernelRule { function(cells.baseAddress!, Int32(generations), $0) }
                    }
                    #expect([centre.nw, centre.ne, centre.sw, centre.se] == expected, "\(name), \(text), \(generations) generations")
                }
            }
        }
    }

    /// Steps of different sizes, one after another: each forgets the last one's results.
    @Test func stepsOfMixedSizesAddUp() throws {
        let c = Case(seed: 9, side: 24)
        var life = try c.hashLife()
        var total = 0
        for step in [3, 16, 1, 40, 8, 27] {
            try life.advance(UInt64(step))
            total += step
            expectSame(life, c.naive(after: total), c, "after \(total)")
        }
    }

    /// Far from the origin, in every quadrant's sign.
    @Test(arguments: [(1_000_000_007, -999_999_937), (-(1 << 61), 1 << 61), (-3, -5)])
    func farCoordinates(left: Int, top: Int) throws {
        let c = Case(seed: 4, side: 10, left: left, top: top)
        var life = try c.hashLife()
        try life.advance(37)
        expectSame(life, c.naive(after: 37), c, "at \(left), \(top)")
    }

    /// A frame drawn from the squares is the sparse map's frame of the same cells, at
    /// every zoom and offset (a dot of z cells, which squares straddle or fit whole), far
    /// from the origin and near it.
    @Test(arguments: [(-300, -200), (1_000_000_007, -999_999_937)])
    func framesFromTheSquaresAreTheSparseMaps(left: Int, top: Int) throws {
        let parts = [PlacedCells(cells: try Soup(density: 0.3, seed: 9).cells(x: 0, y: 0, width: 500, height: 300), left: left, top: top),
                     PlacedCells(cells: try Soup(density: 0.5, seed: 10).cells(x: 0, y: 0, width: 40, height: 40),
                                 left: left + 700, top: top + 450)]
        var life = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 20)
        try life.advance(30)
        let plane = try SparsePlane(parts: life.placedCells(), rule: .life)
        var generator = SplitMix64(seed: 12)
        for z in [1, 2, 3, 7, 8, 13, 40, 64, 100] {
            for _ in 0..<4 {
                let (dx, dy) = (Int(generator.next() % 200) - 100, Int(generator.next() % 200) - 100)
                let view = Viewport(x: left + dx, y: top + dy, cellsPerDot: z, width: 37, height: 23)
                #expect(life.dots(in: view) == plane.frame(view), "z \(z) at \(view.x), \(view.y)")
            }
        }
    }

    /// A store too small for the run collects what the universe no longer reaches, and
    /// goes on to the same cells; one too small for a single step says so.
    @Test func aSmallStoreCollectsAndStillMatches() throws {
        let c = Case(seed: 12, side: 32)
        var roomy = try c.hashLife()
        try roomy.advance(150)
        var tight = try c.hashLife(nodeLimit: roomy.nodeCount / 3)
        for _ in 0..<5 { try tight.advance(30) }
        expectSame(tight, c.naive(after: 150), c, "collected")
        #expect(tight.nodeCount < roomy.nodeCount)
        var tiny = try c.hashLife(nodeLimit: 64)
        #expect(throws: HashLife.OutOfNodes.self) { try tiny.advance(150) }
    }

    /// Five blocks 1000 cells apart fill five 32×32 squares however the root is placed
    /// (each block lies inside an 8-cell column and row, and the root's corner moves in
    /// steps of 8 or more); the count stays right as the universe steps, and after a
    /// small store has collected and renumbered its squares (a count kept under an old
    /// number would be another square's).
    @Test func occupiedSquaresCountsWhereCellsAre() throws {
        var blocks = BitGrid(width: 4002, height: 2)
        for x in stride(from: 0, through: 4000, by: 1000) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { blocks[x + dx, dy] = true }
        }
        let parts = [PlacedCells(cells: blocks, left: 3, top: -7)]
        var roomy = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 20)
        #expect(roomy.occupiedSquares == 5)
        for _ in 0..<4 { try roomy.advance(64) }
        #expect(roomy.occupiedSquares == 5)
        // Room for half again what the universe holds: the store is over half full at
        // the start of every step, so every step collects and renumbers.
        var tight = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: roomy.nodeCount * 3 / 2)
        for step in 0..<8 {
            try tight.advance(UInt64(1) << UInt64(step % 4 + 3))
            #expect(tight.occupiedSquares == 5, "after step \(step)")
        }
        #expect(tight.population == 20)
    }

    @Test func emptyStaysEmpty() throws {
        var life = try HashLife(parts: [], rule: .life, generation: 5, nodeLimit: 1 << 16)
        try life.advance(1_000_000)
        #expect(life.generation == 1_000_005)
        #expect(life.population == 0)
        #expect(life.bounds == nil)
    }

    /// A square counts its cells up to 2^32 − 1; past that the universe adds up its
    /// quadrants': 2^40 live cells and 3·2^40 + 2^38 (a full square of level 20, and one
    /// of level 21 with one quadrant a quarter full), each exact.
    @Test func populationsPastFourBillionAreExact() throws {
        // A full leaf, then full squares up to level 20 (node k + 1 is level k + 3).
        var nodes: [QuadTree.Node] = [.leaf(~0)]
        for level in 4...20 { nodes.append(.branch(level: level, children: Array(repeating: level - 3, count: 4))) }
        let full = try HashLife(tree: QuadTree(nodes: nodes, left: 0, top: 0), rule: .life, generation: 0, nodeLimit: 1 << 16)
        #expect(full.population == 1 << 40)
        // Level 19 full is node 17; a level-20 square holding one of it, then level 21.
        nodes.append(.branch(level: 20, children: [17, 0, 0, 0]))
        nodes.append(.branch(level: 21, children: [18, 18, 18, nodes.count]))
        let mixed = try HashLife(tree: QuadTree(nodes: nodes, left: 0, top: 0), rule: .life, generation: 0, nodeLimit: 1 << 16)
        #expect(mixed.population == 3 << 40 | 1 << 38)
    }

    /// A macrocell whose live cells span millions of cells is read as its tree, its
    /// parts unmade; HashLife built from the tree node for node steps as one built from
    /// the cells, and the parts, made when asked for, are the tree's cells.
    @Test func aMacrocellTreeIsTakenNodeForNode() throws {
        let soup = Case(seed: 21, side: 40).soup
        let parts = [PlacedCells(cells: soup, left: -3_000_000, top: 17),
                     PlacedCells(cells: Case(seed: 22, side: 30).soup, left: 5_000_000, top: -2_000_000)]
        let pattern = try Macrocell.parse(Macrocell.string(for: parts, rule: "B3/S23", generation: 0))
        let tree = try #require(pattern.tree)
        #expect(pattern.pending != nil && pattern.hasParts)
        var fromTree = try HashLife(tree: tree, rule: .life, generation: 0, nodeLimit: 1 << 22)
        var fromCells = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 22)
        #expect(fromTree.population == fromCells.population && fromTree.bounds == fromCells.bounds)
        for generations: UInt64 in [1, 30, 1000] {
            try fromTree.advance(generations)
            try fromCells.advance(generations)
            #expect(fromTree.population == fromCells.population, "generation \(fromTree.generation)")
            let cellsBounds = fromCells.bounds
            let box = try #require(cellsBounds)
            #expect(fromTree.bounds == box)
            for part in fromCells.placedCells() { #expect(fromTree.cells(in: part.bounds) == part.cells) }
        }
        // The parts, made now, hold the file's cells where they lie.
        let made = pattern.parts
        #expect(made.reduce(0) { $0 + $1.cells.population } == soup.population + parts[1].cells.population)
        #expect(made.allSatisfy { part in parts.contains { $0.bounds.intersection(part.bounds) != nil } })
    }

    /// The macrocell written straight from HashLife's squares is the one written from
    /// its cells, line for line: roots anywhere (built from cells at odd places, grown
    /// by the run), shifted onto Golly's centred root; patterns near the origin and
    /// far from it, with the gun's stream repeating squares.
    @Test(arguments: [(-37, 5, 0 as UInt64), (1001, -999, 300), (-5_000_003, 77, 1000), (0, 0, 4096)])
    func aMacrocellFromTheSquaresIsTheOneFromTheCells(left: Int, top: Int, generations: UInt64) throws {
        let gun = try RLE.parse("x = 36, y = 9\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!").cells
        let parts = [PlacedCells(cells: Case(seed: 5, side: 30).soup, left: left, top: top),
                     PlacedCells(cells: gun, left: left + 200, top: top - 100)]
        var life = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 22)
        try life.advance(generations)
        let rooted = life.quadTree()
        let tree = try #require(rooted)
        let fromCells = Macrocell.string(for: life.placedCells(), rule: "B3/S23", generation: life.generation)
        #expect(Macrocell.string(for: tree, rule: "B3/S23", generation: life.generation) == fromCells)
        // And it reads back as the same cells.
        let again = try Macrocell.parse(fromCells)
        #expect(again.placedParts(on: .infinite).reduce(0) { $0 + $1.cells.population } == Int(life.population))
    }
}
