import Testing
@testable import TesseraCore
import CTesseraKernel

@Suite struct RuleTests {
    @Test(arguments: [
        ("B3/S23", "B3/S23"), ("b3/s23", "B3/S23"), ("S23/B3", "B3/S23"), ("23/3", "B3/S23"),
        ("B36/S23", "B36/S23"), ("B3678/S34678", "B3678/S34678"), ("B2/S", "B2/S"),
        ("B1357/S1357", "B1357/S1357"), ("life", "B3/S23"), ("B3S23", "B3/S23"),
        // Names bgolly 3.3 writes: letters in order, the shorter of a count's letters and
        // its negation, counts negated whole dropped, a count's first letters the ones it keeps.
        ("B2cek3i_S12cei", "B2cek3i/S12cei"), ("s23b3", "B3/S23"), ("5B3S23", "B3/S23"), ("23b3", "B23/S"),
        ("B3-c3a", "B3-ac/S"), ("B1ce", "B1/S"), ("B1-ce", "B/S"), ("B4-aceijk/S", "B4nqrtwyz/S"),
        ("B1ce604-k/S4iaezwqytnjkcr8", "B014-k6/S48"), ("B2/S34H", "B2/S34H"), ("B0/S4V", "B0/S4V"),
        ("W22", "W22"), ("w30", "W30"), ("W022", "W22"), ("W0", "W0"),
        ("mapH0G9W8uw8de9puyHB9d3xvE/pg3mKBxfeN4/YYsakj8DuzdoRy7q3sRjKMPMEiOennEgIQD43wE1xjf1+yrfKg==",
         "MAPH0G9W8uw8de9puyHB9d3xvE/pg3mKBxfeN4/YYsakj8DuzdoRy7q3sRjKMPMEiOennEgIQD43wE1xjf1+yrfKg"),
    ])
    func parsesGollyNotations(text: String, canonical: String) throws {
        #expect(try Rule(parsing: text).description == canonical)
    }

    @Test func lifeMasks() throws {
        let rule = try Rule(parsing: "B3/S23")
        #expect(rule == .life)
        #expect(rule.birth == 0b1000 && rule.survive == 0b1100)
    }

    // The last three the RLE fuzzer found: a digit with combining marks trapped, and
    // digits of other scripts read as counts.
    @Test(arguments: ["B9/S23", "B3/S2x", "", "B3/S23/X", "hello", "3/23/4/5", "BB3/S23", "W23", "W256", "W2x",
                      "B3\u{0349}\u{0301}/S23", "B\u{0663}/S23", "23/\u{0663}"])
    func rejectsMalformed(text: String) {
        #expect(throws: TesseraError.self) { try Rule(parsing: text) }
    }

    /// liferules.cpp's tables, written as B/S rules: B0 with S8 runs as the complement,
    /// B0 without S8 as a pair by parity, and the kernel never gets B0.
    @Test func b0RulesStepAsGollyEmulatesThem() throws {
        let antiLife = try Rule(parsing: "B0123478/S01234678")
        #expect(antiLife.description == "B0123478/S01234678")
        #expect(antiLife.emulation == .complement)
        #expect(antiLife.steps == Rule.Steps(even: .life, odd: .life))
        let blinking = try Rule(parsing: "B012/S1")
        #expect(blinking.emulation == .alternating)
        #expect(blinking.steps.from(0).description == "B345678/S02345678")
        #expect(blinking.steps.from(7).description == "B7/S678")
        #expect(Rule.life.emulation == .none && Rule.life.steps.from(1) == .life)
    }

    /// Whatever the B0 rule, stepping its stored cells by `steps` and reading them back
    /// (inverted where the emulation says so) is the rule applied to the true cells.
    @Test func b0StepsAgreeWithTheRuleOnEveryNeighbourhood() throws {
        var generator = SplitMix64(seed: 4242)
        for _ in 0..<200 {
            let rule = Rule(birth: UInt16(generator.next() & 0x1FF) | 1, survive: UInt16(generator.next() & 0x1FF))
            for neighbourhood in 0..<512 {
                let alive = neighbourhood >> 4 & 1 == 1
                let count = (neighbourhood & ~0x10).nonzeroBitCount
                let truth = (alive ? rule.survive : rule.birth) >> count & 1 == 1
                func applied(_ r: Rule, alive: Bool, count: Int) -> Bool { (alive ? r.survive : r.birth) >> count & 1 == 1 }
                switch rule.emulation {
                case .complement:
                    // Stored inverted before and after.
                    #expect(!applied(rule.steps.from(0), alive: !alive, count: 8 - count) == truth)
                case .alternating:
                    // True in, inverted out; then inverted in, true out.
                    #expect(!applied(rule.steps.from(0), alive: alive, count: count) == truth)
                    #expect(applied(rule.steps.from(1), alive: !alive, count: 8 - count) == truth)
                case .none:
                    Issue.record("rule \(rule) has B0")
                }
                #expect(rule.steps.even.birth & 1 == 0 && rule.steps.odd.birth & 1 == 0)
            }
        }
    }

    @Test func boundedGridSuffix() throws {
        let (rule, torus) = try BoardShape.parseRule("B36/S23:T640,480")
        #expect(rule.description == "B36/S23")
        #expect(torus == BoardShape(width: 640, height: 480, topology: .torus))
        let (_, plane) = try BoardShape.parseRule("B3/S23:P7,5")
        #expect(plane == BoardShape(width: 7, height: 5, topology: .plane))
        #expect(plane?.gollySuffix == ":P7,5")
        #expect(try BoardShape.parseRule("B3/S23").1 == nil)
        // A plane with one side 0 is Golly's strip, unbounded that way.
        #expect(try BoardShape.parseRule("B3/S23:P0,5").1?.gollySuffix == ":P0,5")
        for bad in ["B3/S23:P0,0", "B3/S23:K5*,5*", "B3/S23:T5+1,5+1", "B3/S23:"] {
            #expect(throws: TesseraError.self) { try BoardShape.parseRule(bad) }
        }
    }

    @Test func gollyCoordinatesOfABoard() {
        let odd = BoardShape(width: 7, height: 5, topology: .torus)
        #expect(odd.left == -3 && odd.top == -2)
        let even = BoardShape(width: 640, height: 480, topology: .plane)
        #expect(even.left == -320 && even.top == -240)
    }
}

/// Rules given by a table over the 3x3 neighbourhood, which the kernels run as gates.
@Suite struct RuleTableTests {
    /// Random tables, the worst case for the size of the gates, and tables of Golly's rules:
    /// the compiled gates give every neighbourhood its entry, so do the LUTs they map to
    /// (checked in C on any CPU), and where the CPU and the system allow it every one has
    /// its machine code (made only where it gives every entry too).
    @Test func compiledGatesAreTheTable() throws {
        var generator = SplitMix64(seed: 77)
        var tables = (0..<300).map { _ in RuleTable { _ in generator.next() & 1 == 1 } }
        for text in ["B2-a/S12", "B37/S2-i34q", "B2aei3r4kn5jnr6k/S2ai3k4iknqr5r6ai", "B2/S34H", "B2/S013V",
                     "B2-a5/S1e2-a35678", "B3_S23-a4ei6", "B2ak3nr4iy/S3-nr4ent5er", "B2-ac3ai/S1c2-n3-aky4a"] {
            tables.append(try #require(try Rule(parsing: text).table, "\(text)"))
        }
        for table in tables.map({ t in RuleTable { $0 == 0 ? false : t.next($0) } }) {
            let rule = Rule(table: table, name: "test")
            rule.withKernelRule { compiled in
                #expect(compiled.pointee.compiled == 1 && Int(compiled.pointee.gates) <= Int(TESSERA_MAX_GATES))
                #expect(tessera_can_make_code() == 0 || compiled.pointee.code != nil)
                #expect(tessera_can_make_code() == 0 || tessera_cpu_has_ternary() == 0 || compiled.pointee.code512 != nil)
                #expect(compiled.pointee.luts > 0 && compiled.pointee.luts < compiled.pointee.gates)
                for base in stride(from: 0, to: 512, by: 64) {
                    // Lane j holds the neighbourhood base + j.
                    let inputs = (0..<9).map { k in (0..<64).reduce(UInt64(0)) { $0 | UInt64((base + $1) >> k & 1) << UInt64($1) } }
                    let next = inputs.withUnsafeBufferPointer { tessera_rule_apply(compiled, $0.baseAddress!) }
                    for j in 0..<64 where (next >> UInt64(j) & 1 == 1) != table.next(base + j) {
                        Issue.record("neighbourhood \(base + j)")
                    }
                }
            }
        }
    }

    /// Non-totalistic and MAP rules compile to the gates of the cheapest input order
    /// found, not of the best fixed one, whether their diagram counts first or not:
    /// operations of machine code a vector, at most the descent's figures (the fixed
    /// orders' in brackets), on a CPU with AVX2.
    @Test(arguments: [("B2ce3-k/S23", 76, 90), ("B3/S23-q", 59, 66), ("B2-a/S12", 65, 71), ("B37/S2-i34q", 71, 80),
                      ("B2aei3r4kn5jnr6k/S2ai3k4iknqr5r6ai", 197, 213),
                      ("MAPHlGA84Ol3PMa4jnlmZ+Oa8iSjNe7xsR9wMWWcD0AnRQcSdEZcwLQ5K99rVA1ZUBZ+v/tW85g/76DoxO5VxaOiQ", 329, 343)])
    func nonTotalisticRulesTakeTheCheapestOrderFound(text: String, most: Int, fixed: Int) throws {
        let rule = try Rule(parsing: text)
        rule.withKernelRule { compiled in
            guard compiled.pointee.code != nil else { return }
            #expect(Int(compiled.pointee.cost) <= most, "the fixed orders' best: \(fixed); \(compiled.pointee.cost)")
        }
    }

    /// A counted rule's full adders are one LUT for each sum and each carry: its gates
    /// come to at most 3/5 as many LUTs (half, as compiled today), which the machine code
    /// then uses where it has vpternlogq.
    @Test(arguments: ["B37/S2-i34q", "B2-a/S12", "B3/S23-q", "B2/S34H"])
    func countedRulesCollapseIntoLUTs(text: String) throws {
        try Rule(parsing: text).withKernelRule { compiled in
            #expect(compiled.pointee.luts > 0 && 5 * Int(compiled.pointee.luts) <= 3 * Int(compiled.pointee.gates),
                    "\(compiled.pointee.luts) LUTs of \(compiled.pointee.gates) gates")
        }
    }

    /// The AVX2 kernel steps a soup alike through a rule's machine code for 512-cell
    /// vectors (where the CPU has AVX-512), through its code for 256-cell vectors and
    /// through the interpreter of its gates (which runs where there is no machine code),
    /// for random tables and for rules whose gates count first (their selects are gates'
    /// results, whose registers the interpreter reuses).
    @Test func theInterpreterStepsAsTheMachineCodeDoes() throws {
        guard tessera_can_make_code() != 0 else { return }
        var generator = SplitMix64(seed: 91)
        var rules = try ["B2-a/S12", "B37/S2-i34q", "B2-a5/S1e2-a35678", "B3_S23-a4ei6", "B2/S34H", "B2/S013V",
                         "B2aei3r4kn5jnr6k/S2ai3k4iknqr5r6ai"].map { try Rule(parsing: $0) }
        rules += (0..<20).map { _ in Rule(table: RuleTable { $0 != 0 && generator.next() & 1 == 1 }, name: "random") }
        // Rows of 768 cells between guard words (a 512-cell column and a 256-cell one), 35
        // rows of which 33 are stepped: an odd count, which code stepping 256-cell vectors
        // in pairs (with AVX-512) ends with one alone.
        let (words, stride, rows) = (12, 20, 35)
        let soup = UnsafeMutableRawPointer.allocate(byteCount: stride * rows * 8, alignment: 64)
        let targets = (0..<3).map { _ in UnsafeMutableRawPointer.allocate(byteCount: stride * rows * 8, alignment: 64) }
        defer { soup.deallocate(); targets.forEach { $0.deallocate() } }
        let cells = soup.bindMemory(to: UInt64.self, capacity: stride * rows)
        for rule in rules {
            for i in 0..<stride * rows { cells[i] = (4..<4 + words).contains(i % stride) ? generator.next() : 0 }
            for target in targets { target.initializeMemory(as: UInt8.self, repeating: 0, count: stride * rows * 8) }
            rule.withKernelRule { compiled in
                #expect(compiled.pointee.code != nil)
                #expect(tessera_cpu_has_ternary() == 0 || compiled.pointee.code512 != nil)
                var narrow = compiled.pointee, interpreted = compiled.pointee
                narrow.code512 = nil
                interpreted.code = nil
                interpreted.code512 = nil
                let results = targets.map { $0.assumingMemoryBound(to: UInt64.self) }
                _ = tessera_step_rows_avx2(cells + 4, results[0] + 4, stride, words, 1, rows - 1, compiled)
                _ = tessera_step_rows_avx2(cells + 4, results[1] + 4, stride, words, 1, rows - 1, &narrow)
                _ = tessera_step_rows_avx2(cells + 4, results[2] + 4, stride, words, 1, rows - 1, &interpreted)
                #expect((0..<stride * rows).allSatisfy { results[0][$0] == results[2][$0] }, "512-cell code: \(rule)")
                #expect((0..<stride * rows).allSatisfy { results[1][$0] == results[2][$0] }, "256-cell code: \(rule)")
            }
        }
    }

    /// Where the CPU has AVX-512, a 512-cell column of the dense step runs the rule's
    /// 512-cell code: given another rule's, it steps as that rule does.
    @Test func theDenseStepRunsThe512CellCode() throws {
        guard tessera_can_make_code() != 0, tessera_cpu_has_ternary() != 0 else { return }
        var generator = SplitMix64(seed: 5)
        let (first, second) = (Rule(table: RuleTable { $0 != 0 && generator.next() & 1 == 1 }, name: "first"),
                               Rule(table: RuleTable { $0 != 0 && generator.next() & 1 == 1 }, name: "second"))
        let (words, stride, rows) = (8, 16, 20)
        // Rows 32-byte aligned, as the kernels' aligned loads and stores need them.
        func rowsOfWords() -> UnsafeMutablePointer<UInt64> {
            UnsafeMutableRawPointer.allocate(byteCount: stride * rows * 8, alignment: 64).bindMemory(to: UInt64.self, capacity: stride * rows)
        }
        let soup = rowsOfWords(), results = (0..<3).map { _ in rowsOfWords() }
        defer { soup.deallocate(); results.forEach { $0.deallocate() } }
        for i in 0..<stride * rows { soup[i] = (4..<4 + words).contains(i % stride) ? generator.next() : 0 }
        for result in results { result.initialize(repeating: 0, count: stride * rows) }
        second.withKernelRule { theSecond in
            first.withKernelRule { theFirst in
                var borrowing = theFirst.pointee, second = theSecond.pointee, first = theFirst.pointee
                borrowing.code512 = theSecond.pointee.code512
                second.code = nil
                second.code512 = nil
                first.code = nil
                first.code512 = nil
                _ = tessera_step_rows_avx2(soup + 4, results[0] + 4, stride, words, 1, rows - 1, &borrowing)
                _ = tessera_step_rows_avx2(soup + 4, results[1] + 4, stride, words, 1, rows - 1, &second)
                _ = tessera_step_rows_avx2(soup + 4, results[2] + 4, stride, words, 1, rows - 1, &first)
            }
        }
        #expect((0..<stride * rows).allSatisfy { results[0][$0] == results[1][$0] })
        #expect(!(0..<stride * rows).allSatisfy { results[0][$0] == results[2][$0] })
    }

    /// A rule with letters on a few numbers counts the neighbours first and tests single
    /// cells only where the letters matter (rule_counted.c): its gates select on the
    /// count's bits, gates' results, not only on the nine inputs. A random table does not.
    @Test func aRuleWithFewLettersCountsFirst() throws {
        guard tessera_cpu_has_avx2() != 0 else { return }  // (there the fewest gates win)
        func selectsOnGates(_ rule: Rule) -> Bool {
            rule.withKernelRule { compiled in
                withUnsafeBytes(of: compiled.pointee.program) { bytes in
                    let gates = bytes.bindMemory(to: tessera_gate.self).prefix(Int(compiled.pointee.gates))
                    return gates.contains { Int($0.select) >= Int(TESSERA_FIRST_GATE) }
                }
            }
        }
        for text in ["B2-a/S12", "B37/S2-i34q", "B2-a5/S1e2-a35678", "B3_S23-a4ei6", "B2/S34H", "B2/S013V"] {
            #expect(selectsOnGates(try Rule(parsing: text)), "\(text)")
        }
        var generator = SplitMix64(seed: 5)
        #expect(!selectsOnGates(Rule(table: RuleTable { $0 != 0 && generator.next() & 1 == 1 }, name: "random")))
    }

    /// A table the neighbour count decides is the Life-like rule it is, and so runs on
    /// the counting kernels.
    @Test func aTotalisticTableIsLifeLike() throws {
        let rule = Rule(table: RuleTable { Rule.life.next($0) }, name: "B3/S23")
        #expect(rule == .life && rule.table == nil && rule.description == "B3/S23")
        // Golly keeps a MAP's name as it was given, even where the counts decide it.
        let map = "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA"
        let life = try Rule(parsing: map)
        #expect(life == .life && life.table == nil && life.description == map)
    }

    /// As for masks: B0 tables step by their complement (with S8) or a pair by parity
    /// (without), and agree with the rule on every neighbourhood of the true cells.
    @Test func b0TablesStepAsGollyEmulatesThem() {
        var generator = SplitMix64(seed: 4343)
        for round in 0..<100 {
            // With S8 or without, in turn.
            let table = RuleTable { $0 == 0 || ($0 == 511 ? round % 2 == 0 : generator.next() & 1 == 1) }
            let rule = Rule(table: table, name: "test")
            #expect(rule.emulation == (round % 2 == 0 ? .complement : .alternating))
            let (even, odd) = (rule.steps.from(0), rule.steps.from(1))
            #expect(!even.next(0) && !odd.next(0))
            for index in 0..<512 {
                let truth = table.next(index)
                if rule.emulation == .complement {
                    #expect(!even.next(511 - index) == truth)
                } else {
                    #expect(!even.next(index) == truth)
                    #expect(odd.next(511 - index) == truth)
                }
            }
        }
    }
}
