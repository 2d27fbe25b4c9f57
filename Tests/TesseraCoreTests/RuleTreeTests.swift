import Foundation
import Testing
@testable import TesseraCore

@Suite struct RuleTreeTests {
    static let gollyRules = "/usr/share/golly/Rules"

    /// A rule file of one table.
    static func table(_ states: Int, _ neighbourhood: String, _ symmetries: String, _ body: String) -> String {
        "@RULE Test\n@TABLE\nn_states:\(states)\nneighborhood:\(neighbourhood)\nsymmetries:\(symmetries)\n\(body)\n"
    }

    /// The tree's inputs from cells by name: Moore nw, ne, sw, se, n, w, e, s, c; von
    /// Neumann n, w, e, s, c. Cells not named are 0.
    static func inputs(_ cells: [String: Int], moore: Bool = true) -> [Int] {
        (moore ? ["nw", "ne", "sw", "se", "n", "w", "e", "s", "c"] : ["n", "w", "e", "s", "c"]).map { cells[$0] ?? 0 }
    }

    /// The inputs in the documented order: each table input lands on its own cell.
    @Test func inputsComeInRuleTreeOrder() throws {
        let moore = try RuleTree(parsing: Self.table(10, "Moore", "none", "0,1,2,3,4,5,6,7,8,9"))
        #expect(moore.neighbourhood == .moore && moore.states == 10)
        #expect(moore.next([8, 2, 6, 4, 1, 7, 3, 5, 0]) == 9)
        #expect(moore.next([2, 8, 6, 4, 1, 7, 3, 5, 0]) == 0)
        let vonNeumann = try RuleTree(parsing: Self.table(6, "vonNeumann", "none", "0,1,2,3,4,5"))
        #expect(vonNeumann.neighbourhood == .vonNeumann)
        #expect(vonNeumann.next([1, 4, 2, 3, 0]) == 5)
        #expect(vonNeumann.next([1, 2, 4, 3, 0]) == 0)
    }

    @Test func boundVariablesTakeOneValueEverywhere() throws {
        let rule = try RuleTree(parsing: Self.table(4, "vonNeumann", "none", """
            var a={1,2}
            var b={1,2}
            0,a,a,0,0,a
            0,b,3,b,0,3
            1,a,b,0,0,3
            """))
        #expect(rule.next(Self.inputs(["n": 1, "e": 1], moore: false)) == 1)
        #expect(rule.next(Self.inputs(["n": 2, "e": 2], moore: false)) == 2)
        #expect(rule.next(Self.inputs(["n": 1, "e": 2], moore: false)) == 0)
        #expect(rule.next(Self.inputs(["n": 2, "e": 3, "s": 2], moore: false)) == 3)
        #expect(rule.next(Self.inputs(["n": 2, "e": 3, "s": 1], moore: false)) == 0)
        // Two variables of the same states, each named once, are free of each other.
        #expect(rule.next(Self.inputs(["n": 1, "e": 2, "c": 1], moore: false)) == 3)
        #expect(rule.next(Self.inputs(["n": 2, "e": 1, "c": 1], moore: false)) == 3)
    }

    /// A variable takes the states of those it names as they are then; naming it again
    /// later replaces it for the transitions after.
    @Test func variablesMadeOfVariables() throws {
        let rule = try RuleTree(parsing: Self.table(5, "vonNeumann", "none", """
            var a={1}
            var b={a,2}
            var c={b,b,3}
            0,c,0,0,0,4
            var a={3}
            1,b,0,0,0,2
            2,a,0,0,0,a
            """))
        for n in 0..<5 { #expect(rule.next(Self.inputs(["n": n], moore: false)) == ((1...3).contains(n) ? 4 : 0)) }
        for n in 0..<5 { #expect(rule.next(Self.inputs(["n": n, "c": 1], moore: false)) == ((1...2).contains(n) ? 2 : 1)) }
        // A single-state variable as the output.
        #expect(rule.next(Self.inputs(["n": 3, "c": 2], moore: false)) == 3)
        #expect(rule.next(Self.inputs(["n": 1, "c": 2], moore: false)) == 2)
    }

    @Test func theFirstMatchWinsAndNoMatchKeepsTheState() throws {
        let rule = try RuleTree(parsing: Self.table(4, "vonNeumann", "none", """
            var a={0,1}
            0,1,a,0,0,2
            0,1,1,0,0,3
            0,1,3,0,0,3
            """))
        #expect(rule.next(Self.inputs(["n": 1, "e": 1], moore: false)) == 2)
        #expect(rule.next(Self.inputs(["n": 1, "e": 3], moore: false)) == 3)
        for c in 0..<4 { #expect(rule.next(Self.inputs(["n": 2, "c": c], moore: false)) == c) }
        // No transitions: every cell stays, and the tree is one node a level.
        let none = try RuleTree(parsing: Self.table(3, "Moore", "rotate8", ""))
        #expect(none.nodes.count == 9 * 3)
        #expect(none.next([1, 2, 0, 1, 2, 0, 1, 2, 2]) == 2)
    }

    /// The neighbours around the cell, clockwise, as a table lists them after the cell.
    static let rings = ["vonNeumann": ["n", "e", "s", "w"], "Moore": ["n", "ne", "e", "se", "s", "sw", "w", "nw"],
                        "hexagonal": ["n", "e", "se", "s", "w", "nw"], "oneDimensional": ["w", "e"]]

    /// The arrangements of the ring a symmetry allows, worked out from the geometry:
    /// turns by `step` places, and mirrors that keep n (one-dimensional: that swap w and e).
    static func group(_ symmetries: String, ring m: Int) -> Set<[Int]> {
        let turns: (Int) -> Set<[Int]> = { step in Set(stride(from: 0, to: m, by: step).map { k in (0..<m).map { ($0 + k) % m } }) }
        let mirror: (Int) -> Int = m == 2 ? { 1 - $0 } : { (m - $0) % m }
        let mirrored: (Set<[Int]>) -> Set<[Int]> = { group in group.union(group.map { p in (0..<m).map { p[mirror($0)] } }) }
        switch symmetries {
        case "none": return turns(m)
        case "rotate2": return turns(m / 2)
        case "rotate3": return turns(2)
        case "rotate4": return turns(m / 4)
        case "rotate6", "rotate8": return turns(1)
        case "rotate4reflect": return mirrored(turns(m / 4))
        case "rotate6reflect", "rotate8reflect": return mirrored(turns(1))
        case "reflect_horizontal", "reflect": return mirrored(turns(m))
        default: return []
        }
    }

    static func permutations(_ m: Int) -> [[Int]] {
        guard m > 0 else { return [[]] }
        return permutations(m - 1).flatMap { p in (0...p.count).map { var q = p; q.insert(m - 1, at: $0); return q } }
    }

    /// Each symmetry Golly accepts, for each neighbourhood: a transition of distinct
    /// states matches exactly its images under the symmetry, and hexagonal and
    /// one-dimensional tables ignore the cells they do not read.
    @Test(arguments: [("vonNeumann", ["none", "rotate4", "rotate4reflect", "reflect_horizontal", "permute"]),
                      ("Moore", ["none", "rotate4", "rotate8", "rotate4reflect", "rotate8reflect", "reflect_horizontal", "permute"]),
                      ("hexagonal", ["none", "rotate2", "rotate3", "rotate6", "rotate6reflect", "permute"]),
                      ("oneDimensional", ["none", "reflect", "permute"])])
    func symmetriesMatchTheirImages(neighbourhood: String, symmetries: [String]) throws {
        let ring = Self.rings[neighbourhood]!
        let m = ring.count
        let moore = neighbourhood != "vonNeumann"
        var generator = SplitMix64(seed: UInt64(m))
        var arrangements = m < 8 ? Self.permutations(m) : Array(Self.group("rotate8reflect", ring: m))
        while arrangements.count < 400 { arrangements.append(Array((0..<m).shuffled(using: &generator))) }
        for symmetry in symmetries {
            let rule = try RuleTree(parsing: Self.table(m + 2, neighbourhood, symmetry, "0," + (1...m + 1).map(String.init).joined(separator: ",")))
            let group = symmetry == "permute" ? Set(arrangements) : Self.group(symmetry, ring: m)
            for arrangement in arrangements {
                var cells = Dictionary(uniqueKeysWithValues: (0..<m).map { (ring[$0], arrangement[$0] + 1) })
                // Cells the table does not read take any state.
                for unread in ["nw", "ne", "sw", "se", "n", "w", "e", "s"] where cells[unread] == nil {
                    cells[unread] = Int(generator.next() % UInt64(m + 2))
                }
                let expected = group.contains(arrangement) ? m + 1 : 0
                #expect(rule.next(Self.inputs(cells, moore: moore)) == expected, "\(neighbourhood) \(symmetry) \(arrangement)")
            }
        }
    }

    /// Permute: the neighbours in any order, each to an entry that holds its state.
    @Test func permuteMatchesAnyArrangement() throws {
        let rule = try RuleTree(parsing: Self.table(4, "Moore", "permute", "var a={0,2}\n0,1,1,2,a,0,0,0,0,3"))
        let cells = ["nw", "ne", "sw", "se", "n", "w", "e", "s"]
        var generator = SplitMix64(seed: 8)
        for (neighbours, matches) in [([1, 1, 2, 2, 0, 0, 0, 0], true), ([1, 1, 2, 0, 0, 0, 0, 0], true), ([1, 1, 1, 2, 0, 0, 0, 0], false),
                                      ([1, 2, 2, 2, 0, 0, 0, 0], false), ([1, 1, 2, 3, 0, 0, 0, 0], false)] {
            for _ in 0..<20 {
                let placed = Dictionary(uniqueKeysWithValues: zip(cells, neighbours.shuffled(using: &generator)))
                #expect(rule.next(Self.inputs(placed)) == (matches ? 3 : 0), "\(placed)")
            }
        }
    }

    /// Golly's form without commas: one digit an input, then the output, for up to 10
    /// states and no variables.
    @Test func transitionsWithoutCommas() throws {
        let rule = try RuleTree(parsing: Self.table(3, "vonNeumann", "rotate4", "010002 and anything after\n 020001 "))
        for n in 0..<3 { #expect(rule.next(Self.inputs(["e": n], moore: false)) == [0, 2, 1][n]) }
        #expect(rule.next(Self.inputs(["n": 2], moore: false)) == 1)
        #expect(throws: TesseraError.self) { try RuleTree(parsing: Self.table(11, "vonNeumann", "none", "010002")) }
        #expect(throws: TesseraError.self) { try RuleTree(parsing: Self.table(3, "vonNeumann", "none", "0\t1\t0\t0\t0\t2")) }
    }

    static let orTree = """
        @RULE OrTree
        @TREE
          num_states = 2
        num_neighbors=4
        num_nodes= 9
        # the new state is n or c
        1 0 1
        1 1 1
        2 0 0
        2 1 1
        3 2 2
        3 3 3
        4 4 4
        4 5 5
        5 6 7
        """

    /// A tree as written, and the same rule as a table: one tree, node for node.
    @Test func readsATreeAsGollyLaysItOut() throws {
        let tree = try RuleTree(parsing: Self.orTree, name: "OrTree")
        #expect(tree.states == 2 && tree.neighbourhood == .vonNeumann && tree.description == "OrTree")
        for index in 0..<32 {
            let inputs = (0..<5).map { index >> $0 & 1 }
            #expect(tree.next(inputs) == inputs[0] | inputs[4])
        }
        let table = try RuleTree(parsing: "@RULE OrTree\n@TABLE\nn_states:2\nneighborhood:vonNeumann\nsymmetries:none\nvar a={0,1}\nvar b={0,1}\nvar c={0,1}\n0,1,a,b,c,1")
        #expect(table == tree)
        #expect(tree.nodes.count == 9 * 2 && Int(tree.root) == tree.nodes.count - 2)
    }

    /// The first of @TABLE and @TREE is the rule; a section ends at a line that begins with @.
    @Test func theFirstSectionWins() throws {
        let table = "@TABLE\nn_states:2\nneighborhood:vonNeumann\nsymmetries:none\n000000\n010000\n"
        let tree = Self.orTree.replacingOccurrences(of: "@RULE OrTree\n", with: "")
        let tableFirst = try RuleTree(parsing: "@RULE Both\n" + table + tree)
        #expect(tableFirst.next([1, 0, 0, 0, 0]) == 0 && tableFirst.next([0, 0, 0, 0, 1]) == 1)
        let treeFirst = try RuleTree(parsing: "@RULE Both\n" + tree + "\n" + table)
        #expect(treeFirst.next([1, 0, 0, 0, 0]) == 1)
    }

    /// Golly's quirks, kept: line ends of any kind; symmetries looked up for the final
    /// neighbourhood (none there: no transitions); sscanf's reading of numbers.
    @Test func readsAsGollyDoes() throws {
        let crOnly = Self.table(3, "vonNeumann", "none", "0,1,0,0,0,2").replacingOccurrences(of: "\n", with: "\r")
        #expect(try RuleTree(parsing: crOnly).next([1, 0, 0, 0, 0]) == 2)
        let moved = try RuleTree(parsing: Self.table(3, "Moore", "rotate8", "neighborhood:vonNeumann\n0,1,0,0,0,2"))
        #expect(moved.neighbourhood == .vonNeumann && moved.next([1, 0, 0, 0, 0]) == 0)
        let numbers = try RuleTree(parsing: Self.table(5, "vonNeumann", "none", "var a={0}\n2x,+1,-0,0,0,3\n1,4294967297,0,0,0,4"))
        #expect(numbers.next([1, 0, 0, 0, 2]) == 3 && numbers.next([1, 0, 0, 0, 1]) == 4)
        let header = try RuleTree(parsing: "@RULE Test\n@TABLE\nN_STATES: 4294967298\nNeighborhood: Moore # spaced\nSYMMETRIES:none\n")
        #expect(header.states == 2 && header.neighbourhood == .moore)
    }

    @Test func namesAreComparedAsGollyDoes() throws {
        let text = Self.table(2, "vonNeumann", "none", "")
        #expect(try RuleTree(parsing: text, name: "Test").name == "Test")
        #expect(try RuleTree(parsing: text, name: "Test:T100,100").name == "Test")
        #expect(throws: TesseraError.self) { try RuleTree(parsing: text, name: "test") }
        let unnamed = text.replacingOccurrences(of: "@RULE Test\n", with: "")
        #expect(try RuleTree(parsing: unnamed, name: "Other").description == "Other")
        #expect(throws: TesseraError.self) { try RuleTree(parsing: unnamed) }
    }

    @Test(arguments: [
        ("@RULE T\n@TABLE \nn_states:2\nneighborhood:Moore\nsymmetries:none\n", "no @TABLE or @TREE"),
        (table(3, "Moore", "none", "0,0,0,0,0,0,0,0,0,5"), "out of range"),
        (table(3, "vonNeumann", "none", "050001"), "out of range"),
        (table(3, "vonNeumann", "rotate8", ""), "no such symmetries"),
        (table(3, "moore", "none", ""), "no such neighborhood"),
        (table(300, "Moore", "none", ""), "2 to 256"),
        ("@RULE T\n@TABLE\nn_states:3\nneighborhood:Moore\nvar a={0,1}\nsymmetries:none\n", "before n_states"),
        ("@RULE T\n@TABLE\nn_states:3\nneighborhood:Moore\n", "no symmetries line"),
        ("@RULE T\n@TABLE\nn_states:3\nsymmetries:none\nneighborhood:Moore\n", "before the neighborhood"),
        (table(3, "vonNeumann", "none", "var a={0,1}\n0,0,0,0,0,a"), "output"),
        (table(3, "vonNeumann", "none", "0,1,2,0,0"), "too few entries"),
        (table(3, "vonNeumann", "none", "0,b,0,0,0,1"), "neither a state nor a variable"),
        (table(3, "vonNeumann", "none", "var a={}"), "at least one state"),
        (table(3, "vonNeumann", "none", "0,1,0,0,0,2\nneighborhood:Moore"), "changes after transitions"),
        (table(12, "vonNeumann", "none", "0,11,0,0,0,1\nn_states:3"), "last n_states"),
        (orTree.replacingOccurrences(of: "1 0 1\n", with: "1 0 1 \n"), "num_states=2"),
        (orTree.replacingOccurrences(of: "num_nodes= 9", with: "num_nodes=8"), "num_nodes=8"),
        (orTree.replacingOccurrences(of: "3 2 2\n", with: "3 1 2\n"), "not one level down"),
        (orTree.replacingOccurrences(of: "1 1 1\n", with: "1 1 2\n"), "out of range"),
        (orTree.replacingOccurrences(of: "\n5 6 7", with: ""), "num_nodes=9"),
        (orTree.replacingOccurrences(of: "num_neighbors=4", with: "num_neighbors=6"), "num_neighbors (4 or 8)"),
        // 256 * 256 * 256 transitions from one line, as Golly would expand them.
        (table(256, "Moore", "none", "var a={\((0..<256).map(String.init).joined(separator: ","))}\nvar b={a}\nvar c={a}\na,a,b,b,c,c,0,0,0,0"),
         "transitions"),
    ])
    func refusesWhatGollyRefuses(text: String, names: String) {
        #expect {
            try RuleTree(parsing: text)
        } throws: { error in
            let description = (error as? TesseraError)?.description ?? ""
            return description.contains(names) && !description.contains("\n")
        }
    }

    /// Every rule file Golly comes with compiles to a tree that stays within itself.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: gollyRules)))
    func compilesEveryGollyRule() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.gollyRules).filter { $0.hasSuffix(".rule") }
        #expect(files.count >= 50)
        for file in files {
            let name = String(file.dropLast(".rule".count))
            let tree = try RuleTree(parsing: String(contentsOfFile: Self.gollyRules + "/" + file, encoding: .utf8), name: name)
            #expect(tree.name == name && (2...256).contains(tree.states))
            Self.expectWellFormed(tree)
        }
        let wireWorld = try RuleTree(parsing: String(contentsOfFile: Self.gollyRules + "/WireWorld.rule", encoding: .utf8))
        #expect(wireWorld.next(Self.inputs(["c": 1])) == 2 && wireWorld.next(Self.inputs(["c": 2])) == 3)
        #expect(wireWorld.next(Self.inputs(["c": 3, "ne": 1])) == 1 && wireWorld.next(Self.inputs(["c": 3, "n": 1, "sw": 1])) == 1)
        #expect(wireWorld.next(Self.inputs(["c": 3, "n": 1, "s": 1, "w": 1])) == 3)
    }

    /// Every path from the root walks nodes within the array and ends at a state.
    static func expectWellFormed(_ tree: RuleTree) {
        let levels = tree.neighbourhood == .moore ? 9 : 5
        var seen = Set<Int>()
        var frontier = [Int(tree.root)]
        for level in 0..<levels {
            var next = Set<Int>()
            for offset in frontier {
                #expect(offset % tree.states == 0 && offset + tree.states <= tree.nodes.count)
                seen.insert(offset)
                for entry in tree.nodes[offset..<offset + tree.states] {
                    if level == levels - 1 { #expect(Int(entry) < tree.states) } else { next.insert(Int(entry)) }
                }
            }
            frontier = Array(next)
        }
        #expect(seen.count * tree.states == tree.nodes.count, "\(tree.name): every node reached")
    }

    /// Random tables against the plainest reading of them: the first matching image of
    /// a transition under the symmetries, else the cell as it is.
    @Test func randomTablesAgreeWithTheTableReadPlainly() throws {
        var generator = SplitMix64(seed: 2024)
        func below(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
        let shapes = [("vonNeumann", 4, ["none", "rotate4", "rotate4reflect", "reflect_horizontal", "permute"]),
                      ("Moore", 8, ["none", "rotate4", "rotate8", "rotate4reflect", "rotate8reflect", "reflect_horizontal"]),
                      ("hexagonal", 6, ["none", "rotate2", "rotate3", "rotate6", "rotate6reflect", "permute"]),
                      ("oneDimensional", 2, ["none", "reflect", "permute"])]
        // Every neighbourhood of each, so few states (Moore's permute has its own test above).
        for round in 0..<12 {
            let (shape, m, symmetries) = shapes[round % 4]
            let symmetry = symmetries[below(symmetries.count)]
            let states = shape == "vonNeumann" || shape == "oneDimensional" ? 2 + below(2) : 2
            var body = "var a={0,1}\nvar b={a,\(states - 1)}\nvar c={1}\n"
            for _ in 0..<(4 + below(10)) {
                let tokens = (0...m).map { _ in ["0", "1", "\(states - 1)", "a", "b", "c"][below(6)] }
                let output = tokens.contains("a") && below(2) == 0 ? "a" : "\(below(states))"
                body += (tokens + [output]).joined(separator: ",") + "\n"
            }
            let text = Self.table(states, shape, symmetry, body)
            let tree = try RuleTree(parsing: text)
            guard case .table(var reader)? = RuleTree.section(Array(text.utf8)) else { Issue.record("no table"); return }
            let table = try RuleTree.Table(reading: &reader)
            let images = table.images()
            let levels = tree.neighbourhood == .moore ? 9 : 5
            let reads = table.shape.treeInputs
            var inputs = [Int](repeating: 0, count: levels)
            for index in 0..<(0..<levels).reduce(1, { product, _ in product * states }) {
                var rest = index
                for level in 0..<levels { (inputs[level], rest) = (rest % states, rest / states) }
                let image = images.first { image in
                    reads.indices.allSatisfy { level in reads[level].map { image.inputs[$0].contains(UInt8(inputs[level])) } ?? true }
                }
                #expect(tree.next(inputs) == image.map { Int($0.output) } ?? inputs[levels - 1], "\(shape) \(symmetry) \(inputs)")
            }
        }
    }
}

/// The tree step copies the words that nothing within reach changed in the generation
/// before (`StateGrid.changes`); stepping so must give what stepping every cell gives.
@Suite struct TreeStepTests {
    /// A three-state von Neumann table whose signals travel and die: much changes, much
    /// stays.
    static let signals = """
        @RULE Signals
        @TABLE
        n_states:3
        neighborhood:vonNeumann
        symmetries:rotate4
        var a={0,1,2}
        var b={0,1,2}
        var c={0,1,2}
        var d={0,1,2}
        0,1,0,0,0,1
        0,1,1,0,0,2
        1,0,0,0,0,2
        2,a,b,c,d,0
        """

    @Test(arguments: [false, true])
    func skippingWhatDidNotChangeGivesEveryCellsStep(wraps: Bool) throws {
        for tree in [try RuleTree(parsing: Self.signals), try RuleTree(twoState: .life)] {
            var generator = SplitMix64(seed: 11)
            var tracked = StateGrid.soup(width: 130, height: 70, states: tree.states, using: &generator)
            // A quiet third, where only skipping decides.
            for y in 0..<70 { for x in 0..<44 { tracked[x, y] = 0 } }
            var plain = tracked
            for generation in 0..<60 {
                var next = StateGrid(width: 130, height: 70, states: tree.states)
                try tracked.step(tree, into: &next, wraps: wraps)
                tracked = next
                plain.changes = nil
                var every = StateGrid(width: 130, height: 70, states: tree.states)
                try plain.step(tree, into: &every, wraps: wraps)
                plain = every
                #expect(tracked == plain, "\(tree) generation \(generation + 1)")
                #expect(tracked.changes != nil)
            }
        }
    }

    /// A board large enough to be stepped in bands on every core (`RowBands`; a rule
    /// tree's from `leastTreeCells`, 150x130 here) gives the states, and the record of
    /// what changed, of stepping it on one thread, skipping what did not change as it
    /// goes. (One core steps it in one band: the same call.)
    @Test(arguments: [false, true], [(600, 451), (150, 130)])
    func bandsOnEveryCoreGiveTheOneThreadStep(wraps: Bool, size: (Int, Int)) throws {
        for tree in [try RuleTree(parsing: Self.signals), try RuleTree(twoState: .life)] {
            var generator = SplitMix64(seed: 13)
            let (width, height) = size
            var banded = StateGrid.soup(width: width, height: height, states: tree.states, using: &generator)
            for y in 0..<height { for x in 0..<width / 3 { banded[x, y] = 0 } }
            var alone = banded
            var (bandedNext, aloneNext) = (StateGrid(width: width, height: height, states: tree.states),
                                           StateGrid(width: width, height: height, states: tree.states))
            for generation in 0..<6 {
                // Into the generation before last, as a run swaps them: what no change reaches stays.
                try banded.step(tree, into: &bandedNext, wraps: wraps, onEveryCore: true)
                try alone.step(tree, into: &aloneNext, wraps: wraps)
                swap(&banded, &bandedNext)
                swap(&alone, &aloneNext)
                let same = banded == alone && banded.changes == alone.changes  // not the grids themselves in a failure's message
                #expect(same, "\(tree) generation \(generation + 1)")
            }
        }
    }
}

extension RuleTreeTests {
    /// A rule file's tree written as an `@TREE` file reads back node for node: how its
    /// rule crosses the wire to a worker that has no file.
    @Test(arguments: ["LifeHistory", "WireWorld", "Langtons-Loops", "JvN29"])
    func aTreeWrittenAsARuleFileReadsBackAsItWas(name: String) throws {
        guard let tree = try VonNeumannRules.tree(named: name) ?? RuleFiles.tree(named: name) else { return }
        let again = try RuleTree(parsing: tree.treeText)
        #expect(again == tree)
        #expect(again.name == name)
    }
}
