import CTesseraKernel
import Testing
@testable import TesseraCore

@Suite struct LargerThanLifeTests {
    /// Names as bgolly 3.3 writes them: C2 is C0, the short form is range, birth, survival.
    @Test(arguments: [
        ("R5,C0,M1,S34..58,B34..45,NM", "R5,C0,M1,S34..58,B34..45,NM"),
        ("R5,C2,M1,S34..58,B34..45,NM", "R5,C0,M1,S34..58,B34..45,NM"),
        ("5,34,45,34,58", "R5,C0,M1,S34..58,B34..45,NM"),
        ("R1,C0,M0,S2..3,B3..3,NM", "R1,C0,M0,S2..3,B3..3,NM"),
        ("R100,C0,M1,S5612..9776,B5612..7585,NN", "R100,C0,M1,S5612..9776,B5612..7585,NN"),
        ("R3,C0,M1,S4..9,B5..7,NC", "R3,C0,M1,S4..9,B5..7,NC"),
    ])
    func namesAsGollyDoes(text: String, name: String) throws {
        #expect(try Rule(parsing: text).description == name)
    }

    @Test(arguments: ["R0,C0,M1,S1..1,B1..1,NM", "R501,C0,M1,S1..1,B1..1,NM", "R1,C0,M2,S1..1,B1..1,NM",
                      "R1,C0,M1,S3..1,B1..1,NM", "R1,C0,M1,S1..10,B1..1,NM", "R1,C0,M1,S1..1,B1..1,NX",
                      "r1,c0,m1,s1..1,b1..1,nm", "R1,C0,M1,S1..1,B1..1,NM,"])
    func refusesWhatGollyRefuses(text: String) {
        #expect(throws: TesseraError.self) { try Rule(parsing: text) }
    }

    /// C3 and up keep history states, named as given; C1 and C2 are C0.
    @Test func historyStatesAreNamed() throws {
        let rule = try Rule(parsing: "R10,C255,M1,S2..3,B3..3,NM")
        #expect(rule.description == "R10,C255,M1,S2..3,B3..3,NM" && rule.states == 255)
        #expect(try Rule(parsing: "R1,C1,M1,S2..3,B3..3,NM").states == 2)
    }

    /// History: the live cells (state 1) counted and decided by the rule, a live cell
    /// that does not survive going to 2, a dying cell counting on to 0, not born into;
    /// against the rule applied cell by cell.
    @Test func historyStatesAreTheRuleCellByCell() throws {
        var generator = SplitMix64(seed: 44)
        for round in 0..<30 {
            let states = [3, 5, 30][round % 3]
            let shape = ["M", "N", "C"][round % 3]
            let rule = try #require(try LargerThanLife(parsing: "R2,C\(states),M1,S3..8,B3..6,N\(shape)"))
            let (width, height) = (Int(generator.next() % 50) + 5, Int(generator.next() % 20) + 5)
            let wraps = round % 2 == 0
            var cells = StateGrid.soup(width: width, height: height, states: states, using: &generator)
            var next = StateGrid(width: width, height: height, states: states)
            for _ in 0..<3 {
                try cells.step(rule, into: &next, wraps: wraps)
                var alive = BitGrid(width: width, height: height)
                for y in 0..<height { for x in 0..<width where cells[x, y] == 1 { alive[x, y] = true } }
                let decided = Self.naive(alive, rule: rule, wraps: wraps)
                var expected = StateGrid(width: width, height: height, states: states)
                for y in 0..<height {
                    for x in 0..<width { expected[x, y] = nextState(cells[x, y], decided: decided[x, y], states: states) }
                }
                #expect(next == expected, "\(rule) \(width)x\(height) wraps \(wraps)")
                cells = expected
            }
        }
    }

    /// Golly's grids: 400x400 where the suffix gives no size, each side at least twice the range.
    @Test func gridsAsGollyMakesThem() throws {
        #expect(try BoardShape.parseRule("R5,C0,M1,S34..58,B34..45,NM:T").1 == BoardShape(width: 400, height: 400, topology: .torus))
        #expect(try BoardShape.parseRule("R5,C0,M1,S34..58,B34..45,NM:P7,30").1 == BoardShape(width: 10, height: 30, topology: .plane))
        #expect(try BoardShape.parseRule("R5,C0,M1,S34..58,B34..45,NM:T20").1 == BoardShape(width: 20, height: 20, topology: .torus))
        #expect(try BoardShape.parseRule("R5,C0,M1,S34..58,B34..45,NM").1 == nil)
        #expect(throws: TesseraError.self) { try BoardShape.parseRule("R5,C0,M1,S34..58,B34..45,NM:K20,20") }
    }

    /// The kernel against the rule applied cell by cell, on tori (smaller than the
    /// neighbourhood too, where it counts a cell more than once, as Golly does) and
    /// planes, for every shape, with the cell counted and not.
    @Test func theKernelIsTheRuleCellByCell() throws {
        var generator = SplitMix64(seed: 31)
        for round in 0..<60 {
            let range = 1 + Int(generator.next() % 4)
            let shape = [LargerThanLife.Shape.moore, .vonNeumann, .circular][round % 3]
            let m = round % 2
            let most = (try LargerThanLife(parsing: "R\(range),C0,M\(m),S0..0,B0..0,N\(shape.rawValue)"))!.largestCount
            func span() -> (Int, Int) {
                let a = Int(generator.next() % UInt64(most + 1)), b = Int(generator.next() % UInt64(most + 1))
                return (min(a, b), max(a, b))
            }
            let (s, b) = (span(), span())
            let rule = try #require(try LargerThanLife(parsing: "R\(range),C0,M\(m),S\(s.0)..\(s.1),B\(max(1, b.0))..\(max(1, b.1)),N\(shape.rawValue)"))
            let (width, height) = (Int(generator.next() % 70) + 1, Int(generator.next() % 20) + 1)
            let wraps = round % 4 < 2
            var cells = BitGrid(width: width, height: height)
            for y in 0..<height { for x in 0..<width where generator.next() % 3 == 0 { cells[x, y] = true } }
            let expected = Self.naive(cells, rule: rule, wraps: wraps)
            for kernel in Kernel.Implementation.allCases where kernel.isSupported {
                var next = BitGrid(width: width, height: height)
                try rule.step(cells, into: &next, wraps: wraps, using: kernel)
                #expect(next == expected, "\(rule) \(width)x\(height) wraps \(wraps) \(kernel)")
            }
        }
    }

    /// The same at the AVX2 kernel's edges: rows of 32, 64 and 65 cells; the largest
    /// range it counts in 16 bits (127, each column's count 255, a torus of 3x2 counting
    /// its cells thousands of times), and the first past it (128, by prefix sums). The
    /// diamond's counts from diagonal sums: a range past the board, wide, one cell wide
    /// and one high, and the last range counted in 16 bits (180) and the first in 32.
    /// Even ranges leave the cell itself out (M0).
    @Test(arguments: [(5, 32, 40, "M"), (5, 64, 11, "M"), (7, 65, 30, "M"), (6, 5, 4, "M"), (10, 200, 25, "M"), (127, 3, 2, "M"),
                      (128, 3, 2, "M"), (127, 40, 1, "M"), (9, 3, 2, "N"), (6, 100, 30, "N"), (40, 50, 9, "N"), (3, 1, 5, "N"), (4, 7, 1, "N"),
                      (180, 3, 2, "N"), (181, 2, 3, "N")])
    func theKernelIsTheRuleAtItsEdges(range: Int, width: Int, height: Int, shape: String) throws {
        var generator = SplitMix64(seed: UInt64(range * 1000 + width))
        let m = range % 2
        let most = try #require(try LargerThanLife(parsing: "R\(range),C0,M\(m),S0..0,B0..0,N\(shape)")).largestCount
        let rule = try #require(try LargerThanLife(parsing: "R\(range),C0,M\(m),S\(most / 5)..\(most / 2),B\(max(1, most / 4))..\(most / 3),N\(shape)"))
        var cells = BitGrid(width: width, height: height)
        for y in 0..<height { for x in 0..<width where generator.next() % 2 == 0 { cells[x, y] = true } }
        for wraps in [true, false] {
            let expected = Self.naive(cells, rule: rule, wraps: wraps)
            for kernel in Kernel.Implementation.allCases where kernel.isSupported {
                var next = BitGrid(width: width, height: height)
                try rule.step(cells, into: &next, wraps: wraps, using: kernel)
                #expect(next == expected, "\(rule) \(width)x\(height) wraps \(wraps) \(kernel)")
            }
        }
    }

    /// A diamond of range 181 (65885 cells) on a full 2x3 torus counts past 2^16, and a
    /// survival range at the top tells a count from what 16 bits would keep of it.
    @Test func aDiamondPast16BitsCountsEveryCell() throws {
        let most = 2 * 181 * 181 + 2 * 181 + 1
        let rule = try #require(try LargerThanLife(parsing: "R181,C0,M1,S\(most - 20000)..\(most),B\(most - 20000)..\(most),NN"))
        var cells = BitGrid(width: 2, height: 3)
        for y in 0..<3 { for x in 0..<2 { cells[x, y] = true } }
        let expected = Self.naive(cells, rule: rule, wraps: true)
        #expect(expected.population == 6)
        for kernel in Kernel.Implementation.allCases where kernel.isSupported {
            var next = BitGrid(width: 2, height: 3)
            try rule.step(cells, into: &next, wraps: true, using: kernel)
            #expect(next == expected, "\(kernel)")
        }
    }

    /// A board large enough to be stepped in bands on every core (`RowBands`) gives the
    /// cells of stepping it on one thread: the box in bytes (range 5), in 16-bit sums
    /// (range 10) and in 32-bit ones (range 130), a disc (rows of prefix sums), on a
    /// torus and a plane, with history states, and a diamond, which its kernel steps
    /// whole. (One core steps it in one band: the same call.)
    @Test func bandsOnEveryCoreGiveTheOneThreadStep() throws {
        var generator = SplitMix64(seed: 45)
        for text in ["R5,C0,M1,S34..58,B34..45,NM", "R10,C0,M1,S123..212,B123..170,NM", "R5,C4,M1,S34..58,B34..45,NM",
                     "R3,C0,M1,S8..14,B9..12,NN", "R4,C0,M1,S14..28,B14..22,NC", "R130,C0,M1,S20000..30000,B20000..26000,NM"] {
            let rule = try #require(try LargerThanLife(parsing: text))
            let (width, height) = (600, 449)
            var states = StateGrid(width: width, height: height, states: rule.states)
            for y in 0..<height { for x in 0..<width where generator.next() % 5 < 2 { states[x, y] = 1 } }
            for generation in 0..<3 {
                let wraps = generation != 1
                var (banded, alone) = (StateGrid(width: width, height: height, states: rule.states),
                                       StateGrid(width: width, height: height, states: rule.states))
                try states.step(rule, into: &banded, wraps: wraps, onEveryCore: true)
                try states.step(rule, into: &alone, wraps: wraps)
                let same = banded == alone  // not the grids themselves in a failure's message
                #expect(same, "\(text) generation \(generation)")
                states = banded
            }
        }
    }

    /// Each of the box's SIMD steps where this CPU runs it, called directly (the step
    /// picks only the widest): in AVX-512 and in AVX2, bytes up to range 7 and 16 bits
    /// past it; torus and plane, the cell counted and not, widths about a vector's edges,
    /// and a board stepped in two bands of rows as threads step it. Every third board
    /// has stretches of empty rows and columns, which the steps skip, and every fifth
    /// rule births from nothing, where they must not.
    @Test func eachBoxStepIsTheRule() throws {
        typealias BoxStep = (UnsafePointer<tessera_ltl_rule>, UnsafePointer<UInt64>, UnsafeMutablePointer<UInt64>, Int, Int32, Int32,
                             Int32, Int32, Int32) -> Int32
        var steps: [(String, ClosedRange<Int>, BoxStep)] = []
        if tessera_cpu_has_avx2() != 0 { steps.append(("avx2", 1...127, tessera_ltl_box_step_avx2)) }
        if tessera_cpu_has_avx512bw() != 0 { steps.append(("avx512", 1...127, tessera_ltl_box_step_avx512)) }
        var generator = SplitMix64(seed: 59)
        // Ranges past 7 about the 16-bit sums' vectors (32 counts) and up to the last,
        // on boards small enough for the naive count.
        let wide = [8, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127]
        for round in 0..<35 + wide.count {
            let range = round < 35 ? 1 + round % 7 : wide[round - 35]
            let m = Int(generator.next() % 2), most = (2 * range + 1) * (2 * range + 1)
            let (s0, s1) = (Int(generator.next() % UInt64(most / 2)), most / 2 + Int(generator.next() % UInt64(most / 2)))
            let b0 = round % 5 == 4 ? 0 : 1 + Int(generator.next() % UInt64(most / 3))
            let rule = try #require(try LargerThanLife(parsing: "R\(range),C0,M\(m),S\(s0)..\(s1),B\(b0)..\(b0 + most / 4),NM"))
            let width = range > 20 ? [1, 31, 64, 65, 97][round % 5] : [1, 2 * range + 1, 63, 64, 65, 127, 128, 129, 200][round % 9] + (round % 2)
            let height = 1 + Int(generator.next() % (range > 20 ? 6 : 40)), wraps = round % 3 != 0, sparse = round % 3 == 1
            var cells = BitGrid(width: width, height: height)
            for y in 0..<height where !sparse || y % 19 < 3 {
                for x in 0..<width where (!sparse || x % 150 < 10) && generator.next() % 5 < 2 { cells[x, y] = true }
            }
            let expected = Self.naive(cells, rule: rule, wraps: wraps)
            for (name, ranges, step) in steps where ranges.contains(range) {
                var next = BitGrid(width: width, height: height)
                let split = Int32(height / 2)
                let stepped = rule.withKernelRule { kernelRule in
                    cells.words.withUnsafeBufferPointer { source in
                        next.withUnsafeMutableWords { target in
                            [(0, split), (split, Int32(height))].allSatisfy { band in
                                step(kernelRule, source.baseAddress!, target.baseAddress!, cells.wordsPerRow, Int32(width),
                                     Int32(height), wraps ? 1 : 0, band.0, band.1) != 0
                            }
                        }
                    }
                }
                #expect(stepped && next == expected, "\(name) \(rule) \(width)x\(height) wraps \(wraps)")
            }
        }
    }

    static func naive(_ cells: BitGrid, rule: LargerThanLife, wraps: Bool) -> BitGrid {
        var next = BitGrid(width: cells.width, height: cells.height)
        let reach = rule.rowReach, r = rule.range
        for y in 0..<cells.height {
            for x in 0..<cells.width {
                var count = 0
                for dy in -r...r {
                    for dx in -reach[dy + r]...reach[dy + r] {
                        var (nx, ny) = (x + dx, y + dy)
                        if wraps {
                            (nx, ny) = (((nx % cells.width) + cells.width) % cells.width, ((ny % cells.height) + cells.height) % cells.height)
                        } else if nx < 0 || ny < 0 || nx >= cells.width || ny >= cells.height {
                            continue
                        }
                        if cells[nx, ny] && (rule.countsItself || dx != 0 || dy != 0) { count += 1 }
                    }
                }
                next[x, y] = cells[x, y] ? rule.survival.contains(count) : rule.birth.contains(count)
            }
        }
        return next
    }
}
