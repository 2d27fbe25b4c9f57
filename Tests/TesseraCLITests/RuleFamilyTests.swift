import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Golly's rule families beyond Life-like, against bgolly.
@Suite struct RuleFamilyTests {
    /// Every pattern of Golly's Non-Totalistic folder at 200 generations, through
    /// whichever engine `auto` chose: bgolly's cells at bgolly's positions.
    @Test func everyFileOfGollysNonTotalisticFolderIsGollysBoard() throws {
        let folder = "/usr/share/golly/Patterns/Non-Totalistic"
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        guard let names = FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let files = names.filter { $0.hasSuffix(".rle") }.sorted()
        #expect(files.count >= 14)
        let dir = try Harness.temporaryDirectory()
        for name in files {
            // A copy, as bgolly writes its results beside its input.
            let input = dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "-"))
            try FileManager.default.copyItem(atPath: "\(folder)/\(name)", toPath: input.path)
            let output = dir.appendingPathComponent("out-" + input.lastPathComponent)
            let run = try Harness.tessera(["run", input.path, "--generations", "200", "--output", output.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Harness.cells(ofPatternFile: output) == Harness.golly(input, generations: 200), "\(name)")
            // The rule is named as Golly names it.
            let theirs = dir.appendingPathComponent("golly-" + input.lastPathComponent)
            #expect(try Harness.run(bgolly, ["-q", "-q", "-m", "0", "-o", theirs.path, input.path]).status == 0)
            #expect(try Harness.ruleLine(of: output) == Harness.ruleLine(of: theirs), "\(name)")
        }
    }

    /// A non-totalistic soup on two workers, with halos deeper than one cell: the rule
    /// crosses the wire as its table, and halos between processes carry it out.
    @Test(arguments: ["B2-a/S12", "B37/S2-i34q"])
    func aTableRuleOnTwoWorkersIsGollysBoard(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        let start = try Harness.soupFile(density: "0.35", seed: 5, rule: "\(rule):T192,128", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", start.path, "--generations", "90", "--workers", "2", "--tiles", "3x2",
                                       "--halo", "4", "--no-head-start", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 workers"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == Harness.golly(start, generations: 90))
    }
}

extension RuleFamilyTests {
    /// B0 without S8 on the unbounded plane, as Golly's QuickLife runs it (its HashLife
    /// refuses it): the stored cells, inverted at odd generations, are bgolly's, in this
    /// process and on two workers. Golly's p168 knightship flies under such a rule.
    @Test(arguments: [1000, 1001])
    func b0WithoutS8RunsOnTheUnboundedPlane(generations: Int) throws {
        let golly = "/usr/share/golly/Patterns/Life-Like/p168-knightship.rle"
        guard FileManager.default.fileExists(atPath: golly) else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("knightship.rle")
        try FileManager.default.copyItem(atPath: golly, toPath: input.path)
        let expected = try Harness.gollyQuickLife(input, generations: generations)
        #expect(expected.count >= 10)
        for workers in ["0", "2"] {
            let output = dir.appendingPathComponent("out-\(workers).rle")
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--workers", workers,
                                           "--output", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Harness.shape(of: try Harness.cells(ofPatternFile: output)) == expected, "\(workers) workers")
        }
    }
}

extension RuleFamilyTests {
    /// Every file of Golly's Larger-than-Life folder (RLE and MCell; bounded grids, the
    /// unbounded plane, Moore and von Neumann, ranges 1 to 500, 255 history states) at
    /// 60 generations: bgolly's cells in bgolly's states (its RLE keeps no position, so
    /// the shapes are compared; `MCellTests` holds where the cells start) and bgolly's
    /// rule line.
    @Test func everyFileOfGollysLargerThanLifeFolderIsGollysBoard() throws {
        let folder = "/usr/share/golly/Patterns/Larger-than-Life"
        guard let bgolly = Harness.bgolly, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw TesseraError("Golly is not installed", fix: "apt-get install golly")
        }
        #expect(names.count >= 18)
        let dir = try Harness.temporaryDirectory()
        for name in names.sorted() {
            let input = dir.appendingPathComponent(name)
            try FileManager.default.copyItem(atPath: "\(folder)/\(name)", toPath: input.path)
            let (ours, theirs) = (dir.appendingPathComponent("ours-\(name).rle"), dir.appendingPathComponent("golly-\(name).rle"))
            // The largest (R500) in fewer generations: 7 s for 200 here, and bgolly's as long.
            let generations = name.hasPrefix("R500") ? "5" : "60"
            let run = try Harness.tessera(["run", input.path, "--generations", generations, "--output", ours.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let golly = try Harness.run(bgolly, ["-q", "-q", "-a", "Larger than Life", "-m", generations, "-o", theirs.path, input.path])
            #expect(golly.status == 0, "\(name): \(golly.stderr)")
            if name == "ModernArt.mcl" {
                #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "\(name)")
            } else {
                #expect(Harness.shape(of: try Harness.cells(ofPatternFile: ours)) == Harness.shape(of: try Harness.cells(ofPatternFile: theirs)), "\(name)")
            }
            #expect(try Harness.ruleLine(of: ours) == Harness.ruleLine(of: theirs), "\(name)")
        }
    }

    /// Two-state Larger than Life on worker processes: halos `range` cells a generation
    /// deep cross between them, tiles move on the way; bgolly's cells on a torus and a
    /// plane, for tilings, worker counts and depths.
    @Test(arguments: ["T", "P"])
    func largerThanLifeOnWorkersIsGollysBoard(grid: String) throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let start = try Harness.soupFile(density: "0.4", seed: 5, rule: "R5,C0,M1,S34..58,B34..45,NM:\(grid)192,128", in: dir)
        let theirs = dir.appendingPathComponent("golly.rle")
        #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "Larger than Life", "-m", "45", "-o", theirs.path, start.path]).status == 0)
        let expected = Harness.shape(of: try Harness.cells(ofPatternFile: theirs))
        #expect(expected.count > 100)
        for (workers, more) in [("2", ["--tiles", "2x1", "--halo", "1"]), ("2", ["--tiles", "3x2", "--halo", "4"]),
                                ("3", ["--tiles", "4x2", "--halo", "3", "--random-moves", "7"])] {
            let output = dir.appendingPathComponent("out.rle")
            let run = try Harness.tessera(["run", start.path, "--generations", "45", "--workers", workers, "--no-head-start",
                                           "--output", output.path] + more)
            #expect(run.status == 0, "\(more): \(run.stderr)")
            #expect(run.stdout.contains("\(workers) workers"), "\(run.stdout)")
            #expect(Harness.shape(of: try Harness.cells(ofPatternFile: output)) == expected, "\(workers) workers \(more)")
        }
    }

    /// A bug on the unbounded plane for 1500 generations: the window around it moves
    /// with it, and what it steps is what the plane would.
    @Test func aLargerThanLifeBugTravelsTheUnboundedPlane() throws {
        let dir = try Harness.temporaryDirectory()
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let input = dir.appendingPathComponent("jitterbug.rle")
        try FileManager.default.copyItem(atPath: "/usr/share/golly/Patterns/Larger-than-Life/Jitterbug.rle", toPath: input.path)
        let (ours, theirs) = (dir.appendingPathComponent("ours.rle"), dir.appendingPathComponent("golly.rle"))
        let run = try Harness.tessera(["run", input.path, "--generations", "1500", "--output", ours.path])
        #expect(run.status == 0 && run.stdout.contains("unbounded plane"), "\(run.stdout) \(run.stderr)")
        #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "Larger than Life", "-m", "1500", "-o", theirs.path, input.path]).status == 0)
        #expect(Harness.shape(of: try Harness.cells(ofPatternFile: ours)) == Harness.shape(of: try Harness.cells(ofPatternFile: theirs)))
        // Where Golly has it: the glider-like bug moved from where it began.
        #expect(try String(contentsOf: ours, encoding: .utf8).hasPrefix("#CXRLE Pos="))
    }
}

extension RuleFamilyTests {
    /// Patterns that send ships away on the unbounded plane, as a sparse map of tiles
    /// (`StackedPlane`): Golly's Sawfish (Generations) and Bosco's-rule gun without its
    /// bounded grid (Larger than Life), bgolly's RLE line for line: its box, its cells,
    /// its states.
    @Test(arguments: [("Generations/Sawfish.rle", "Generations", "", 1200), ("Larger-than-Life/BugGun.rle", "Larger than Life", ":P200,200", 1500)])
    func shipsSentAwayAreGollysLineForLine(file: String, engine: String, bounded: String, generations: Int) throws {
        let dir = try Harness.temporaryDirectory()
        let text = try String(contentsOfFile: "/usr/share/golly/Patterns/\(file)", encoding: .utf8)
        let input = dir.appendingPathComponent("unbounded.rle")
        try (bounded.isEmpty ? text : text.replacingOccurrences(of: bounded, with: "")).write(to: input, atomically: true, encoding: .utf8)
        let (ours, theirs) = try Harness.runBoth(input, generations: generations, bgolly: ["-a", engine], in: dir, context: file)
        let lines = { (url: URL) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") } }
        let (mine, golly) = (try lines(ours), try lines(theirs))
        #expect(mine.count > 10 && mine == golly, "\(file): \(mine.first ?? "") against \(golly.first ?? "")")
        // And as a macrocell of states (read tile by tile, `StackedPlane.squares`), node for
        // node (bgolly's Larger than Life writes no macrocell).
        guard engine == "Generations", let bgolly = Harness.bgolly else { return }
        let (ourTree, gollyTree) = (dir.appendingPathComponent("ours.mc"), dir.appendingPathComponent("golly.mc"))
        #expect(try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", ourTree.path]).status == 0)
        #expect(try Harness.run(bgolly, ["-q", "-q", "-a", engine, "-m", "\(generations)", "-o", gollyTree.path, input.path]).status == 0)
        let nodes = { (url: URL) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("[M2]") } }
        #expect(try nodes(ourTree).count > 10 && nodes(ourTree) == nodes(gollyTree), "\(file)")
    }

    /// Two of Golly's Sawfish a billion cells apart in one RLE, past the cells of states
    /// a grid holds: read as squares (`StateTreeRows`) into the tiles where they lie, in
    /// a few MB, and after 500 generations bgolly's macrocell node for node (bgolly
    /// writes no RLE that wide).
    @Test func shipsABillionCellsApartInOneFileAreGollys() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let rows = ["4.CA", "4.B3A", ".B3.C2A", "C7A", ".2ACA", "4.A", "3.C4A", "3.B.C2A", "4.B3A", "4.CA"]
        // Each row's run of dead cells to the second copy's column, 1000000008 on.
        let width = { (row: String) in row.matches(of: /(\d*)[A-C.]/).reduce(0) { $0 + (Int($1.1) ?? 1) } }
        let body = rows.map { "\($0)\(1_000_000_008 - width($0)).\($0)" }.joined(separator: "$")
        let input = dir.appendingPathComponent("two-sawfish.rle")
        try "x = 1000000016, y = 10, rule = 3458/37/4\n\(body)!\n".write(to: input, atomically: true, encoding: .utf8)
        let (ours, golly) = (dir.appendingPathComponent("ours.mc"), dir.appendingPathComponent("golly.mc"))
        let run = try Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["TESSERA_MEMORY_LIMIT_MB=64", Harness.tessera.path, "run", input.path, "--generations", "500",
                                   "--output", ours.path])
        #expect(run.status == 0 && run.stdout.contains("population 2632"), "\(run.stdout)\(run.stderr)")
        #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "Generations", "-m", "500", "-o", golly.path, input.path]).status == 0)
        let nodes = { (url: URL) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("[M2]") } }
        #expect(try nodes(ours).count > 10 && nodes(ours) == nodes(golly))
    }

    /// A Generations rule that grows without end on the unbounded plane stops, once its
    /// tiles would take more than the machine allows, in one line naming the tiles and
    /// the fix, exit 2, and no output file.
    @Test func aPlaneGrowingPastMemoryStopsInOneLine() throws {
        let dir = try Harness.temporaryDirectory()
        let (input, output) = (dir.appendingPathComponent("grows.rle"), dir.appendingPathComponent("out.rle"))
        try "x = 3, y = 3, rule = 012345678/2/3\nobo$bo$obo!\n".write(to: input, atomically: true, encoding: .utf8)
        let run = try Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["TESSERA_MEMORY_LIMIT_MB=1", Harness.tessera.path, "run", input.path, "--generations", "1000000",
                                   "--output", output.path])
        #expect(run.status == 2 && run.stderr.contains("tiles of 64x64 cells needs") && run.stderr.contains("bounded grid"),
                "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

extension RuleFamilyTests {
    /// Every file of Golly's Generations folder (MCell and RLE; bounded and unbounded,
    /// up to 25 states) at 100 generations: bgolly's cells in bgolly's states (shapes,
    /// as bgolly's RLE keeps no position) and bgolly's rule line.
    @Test func everyFileOfGollysGenerationsFolderIsGollysBoard() throws {
        let folder = "/usr/share/golly/Patterns/Generations"
        guard Harness.bgolly != nil, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw TesseraError("Golly is not installed", fix: "apt-get install golly")
        }
        #expect(names.count >= 17)
        let dir = try Harness.temporaryDirectory()
        for name in names.sorted() {
            let input = dir.appendingPathComponent(name)
            try FileManager.default.copyItem(atPath: "\(folder)/\(name)", toPath: input.path)
            let (ours, theirs) = try Harness.runBoth(input, generations: 100, bgolly: ["-a", "Generations"], in: dir, context: name)
            #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "\(name)")
            #expect(try Harness.ruleLine(of: ours) == Harness.ruleLine(of: theirs), "\(name)")
        }
    }
}

extension RuleFamilyTests {
    /// Golly's Generations and Larger-than-Life files whose rule names a torus or a plane
    /// (MCell's and RLE's), on two workers: halos carry every state plane (range cells a
    /// generation deep); bgolly's cells in bgolly's states. A file on the unbounded plane
    /// is refused on workers in one line that says what runs.
    @Test func gollysBoundedFamilyFilesOnTwoWorkersAreGollysBoards() throws {
        guard Harness.bgolly != nil else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        var (onWorkers, refused) = (0, 0)
        for (folder, engine) in [("Generations", ["-a", "Generations"]), ("Larger-than-Life", ["-a", "Larger than Life"])] {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/usr/share/golly/Patterns/\(folder)") else {
                throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
            }
            for name in names.sorted() where !name.hasPrefix("R500") {
                let input = dir.appendingPathComponent(name)
                try FileManager.default.copyItem(atPath: "/usr/share/golly/Patterns/\(folder)/\(name)", toPath: input.path)
                let probe = try Harness.tessera(["run", input.path, "--generations", "1", "--workers", "2", "--no-head-start"])
                if probe.status == 2, probe.stderr.contains("this is Golly's unbounded plane") {
                    refused += 1
                    continue
                }
                let (ours, theirs) = try Harness.runBoth(input, generations: 30, bgolly: engine, in: dir, context: name,
                                                         flags: ["--workers", "2", "--no-head-start"])
                #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs), "\(name)")
                onWorkers += 1
            }
        }
        #expect(onWorkers >= 20 && refused >= 5, "\(onWorkers) on workers, \(refused) refused")
    }

    /// Rules of states on workers checkpoint their tiles' states: resumed, on workers or
    /// here, and exported, they are the run's. A rule file's rule reaches workers as its
    /// tree (they need not have the file). A Klein bottle is refused on workers in one line.
    @Test(arguments: ["345/3/6:T192,128", "LifeHistory:T96,64", "R2,C4,M1,S3..6,B4..5,NM:P120,90"])
    func rulesOfStatesOnWorkersCheckpointAndResume(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        let soup = ["run", "--soup", "0.4", "--seed", "3", "--rule", rule]
        func file(_ name: String) -> String { dir.appendingPathComponent(name).path }
        #expect(try Harness.tessera(soup + ["--generations", "100", "--workers", "0", "--output", file("whole.rle")]).status == 0)
        #expect(try Harness.tessera(soup + ["--generations", "40", "--workers", "0", "--output", file("at40.rle")]).status == 0)
        let first = try Harness.tessera(soup + ["--generations", "60", "--workers", "2", "--tiles", "3x2", "--checkpoint", file("ck"),
                                                "--checkpoint-every", "40"])
        #expect(first.status == 0 && first.stdout.contains("1 checkpoint"), "\(first.stdout) \(first.stderr)")
        #expect(try Harness.tessera(["export", file("ck"), file("export.rle")]).status == 0)
        #expect(try String(contentsOfFile: file("export.rle"), encoding: .utf8) == String(contentsOfFile: file("at40.rle"), encoding: .utf8))
        for workers in ["2", "0"] {
            let resumed = try Harness.tessera(["run", "--resume", file("ck"), "--generations", "60", "--workers", workers,
                                               "--output", file("resumed-\(workers).rle")])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try String(contentsOfFile: file("resumed-\(workers).rle"), encoding: .utf8)
                == String(contentsOfFile: file("whole.rle"), encoding: .utf8), "\(workers) workers")
        }
    }

    /// Frames of a Generations board on workers show each dot's state as frames in this
    /// process do: the PNGs are the same bytes.
    @Test func framesOfStatesOnWorkersAreThisProcesssFrames() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = ["run", "--soup", "0.4", "--seed", "3", "--rule", "345/3/6:T128,96", "--generations", "20", "--every", "10"]
        #expect(try Harness.tessera(soup + ["--workers", "0", "--frames", dir.appendingPathComponent("here").path]).status == 0)
        let run = try Harness.tessera(soup + ["--workers", "2", "--tiles", "3x2", "--frames", dir.appendingPathComponent("there").path])
        #expect(run.status == 0, "\(run.stderr)")
        for frame in ["frame-000000.png", "frame-000001.png", "frame-000002.png"] {
            let here = try Data(contentsOf: dir.appendingPathComponent("here/\(frame)"))
            #expect(try Data(contentsOf: dir.appendingPathComponent("there/\(frame)")) == here, "\(frame)")
        }
    }

    /// A head start hands a board of states to the workers in its states: Golly's
    /// Bloomerang (Generations) and ModernArt (Larger than Life, 255 states), handed
    /// over part way, end as the same run in this process.
    @Test(arguments: ["Generations/Bloomerang.mcl", "Larger-than-Life/ModernArt.mcl"])
    func aHeadStartHandsStatesToWorkers(file: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent((file as NSString).lastPathComponent)
        guard (try? FileManager.default.copyItem(atPath: "/usr/share/golly/Patterns/\(file)", toPath: input.path)) != nil else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let (here, there) = (dir.appendingPathComponent("here.rle"), dir.appendingPathComponent("there.rle"))
        #expect(try Harness.tessera(["run", input.path, "--generations", "30", "--workers", "0", "--output", here.path]).status == 0)
        let run = try Harness.tessera(["run", input.path, "--generations", "30", "--workers", "2", "--hand-over-at", "10",
                                       "--output", there.path])
        #expect(run.status == 0 && run.stdout.contains("the first 10 generations stepped here"), "\(run.stdout) \(run.stderr)")
        #expect(try String(contentsOf: there, encoding: .utf8) == String(contentsOf: here, encoding: .utf8))
    }

    @Test func aRuleFileGoesToWorkersAsItsTreeAndAKleinBottleStaysHere() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = ["run", "--soup", "0.4", "--seed", "2", "--generations", "20", "--workers", "2"]
        let klein = try Harness.tessera(soup + ["--rule", "B3/S23:K64,64"])
        #expect(klein.status == 2 && klein.stderr.contains("runs in this process, not on worker processes yet"), "\(klein.stderr)")
        let (here, there) = (dir.appendingPathComponent("here.rle"), dir.appendingPathComponent("there.rle"))
        #expect(try Harness.tessera(soup.dropLast(2) + ["--workers", "0", "--rule", "LifeHistory:T96,64", "--output", here.path]).status == 0)
        let run = try Harness.tessera(soup + ["--rule", "LifeHistory:T96,64", "--tiles", "3x2", "--halo", "3", "--output", there.path])
        #expect(run.status == 0 && run.stdout.contains("2 workers"), "\(run.stderr)")
        #expect(try String(contentsOf: here, encoding: .utf8) == String(contentsOf: there, encoding: .utf8))
    }

    /// Wolfram's W22 grows Sierpinski's triangle a row a generation: on tiles (here, and
    /// on two workers) as by HashLife, bgolly's cells.
    @Test func aWolframRuleIsGollysOnTiles() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("w22.rle")
        try "x = 1, y = 1, rule = W22\no!\n".write(to: input, atomically: true, encoding: .utf8)
        let expected = try Harness.golly(input, generations: 300)
        #expect(expected.count > 1000)
        for workers in ["0", "2"] {
            let output = dir.appendingPathComponent("out-\(workers).rle")
            let run = try Harness.tessera(["run", input.path, "--generations", "300", "--algorithm", "tiles", "--workers", workers,
                                           "--output", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Harness.cells(ofPatternFile: output) == expected, "\(workers) workers")
        }
    }
}

extension RuleFamilyTests {
    /// States of cells far apart on the unbounded plane are kept (grouping far-apart
    /// parts, which tiles need, once dropped them), and a pattern run under a rule with
    /// fewer states than its cells hold is refused in one line.
    @Test func statesFarApartAreKeptAndStatesPastTheRuleRefused() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("apart.rle")
        try "x = 10000, y = 3, rule = 345/3/6\nC9998bC$2A9996b2A$A!\n".write(to: input, atomically: true, encoding: .utf8)
        let (ours, theirs) = try Harness.runBoth(input, generations: 3, bgolly: ["-a", "Generations"], in: dir)
        #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs))
        let refused = try Harness.tessera(["run", input.path, "--rule", "345/3/3", "--generations", "3", "--output", ours.path])
        #expect(refused.status == 2 && refused.stderr.contains("past the 3 states"), "\(refused.stderr)")
    }
}
