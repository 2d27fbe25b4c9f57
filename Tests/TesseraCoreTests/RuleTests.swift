import Testing
@testable import TesseraCore

@Suite struct RuleTests {
    @Test(arguments: [
        ("B3/S23", "B3/S23"), ("b3/s23", "B3/S23"), ("S23/B3", "B3/S23"), ("23/3", "B3/S23"),
        ("B36/S23", "B36/S23"), ("B3678/S34678", "B3678/S34678"), ("B2/S", "B2/S"),
        ("B1357/S1357", "B1357/S1357"), ("life", "B3/S23"), ("B3S23", "B3/S23"),
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
    @Test(arguments: ["B9/S23", "B3/S2x", "", "B3/S23/X", "hello", "3/23/4", "BB3/S23",
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
        for bad in ["B3/S23:T0,5", "B3/S23:K5,5", "B3/S23:T5,", "B3/S23:"] {
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
