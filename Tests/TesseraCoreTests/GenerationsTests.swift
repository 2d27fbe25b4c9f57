import Testing
@testable import TesseraCore

@Suite struct GenerationsTests {
    /// Names as bgolly 3.3 writes them: survival, birth, states, neighbourhood.
    @Test(arguments: [("345/3/6", "345/3/6"), ("543/3/6", "345/3/6"), ("345/3/6h", "345/3/6H"), ("B3/S345/6", "345/3/6"),
                      ("S345/B3/6", "345/3/6"), ("/2/3", "/2/3"), ("0345/3/6", "0345/3/6"), ("23/3/02", "23/3/2"),
                      ("2/13/21", "2/13/21"), ("34/2/5V", "34/2/5V")])
    func namesAsGollyDoes(text: String, name: String) throws {
        #expect(try Rule(parsing: text).description == name)
    }

    /// Two states make the two-state rule, which tiles and HashLife run.
    @Test func twoStatesAreATwoStateRule() throws {
        let rule = try Rule(parsing: "23/3/2")
        #expect(rule.generations == nil && rule.isTwoStateMoore && rule == .life)
    }

    @Test(arguments: ["B3/S345/C6", "345/3/1", "345/3/257", "345/03/6", "345/3/6V", "345/3/x", "B2/S34H/3"])
    func refusesWhatGollyRefuses(text: String) {
        #expect(throws: TesseraError.self) { try Rule(parsing: text) }
    }

    /// The bit-plane step against the rule applied cell by cell, on tori and planes,
    /// for Moore, hexagonal and von Neumann neighbourhoods and up to 200 states.
    @Test func theStepIsTheRuleCellByCell() throws {
        var generator = SplitMix64(seed: 12)
        for round in 0..<60 {
            let neighbourhood = ["", "H", "V"][round % 3]
            let most = neighbourhood == "" ? 8 : neighbourhood == "H" ? 6 : 4
            func digits(from low: Int) -> String { (low...most).filter { _ in generator.next() % 2 == 0 }.map(String.init).joined() }
            let states = [3, 4, 7, 25, 200][round % 5]
            let rule = try #require(try Rule(parsing: "\(digits(from: 0))/\(digits(from: 1))/\(states)\(neighbourhood)").generations)
            let (width, height) = (Int(generator.next() % 90) + 1, Int(generator.next() % 12) + 1)
            let wraps = round % 2 == 0
            var cells = StateGrid.soup(width: width, height: height, states: states, using: &generator)
            var next = StateGrid(width: width, height: height, states: states)
            for _ in 0..<3 {
                try cells.step(alive: rule.alive, states: rule.states, into: &next, wraps: wraps)
                let expected = Self.naive(cells, rule: rule, wraps: wraps)
                #expect(next == expected, "\(rule) \(width)x\(height) wraps \(wraps)")
                cells = expected
            }
        }
    }

    /// The same where the kernel's layout has edges of its own: rows of exactly 64 and
    /// 256 cells (a torus's wrapped neighbour in the guard word after the row), wider
    /// than one 256-cell column, one cell, and more rows than one band of 64.
    @Test(arguments: [(256, 66), (64, 65), (300, 20), (1, 1), (1, 66), (65, 3)])
    func theStepIsTheRuleCellByCellAtTheKernelsEdges(width: Int, height: Int) throws {
        var generator = SplitMix64(seed: UInt64(width * 1000 + height))
        for (round, text) in ["345/3/6", "0126/23/5H", "12/34/3V", "/2/256", "23/3/3"].enumerated() {
            let rule = try #require(try Rule(parsing: text).generations)
            var cells = StateGrid.soup(width: width, height: height, states: rule.states, using: &generator)
            var next = StateGrid(width: width, height: height, states: rule.states)
            for wraps in [round % 2 == 0, round % 2 != 0] {
                try cells.step(alive: rule.alive, states: rule.states, into: &next, wraps: wraps)
                let expected = Self.naive(cells, rule: rule, wraps: wraps)
                #expect(next == expected, "\(rule) \(width)x\(height) wraps \(wraps)")
                cells = expected
            }
        }
    }

    /// Both kernels, where this CPU has AVX2, give the same states.
    @Test func theKernelsAgree() throws {
        guard Kernel.Implementation.avx2.isSupported else { return }
        var generator = SplitMix64(seed: 33)
        for (round, text) in ["345/3/6", "2367/3457/5", "23/3/8H", "12/34/3V"].enumerated() {
            let rule = try #require(try Rule(parsing: text).generations)
            let (width, height) = [(300, 140), (256, 64), (511, 70), (70, 300)][round]
            var cells = StateGrid.soup(width: width, height: height, states: rule.states, using: &generator)
            var (avx2, portable) = (StateGrid(width: width, height: height, states: rule.states), StateGrid(width: width, height: height, states: rule.states))
            for generation in 0..<6 {
                let wraps = generation % 2 == 0
                try cells.step(alive: rule.alive, states: rule.states, into: &avx2, wraps: wraps, using: .avx2)
                try cells.step(alive: rule.alive, states: rule.states, into: &portable, wraps: wraps, using: .portable)
                #expect(avx2 == portable, "\(rule) \(width)x\(height) generation \(generation)")
                cells = avx2
            }
        }
    }

    /// A board large enough to be stepped in bands on every core (`RowBands`) gives the
    /// states of stepping it on one thread, on a torus and a plane, its height no
    /// multiple of a band. (One core steps it in one band: the same call.)
    @Test func bandsOnEveryCoreGiveTheOneThreadStep() throws {
        var generator = SplitMix64(seed: 35)
        for (text, width, height) in [("345/3/6", 700, 453), ("23/3/8H", 520, 517)] {
            let rule = try #require(try Rule(parsing: text).generations)
            var cells = StateGrid.soup(width: width, height: height, states: rule.states, using: &generator)
            var (banded, alone) = (StateGrid(width: width, height: height, states: rule.states), StateGrid(width: width, height: height, states: rule.states))
            for generation in 0..<4 {
                let wraps = generation % 2 == 0
                try cells.step(alive: rule.alive, states: rule.states, into: &banded, wraps: wraps, onEveryCore: true)
                try cells.step(alive: rule.alive, states: rule.states, into: &alone, wraps: wraps)
                let same = banded == alone  // not the grids themselves in a failure's message
                #expect(same, "\(rule) \(width)x\(height) generation \(generation)")
                cells = banded
            }
        }
    }

    static func naive(_ cells: StateGrid, rule: Generations, wraps: Bool) -> StateGrid {
        var next = StateGrid(width: cells.width, height: cells.height, states: rule.states)
        let alive = rule.alive
        for y in 0..<cells.height {
            for x in 0..<cells.width {
                var index = 0
                for dy in -1...1 {
                    for dx in -1...1 {
                        var (nx, ny) = (x + dx, y + dy)
                        if wraps {
                            (nx, ny) = ((nx + cells.width) % cells.width, (ny + cells.height) % cells.height)
                        } else if nx < 0 || ny < 0 || nx >= cells.width || ny >= cells.height {
                            continue
                        }
                        if cells[nx, ny] == 1 { index |= 1 << ((dy + 1) * 3 + dx + 1) }
                    }
                }
                next[x, y] = nextState(cells[x, y], decided: alive.next(index), states: rule.states)
            }
        }
        return next
    }
}
