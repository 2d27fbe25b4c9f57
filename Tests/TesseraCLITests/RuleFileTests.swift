import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Golly's rule files (`@TABLE`, `@TREE`) and its grids beyond a torus and a plane,
/// against bgolly's RuleLoader, QuickLife and Generations.
@Suite struct RuleFileTests {
    static let patterns = "/usr/share/golly/Patterns"
    static let rules = ["-a", "RuleLoader", "-s", "/usr/share/golly/Rules/"]

    /// Files stepped fewer generations, by their path under their folder: Goucher's
    /// replicator, whose result as RLE is 6 billion cells of box, is left to
    /// `aMacrocellTooLargeForAGridRunsAsSquares`. (The wide RLEs, Devore-rep's 106968x244
    /// and Banks-IV-constructor's 1214233x66, are read as squares and run here. The JvN
    /// folder's rules are bgolly's JvN engine's, not RuleLoader's: VonNeumannRuleTests.)
    static let fewer = ["Codd/Goucher-replicator.mc.gz": 0]

    /// Every pattern file of Golly's folders of rule-file rules (loops, Margolus
    /// emulations, turmites, worms, WireWorld, self-replicators, LifeHistory on a Klein
    /// bottle, a cross-surface, a sphere and a shifted torus) at 30 generations: bgolly's
    /// cells in bgolly's states, and its rule line.
    @Test(arguments: ["Life/Bounded-Grids", "Loops", "Margolus", "Other-Rules", "Patersons-Worms", "Turmites", "WireWorld",
                      "Self-Rep"])
    func everyFileOfAFolderIsGollysBoard(folder: String) throws {
        guard let bgolly = Harness.bgolly,
              let names = FileManager.default.enumerator(atPath: "\(Self.patterns)/\(folder)")?.compactMap({ $0 as? String }) else {
            throw TesseraError("Golly is not installed", fix: "apt-get install golly")
        }
        let dir = try Harness.temporaryDirectory()
        var compared = 0
        for name in names.sorted() where name.firstMatch(of: /\.(rle|mcl|mc)(\.gz)?$/) != nil {
            let file = name.replacingOccurrences(of: "/", with: "-")
            let input = dir.appendingPathComponent(file)
            try FileManager.default.copyItem(atPath: "\(Self.patterns)/\(folder)/\(name)", toPath: input.path)
            let (ours, theirs) = (dir.appendingPathComponent("ours-\(file).rle"), dir.appendingPathComponent("golly-\(file).rle"))
            let generations = Self.fewer[name] ?? 30
            // Only rules that bgolly's RuleLoader runs; the rest are other suites'.
            guard generations > 0, try Harness.run(bgolly, ["-q", "-q"] + Self.rules + ["-m", "\(generations)", "-o", theirs.path, input.path]).status == 0
            else { continue }
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", ours.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "\(name)")
            #expect(try Harness.ruleLine(of: ours) == Harness.ruleLine(of: theirs), "\(name)")
            compared += 1
        }
        #expect(compared >= 4, "\(folder): \(compared) files compared")
    }

    /// Rule files on the unbounded plane past the few generations the folder test runs,
    /// where HashLife takes over (`StateHashLife`) or, behind stepping the window (a gas),
    /// hands back: a WireWorld computer, Codd's decoder, a Moore-neighbourhood gas and
    /// Langton's loops, 300 generations, bgolly's cells and states.
    @Test(arguments: ["WireWorld/primes.mc", "Self-Rep/Codd/decoder-4bit-demo.rle.gz", "Other-Rules/HPP-demo.rle",
                      "Loops/Langtons-Loops.rle"])
    func ruleFilesRunLongAsGollys(file: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent(Files.lastComponent(of: file))
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/\(file)", toPath: input.path)
        let (ours, theirs) = try Harness.runBoth(input, generations: 300, bgolly: Self.rules, in: dir)
        #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs))
    }

    /// `--step` over a rule tree's states, as bgolly's `-i`: HashLife throughout in
    /// steps of that size, Golly's cells and states (Codd's decoder, 300 generations);
    /// where no HashLife runs (Generations, a bounded grid, workers), one line.
    @Test func aChosenStepRunsARuleFileAndIsRefusedWhereNoHashLifeRuns() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("decoder.rle.gz")
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/Self-Rep/Codd/decoder-4bit-demo.rle.gz", toPath: input.path)
        for step in ["1", "8", "64"] {
            let (ours, theirs) = try Harness.runBoth(input, generations: 300, bgolly: Self.rules, in: dir, context: "--step \(step)",
                                                     flags: ["--step", step])
            #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "--step \(step)")
        }
        let sawfish = dir.appendingPathComponent("sawfish.rle")
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/Generations/Sawfish.rle", toPath: sawfish.path)
        for arguments in [[sawfish.path], ["--soup", "0.3", "--size", "256"], ["--soup", "0.3", "--size", "256", "--topology", "infinite", "--workers", "2"]] {
            let run = try Harness.tessera(["run"] + arguments + ["--generations", "10", "--step", "8"])
            #expect(run.status == 2 && run.stderr.contains("has no HashLife") && run.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(run.stderr)")
        }
    }

    /// Two-state and Generations rules on each of Golly's other grids: a soup laid on
    /// the grid, 100 generations, bgolly's cells (QuickLife and Generations; their RLE
    /// keeps no position, so grids are compared by the cells' shape).
    @Test(arguments: [("B3/S23", ["-a", "QuickLife"]), ("B36/S125", ["-a", "QuickLife"]), ("B2-a/S12", ["-a", "QuickLife"]),
                      ("345/2/4", ["-a", "Generations"])])
    func rulesOnGollysOtherGridsAreGollys(rule: String, engine: [String]) throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        for suffix in [":K40*,30", ":K40,30*", ":K40*+1,30", ":K40,30*+1", ":C40,30", ":S36", ":T40+7,30", ":T40,30-11", ":P0,30", ":P40,0"] {
            // A soup on the torus of the same size, read back under the grid's suffix.
            let size = suffix.hasPrefix(":S") ? "36x36" : "40x30"
            let soup = dir.appendingPathComponent("soup.rle")
            let made = try Harness.tessera(["run", "--soup", "0.4", "--seed", "7", "--rule", rule, "--size", size, "--generations", "0",
                                            "--output", soup.path])
            #expect(made.status == 0, "\(made.stderr)")
            let text = try String(contentsOf: soup, encoding: .utf8).replacing(/:T\d+,\d+/, with: suffix)
            let input = dir.appendingPathComponent("grid.rle")
            try text.write(to: input, atomically: true, encoding: .utf8)
            let (ours, theirs) = (dir.appendingPathComponent("ours.rle"), dir.appendingPathComponent("golly.rle"))
            let run = try Harness.tessera(["run", input.path, "--generations", "100", "--output", ours.path])
            #expect(run.status == 0, "\(rule)\(suffix): \(run.stderr)")
            #expect(try Harness.run(bgolly, ["-q", "-q"] + engine + ["-m", "100", "-o", theirs.path, input.path]).status == 0)
            #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "\(rule)\(suffix)")
            #expect(try Harness.ruleLine(of: ours) == Harness.ruleLine(of: theirs), "\(rule)\(suffix)")
        }
    }

    /// Golly's infinite tubes, across (`:T0,h`) and down (`:Tw,0`): a pattern that grows
    /// along one, 400 generations, is bgolly's cells, and its rule line keeps the tube.
    @Test func aPatternGrowsAlongAnInfiniteTube() throws {
        let dir = try Harness.temporaryDirectory()
        let golly = "\(Self.patterns)/Life/Bounded-Grids/pulsars-in-tube.rle"
        guard FileManager.default.fileExists(atPath: golly) else { throw TesseraError("Golly is not installed", fix: "apt-get install golly") }
        let across = try String(contentsOfFile: golly, encoding: .utf8)
        // The same pulsars, turned to lie along a tube that runs down.
        let down = try Harness.tessera(["run", golly, "--generations", "0", "--output", dir.appendingPathComponent("cells.rle").path])
        #expect(down.status == 0, "\(down.stderr)")
        let cells = try Harness.cells(ofPatternFile: dir.appendingPathComponent("cells.rle"))
        var turned = "#CXRLE Pos=-34,-1\nx = 68, y = 2, rule = B3/S23:T68,0\n"
        let rows = (0..<2).map { x in String((0..<68).map { y in cells.contains(Harness.Cell(x: x - 1, y: y - 34)) ? "o" : "b" }) }
        turned += rows.joined(separator: "$") + "!\n"
        for (name, text) in [("across.rle", across), ("down.rle", turned)] {
            let input = dir.appendingPathComponent(name)
            try text.write(to: input, atomically: true, encoding: .utf8)
            let output = dir.appendingPathComponent("out-" + name)
            let run = try Harness.tessera(["run", input.path, "--generations", "400", "--output", output.path])
            #expect(run.status == 0 && run.stdout.contains("tube"), "\(name): \(run.stdout) \(run.stderr)")
            let expected = try Harness.gollyQuickLife(input, generations: 400)
            #expect(expected.count > 1000)
            #expect(Harness.shape(of: try Harness.cells(ofPatternFile: output)) == expected, "\(name)")
            #expect(try Harness.ruleLine(of: output)?.hasSuffix(name == "across.rle" ? ":T0,68" : ":T68,0") == true, "\(name)")
        }
    }

    /// With no place of its own, a pattern on a tube or a strip of the plane is centred
    /// as Golly's reader centres one on any bounded grid: a rule that grows across a tube
    /// meets itself across the seam where bgolly's does (placed from the origin, it lay 11
    /// columns and 4 rows over, and both tubes gave other cells), and one across a strip
    /// meets its dead sides where bgolly's does.
    @Test(arguments: [":T50,0", ":T0,44", ":P50,0", ":P0,44"])
    func aPatternOnATubeIsCentredAsGollyCentresIt(suffix: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("tube.rle"), output = dir.appendingPathComponent("out.rle")
        try """
            x = 22, y = 8, rule = B1268/S48\(suffix)
            bbbbbbbobobobobbbbboob$bobobbbobbbobbbobbobbo$bbobboobbobbbbbbobbbob$bbbbbbbboboobobboboboo$bbobbbbbbbboboobbbobbo$bobooobobboobbbobobbbo$bbobobbobobboobbbobbob$oooobbbobobbbooobbobob!
            """.write(to: input, atomically: true, encoding: .utf8)
        let run = try Harness.tessera(["run", input.path, "--generations", "137", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Harness.gollyQuickLife(input, generations: 137)
        #expect(expected.count > 1000)
        #expect(Harness.shape(of: try Harness.cells(ofPatternFile: output)) == expected, "\(suffix)")
    }

    /// Macrocell files of states, written as bgolly writes them line for line (on the
    /// unbounded plane, where Golly's root is the smallest that holds the cells).
    @Test func macrocellsOfStatesAreGollysLineForLine() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        for (name, engine) in [("Loops/Langtons-Loops.rle", Self.rules), ("WireWorld/primes.mc", Self.rules),
                               ("Generations/Delta.rle", ["-a", "Generations"])] {
            let input = dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "-"))
            try FileManager.default.copyItem(atPath: "\(Self.patterns)/\(name)", toPath: input.path)
            let (ours, theirs) = (dir.appendingPathComponent("ours.mc"), dir.appendingPathComponent("golly.mc"))
            let run = try Harness.tessera(["run", input.path, "--generations", "50", "--output", ours.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Harness.run(bgolly, ["-q", "-q"] + engine + ["-m", "50", "-o", theirs.path, input.path]).status == 0)
            let lines = { (file: URL) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n").dropFirst() }
            #expect(try lines(ours) == lines(theirs), "\(name)")
        }
    }

    /// Goucher's Codd replicator, 7562569x819 cells of states, too many for a grid: its
    /// squares run as they are, to bgolly's macrocell line for line, at 0 generations and
    /// 100; on a bounded grid, which would need its cells, it is refused in one line.
    @Test func aMacrocellTooLargeForAGridRunsAsSquares() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("goucher.mc.gz")
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/Self-Rep/Codd/Goucher-replicator.mc.gz", toPath: input.path)
        for generations in [0, 100] {
            let (ours, theirs) = (dir.appendingPathComponent("ours.mc"), dir.appendingPathComponent("golly.mc"))
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", ours.path])
            #expect(run.status == 0 && run.stdout.contains("population 57360"), "\(run.stdout)\(run.stderr)")
            #expect(try Harness.run(bgolly, ["-q", "-q"] + Self.rules + ["-m", "\(generations)", "-o", theirs.path, input.path]).status == 0)
            let lines = { (file: URL) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n").dropFirst() }
            #expect(try lines(ours) == lines(theirs), "\(generations) generations")
        }
        let bounded = try Harness.tessera(["run", input.path, "--generations", "10", "--rule", "Codd2:T100,100"])
        #expect(bounded.status == 2 && bounded.stderr.contains("past the") && bounded.stderr.split(separator: "\n").count == 1,
                "\(bounded.stderr)")
    }

    /// What cannot run gets one line and exit status 2: a rule file's rule on workers, a
    /// Klein bottle on tiles, a rule file that is not there, one that does not parse.
    @Test func refusalsNameTheProblem() throws {
        let dir = try Harness.temporaryDirectory()
        let langton = dir.appendingPathComponent("loop.rle")
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/Loops/Langtons-Loops.rle", toPath: langton.path)
        let cases: [([String], String)] = [
            (["run", langton.path, "--workers", "2"], "runs on worker processes on a torus or a plane, and this is Golly's unbounded plane"),
            (["run", "--soup", "0.3", "--rule", "B3/S23:K40,30", "--workers", "2"], "runs in this process"),
            (["run", "--soup", "0.3", "--rule", "NoSuchRule"], "rule file NAME.rule"),
            (["run", "--soup", "0.3", "--rule", "B3/S23:S40,30"], "bounded grid"),
            (["run", "--soup", "0.3", "--size", "40x68", "--rule", "B3/S23:T0,68", "--workers", "2"], "runs in this process"),
            (["run", "--soup", "0.3", "--size", "40x68", "--rule", "B3/S23:T0,68", "--algorithm", "hashlife"], "this is a tube"),
            (["run", "--soup", "0.3", "--rule", "B3/S23:T0,68+1"], "a tube has no shift"),
        ]
        for (arguments, message) in cases {
            let run = try Harness.tessera(arguments)
            #expect(run.status == 2 && run.stderr.contains(message) && run.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(run.stderr)")
        }
        // A rule file of one's own, through TESSERA_RULES: one that parses runs, one that
        // does not is named with its problem.
        let rules = dir.appendingPathComponent("rules")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "@RULE Mine\n@TABLE\nn_states:3\nneighborhood:vonNeumann\nsymmetries:rotate4\n0,1,0,0,0,2\n".write(
            to: rules.appendingPathComponent("Mine.rule"), atomically: true, encoding: .utf8)
        try "@RULE Broken\n@TABLE\nn_states:3\nneighborhood:Moore\n0,1,0\n".write(
            to: rules.appendingPathComponent("Broken.rule"), atomically: true, encoding: .utf8)
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let mine = try Harness.run(env, ["TESSERA_RULES=\(rules.path)", Harness.tessera.path, "run", "--soup", "0.3", "--rule", "Mine:T20,20",
                                         "--generations", "3"])
        #expect(mine.status == 0 && mine.stdout.contains("Mine"), "\(mine.stderr)")
        let broken = try Harness.run(env, ["TESSERA_RULES=\(rules.path)", Harness.tessera.path, "run", "--soup", "0.3", "--rule", "Broken"])
        #expect(broken.status == 2 && broken.stderr.contains("Broken.rule"), "\(broken.stderr)")
    }
}
