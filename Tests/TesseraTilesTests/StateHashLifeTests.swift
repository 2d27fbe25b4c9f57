import Testing
import TesseraCore
@testable import TesseraHashLife
import TesseraPatterns

/// HashLife over a rule tree's states against the same tree stepping a board whole,
/// process-free: soups of every state, steps of one generation to 2^5, in orders that
/// change the step size (which forgets what was remembered) and pad the root.
@Suite struct StateHashLifeTests {
    /// What `grid` (its top-left at Golly's (left, top)) holds, as Golly's coordinates
    /// and states of the cells not in state 0.
    static func cells(of grid: StateGrid, left: Int, top: Int) -> [Int: Int] {
        var cells: [Int: Int] = [:]
        for y in 0..<grid.height {
            for x in 0..<grid.width where grid[x, y] != 0 { cells[(top + y) << 32 | (left + x)] = grid[x, y] }
        }
        return cells
    }

    static func soup(_ side: Int, states: Int, seed: UInt64) -> StateGrid {
        var random = SplitMix64(seed: seed)
        var grid = StateGrid(width: side, height: side, states: states)
        for y in 0..<side {
            for x in 0..<side where random.next() % 3 == 0 { grid[x, y] = Int(random.next() % UInt64(states)) }
        }
        return grid
    }

    @Test(arguments: ["JvN29", "Nobili32", "B3/S23"])
    func stepsAsTheBoardSteps(rule: String) throws {
        let tree = try VonNeumannRules.tree(named: rule) ?? RuleTree(twoState: Rule(parsing: rule))
        for (seed, exponents) in [(UInt64(1), [0, 1, 2, 3]), (2, [5, 0, 2]), (3, [3, 3, 1, 4])] {
            let start = Self.soup(24, states: tree.states, seed: seed)
            var life = StateHashLife(tree: tree, grid: start, left: -7, top: 11)
            // The board whole, wide enough that nothing reaches its edge: 32 generations
            // at a cell a generation on each side.
            let margin = 48
            var board = StateGrid(width: 24 + 2 * margin, height: 24 + 2 * margin, states: tree.states)
            board.place(start, atX: margin, y: margin)
            var next = StateGrid(width: board.width, height: board.height, states: tree.states)
            for exponent in exponents {
                life.step(exponent: exponent)
                for _ in 0..<(1 << exponent) {
                    try board.step(tree, into: &next, wraps: false)
                    swap(&board, &next)
                }
                var stepped: [Int: Int] = [:]
                life.forEachCell { x, y, state in stepped[y << 32 | x] = state }
                #expect(stepped == Self.cells(of: board, left: -7 - margin, top: 11 - margin), "\(rule), seed \(seed), 2^\(exponent)")
            }
        }
    }

    /// The box of the live cells, and nothing where everything died.
    @Test func readsBackTheLiveBox() throws {
        let tree = try RuleTree(twoState: Rule(parsing: "B3/S23"))
        var blinker = StateGrid(width: 5, height: 5, states: 2)
        for x in 1...3 { blinker[x, 2] = 1 }
        var life = StateHashLife(tree: tree, grid: blinker, left: 100, top: -50)
        life.step(exponent: 0)
        #expect(life.liveBounds()! == (x: 102, y: -49, width: 1, height: 3))
        var lone = StateGrid(width: 3, height: 3, states: 2)
        lone[1, 1] = 1
        var dying = StateHashLife(tree: tree, grid: lone, left: 0, top: 0)
        dying.step(exponent: 2)
        #expect(dying.liveBounds() == nil)
    }

    /// A macrocell's squares taken as they are (`Pattern.stateTree`) read back as the
    /// same squares, node for node, wherever Golly's root lies from HashLife's after
    /// steps; their population, rows, box and a viewer's dots are those of the cells
    /// made into a grid (`withStatesMade`).
    @Test(arguments: [[], [0], [2, 0, 3], [4, 4]])
    func squaresReadBackAsGollyWritesThem(exponents: [Int]) throws {
        let tree = try #require(VonNeumannRules.tree(named: "JvN29"))
        var grid = Self.soup(40, states: 29, seed: 7)
        for x in 0..<40 { grid[x, 20] = 9 + x % 4 }
        // Stepped as a grid first, then its macrocell read back as squares.
        var stepped = StateHashLife(tree: tree, grid: grid, left: -13, top: 5)
        for exponent in exponents { stepped.step(exponent: exponent) }
        var cells = StateGrid(width: 0, height: 0, states: 29), origin = (x: 0, y: 0)
        if let box = stepped.liveBounds() {
            cells = StateGrid(width: box.width, height: box.height, states: 29)
            origin = (box.x, box.y)
            stepped.forEachCell { x, y, state in cells[x - box.x, y - box.y] = state }
        }
        let text = Macrocell.string(forStates: cells, left: origin.x, top: origin.y, rule: "JvN29", generation: 0)
        #expect(Macrocell.string(forStateSquares: stepped.gollySquares(), rule: "JvN29", generation: 0) == text)
        let pattern = try Macrocell.parse(text)
        let squares = try #require(pattern.stateTree)
        var life = StateHashLife(tree: tree, squares: squares)
        #expect(life.gollySquares() == squares)
        let made = try pattern.withStatesMade()
        let states = try #require(made.states), position = try #require(made.position)
        #expect(life.population() == made.cells.population)
        if let box = life.liveBounds() {
            #expect(box == (x: position.x, y: position.y, width: states.width, height: states.height))
            for y in box.y..<box.y + box.height {
                var row: [Int] = []
                life.forEachCell(inRow: y) { x, state in row += [x - box.x, state] }
                let expected = (0..<states.width).filter { states[$0, y - box.y] != 0 }.flatMap { [$0, states[$0, y - box.y]] }
                #expect(row == expected, "row \(y)")
            }
            for cellsPerDot in [1, 3, 16] {
                let view = Viewport(x: box.x - 5, y: box.y + 2, cellsPerDot: cellsPerDot, width: 30, height: 20)
                #expect(life.dots(in: view) == made.cells.dots(in: view, left: view.x - position.x, top: view.y - position.y),
                        "\(cellsPerDot) cells a dot")
                #expect(life.stateDots(in: view) == states.stateDots(in: view, left: view.x - position.x, top: view.y - position.y),
                        "\(cellsPerDot) cells a dot, in states")
            }
        }
    }
}
