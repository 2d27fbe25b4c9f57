import Foundation
import Testing
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraRun

/// `tessera run` on the unbounded plane starts with HashLife, and keeps it while it
/// makes fewer squares than tiles would step cells; bgolly is the oracle throughout.
@Suite struct HashLifeRunTests {
    static let gun = "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!\n"

    func file(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs the gun `generations` with an RLE out; the file's lines after the position
    /// line, and bgolly's (which leaves the position out at the origin), and what tessera said.
    func gunFiles(_ generations: Int) throws -> (ours: [Substring], theirs: [Substring], said: String) {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let input = try file(Self.gun, "gun.rle", in: dir)
        let (ours, theirs) = (dir.appendingPathComponent("out.rle"), dir.appendingPathComponent("golly.rle"))
        let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", ours.path])
        #expect(run.status == 0, "\(run.stderr)")
        let golly = try Harness.run(bgolly, ["-q", "-q", "-a", "HashLife", "-m", "\(generations)", "-o", theirs.path, input.path])
        #expect(golly.status == 0)
        let text = try String(contentsOf: ours, encoding: .utf8)
        #expect(text.hasPrefix("#CXRLE Pos=0,0 Gen=\(generations)\n"))
        return (text.split(separator: "\n").dropFirst().map { $0 }, try String(contentsOf: theirs, encoding: .utf8).split(separator: "\n"), run.stdout)
    }

    /// `--memory 1` (MiB: 26214 squares, where acorn's 5206 generations make 50000):
    /// HashLife drops the squares acorn no longer reaches, and takes smaller steps where
    /// one needs more, and still ends on bgolly's file; so does `--step 1024`.
    @Test func aRunUnderAMemoryLimitCollectsAndEndsOnGollysFile() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let input = try file("x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let (ours, theirs) = (dir.appendingPathComponent("out.mc"), dir.appendingPathComponent("golly.mc"))
        let run = try Harness.tessera(["run", input.path, "--generations", "5206", "--algorithm", "hashlife", "--memory", "1",
                                       "--output", ours.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(" times)"), "it collected: \(run.stdout)")
        #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "HashLife", "-m", "5206", "-o", theirs.path, input.path]).status == 0)
        // Past the first line, which names the writer.
        #expect(try String(contentsOf: ours, encoding: .utf8).split(separator: "\n").dropFirst()
                    == String(contentsOf: theirs, encoding: .utf8).split(separator: "\n").dropFirst())
        // Steps of a chosen size, as bgolly's -i: 5 of 1024, then 2, 4, 16 and 64.
        let stepped = dir.appendingPathComponent("stepped.mc")
        let byStep = try Harness.tessera(["run", input.path, "--generations", "5206", "--step", "1024", "--output", stepped.path])
        #expect(byStep.status == 0, "\(byStep.stderr)")
        #expect(try String(contentsOf: stepped, encoding: .utf8).split(separator: "\n").dropFirst()
                    == String(contentsOf: theirs, encoding: .utf8).split(separator: "\n").dropFirst())
        for (flags, problem) in [(["--memory", "0"], "is not a size in MiB"), (["--memory", "-5"], "is not a size in MiB"),
                                 (["--memory", "8", "--algorithm", "tiles"], "runs none"),
                                 (["--step", "1000"], "is not a power of two"), (["--step", "8", "--algorithm", "tiles"], "runs none")] {
            let refused = try Harness.tessera(["run", input.path, "--generations", "10"] + flags)
            #expect(refused.status == 2 && refused.stderr.contains(problem), "\(refused.stderr)")
        }
    }

    /// `--step` is bgolly's `-i`: HashLife throughout. A soup, which tiles take from
    /// HashLife after a few generations by default, stays with HashLife in steps of
    /// 1024, and ends on the same cells.
    @Test func aChosenStepKeepsHashLife() throws {
        let dir = try Harness.temporaryDirectory()
        var random = SplitMix64(seed: 34)
        let rows = (0..<200).map { _ in String((0..<200).map { _ in random.next() % 100 < 35 ? "o" : "b" }) }
        let input = try file("x = 200, y = 200, rule = B3/S23\n" + rows.joined(separator: "$") + "!\n", "soup.rle", in: dir)
        let (stepped, auto) = (dir.appendingPathComponent("stepped.rle"), dir.appendingPathComponent("auto.rle"))
        let byStep = try Harness.tessera(["run", input.path, "--generations", "4096", "--step", "1024", "--output", stepped.path])
        #expect(byStep.status == 0 && byStep.stdout.contains("in process by HashLife ("), "\(byStep.stdout)\(byStep.stderr)")
        let byDefault = try Harness.tessera(["run", input.path, "--generations", "4096", "--output", auto.path])
        #expect(byDefault.status == 0 && byDefault.stdout.contains("then in process"), "\(byDefault.stdout)")
        #expect(try Harness.statesShape(of: stepped) == Harness.statesShape(of: auto))
    }

    /// `--every 1000 --output gun.mc` writes gun-1000.mc, gun-2000.mc and gun-2500.mc,
    /// each bgolly's file at its generation; so does a run in this process
    /// (`--workers 0`); on workers, or with nothing to write, `--every` is refused in one line.
    @Test func everySoManyGenerationsAFileNumberedByIt() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let dir = try Harness.temporaryDirectory()
        let input = try file(Self.gun, "gun.rle", in: dir)
        let run = try Harness.tessera(["run", input.path, "--generations", "2500", "--every", "1000",
                                       "--output", dir.appendingPathComponent("gun.mc").path])
        #expect(run.status == 0, "\(run.stderr)")
        for generation in [1000, 2000, 2500] {
            let theirs = dir.appendingPathComponent("golly-\(generation).mc")
            #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "HashLife", "-m", "\(generation)", "-o", theirs.path, input.path]).status == 0)
            let ours = dir.appendingPathComponent("gun-\(generation).mc")
            #expect(try String(contentsOf: ours, encoding: .utf8).split(separator: "\n").dropFirst()
                        == String(contentsOf: theirs, encoding: .utf8).split(separator: "\n").dropFirst(), "generation \(generation)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("gun.mc").path))
        // A run in this process writes them too: acorn on a torus, every 50 generations.
        let torus = try file("x = 7, y = 3, rule = B3/S23:T200,150\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let here = try Harness.tessera(["run", torus.path, "--generations", "120", "--every", "50", "--workers", "0",
                                        "--output", dir.appendingPathComponent("acorn.rle").path])
        #expect(here.status == 0, "\(here.stderr)")
        for generation in [50, 100, 120] {
            let ours = try Harness.cells(ofPatternFile: dir.appendingPathComponent("acorn-\(generation).rle"))
            #expect(ours == (try Harness.golly(torus, generations: generation)), "generation \(generation)")
        }
        let bounded = try file("x = 3, y = 1, rule = B3/S23:T64,64\n3o!\n", "torus.rle", in: dir)
        for (arguments, problem) in [([bounded.path, "--every", "10", "--output", dir.appendingPathComponent("t.rle").path], "add --workers 0"),
                                     ([input.path, "--every", "10"], "none is asked for"),
                                     ([input.path, "--every", "0", "--output", dir.appendingPathComponent("z.rle").path], "no interval")] {
            let refused = try Harness.tessera(["run"] + arguments + ["--generations", "20"])
            #expect(refused.status == 2 && refused.stderr.contains(problem) && refused.stderr.split(separator: "\n").count == 1,
                    "\(refused.stderr)")
        }
    }

    /// The issue's own words: a LifeWiki gun, a hundred thousand generations, an RLE out,
    /// byte for byte bgolly's.
    @Test func aGunsHundredThousandGenerationsAreGollysFile() throws {
        let (ours, theirs, said) = try gunFiles(100_000)
        #expect(said.contains("in process by HashLife") && said.contains("population 16713"), "\(said)")
        #expect(ours == theirs)
    }

    /// 30000 generations: the stream's 7518×7505 box would fit one grid, but only the
    /// squares along its diagonal hold live cells, so it is written square by square as
    /// well: bgolly's file byte for byte.
    @Test func aMostlyEmptyBoxWritesSquareBySquareAsGollyDoes() throws {
        let (ours, theirs, said) = try gunFiles(30_000)
        #expect(said.contains("in process by HashLife"), "\(said)")
        #expect(ours == theirs)
    }

    /// A million generations: the glider stream, 250000 cells long, is too large for one
    /// grid (7.8 GB at a bit a cell) and is written square by square, runs joined across
    /// squares, still bgolly's file byte for byte.
    @Test func aMillionGenerationsWriteSquareBySquareAsGollyDoes() throws {
        let (ours, theirs, said) = try gunFiles(1_000_000)
        #expect(said.contains("population 166713"), "\(said)")
        #expect(ours == theirs)
    }

    /// Every file of Golly's HashLife folder (W22's one-dimensional rule too) at 2^10
    /// generations, written as a macrocell: bgolly's file line for line past the first,
    /// whichever engine `auto` chose for it.
    @Test func everyFileOfGollysHashLifeFolderIsGollysMacrocell() throws {
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let folder = "/usr/share/golly/Patterns/HashLife"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count >= 26)
        let dir = try Harness.temporaryDirectory()
        for name in names {
            let input = "\(folder)/\(name)"
            let (ours, theirs) = (dir.appendingPathComponent("\(name).ours.mc"), dir.appendingPathComponent("\(name).golly.mc"))
            let run = try Harness.tessera(["run", input, "--generations", "1024", "--output", ours.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Harness.run(bgolly, ["-q", "-q", "-a", "HashLife", "-m", "1024", "-o", theirs.path, input]).status == 0)
            #expect(try String(contentsOf: ours, encoding: .utf8).split(separator: "\n").dropFirst()
                        == String(contentsOf: theirs, encoding: .utf8).split(separator: "\n").dropFirst(), "\(name)")
        }
    }

    /// Golly's Cordership gun: its first steps make HashLife far more squares than tiles
    /// would step (in 10000 generations it goes to tiles at once), but a hundred thousand
    /// generations repay them (3.5 s by tiles, 0.04 s by HashLife): it stays with
    /// HashLife, and its file is bgolly's.
    @Test func aLargeGunsLongRunStaysWithHashLife() throws {
        let golly = "/usr/share/golly/Patterns/Life/Guns/Cordership-gun-p784.rle"
        guard let text = FileManager.default.contents(atPath: golly).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let dir = try Harness.temporaryDirectory()
        let gun = try file(text, "gun.rle", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", gun.path, "--generations", "100000", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("in process by HashLife") && run.stdout.contains("population 64394"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(gun, generations: 100_000)))
    }

    /// A methuselah's debris costs HashLife fewer squares than the area it covers costs
    /// tiles: acorn stays with HashLife to the end, and is Golly's board.
    @Test func aMethuselahStaysWithHashLife() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try file("x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", input.path, "--generations", "5206", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("in process by HashLife"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 5206)))
    }

    /// HashLife sets aside address space for all the squares it may ever hold (several
    /// GiB here); where a limit on address space (`ulimit -v`, as some batch systems set)
    /// refuses that, it takes less and runs on, with Golly's result.
    @Test func aLimitOnAddressSpaceLeavesHashLifeRunning() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try file("x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.run(URL(fileURLWithPath: "/bin/sh"), [
            "-c", "ulimit -v 400000 && exec \"$0\" run \"$1\" --generations 5206 --output \"$2\"",
            Harness.tessera.path, input.path, output.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("in process by HashLife"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 5206)))
    }

    /// A dense soup makes new squares everywhere, which tiles step far more cheaply:
    /// HashLife hands it over within its first steps, from the generation it reached (a
    /// larger soup from its start, HashLife behind from the first step), and the board
    /// is still Golly's.
    @Test(arguments: [(256, false), (512, true)])
    func aSoupIsHandedToTiles(side: Int, atOnce: Bool) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try soupFile(side: side, in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", input.path, "--generations", "300", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        if atOnce {
            #expect(run.stdout.contains("HashLife falling behind at once, "), "\(run.stdout)")
        } else {
            let handed = try #require(run.stdout.firstMatch(of: #/the first (\d+) generations by HashLife, then /#), "\(run.stdout)")
            #expect(Int(handed.1)! < 100)
        }
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 300)))
    }

    /// Settled, a soup is ash and gliders, which HashLife steps in microseconds: after
    /// it fell behind at once, tiles step 4096 generations and HashLife takes the run
    /// back from their cells (`HashLifeRun.takeBack`, as `tessera run` does after a
    /// hand-over, whose moment depends on the machine's speed), and the board is Golly's.
    /// No grace runs out: how HashLife's pace compares with the tiles' is this machine's
    /// and this build's (`tookBackFromTilesOnlyWhileAhead` checks the rule).
    @Test func hashLifeTakesASettledSoupBack() async throws {
        let dir = try Harness.temporaryDirectory()
        let input = try soupFile(side: 512, in: dir)
        var choices = RunSetup.Choices()
        choices.pattern = (try PatternFile.load(input.path), "soup.rle")
        let setup = try RunSetup(choices, defaultTiles: 2)
        let path = dir.appendingPathComponent("out.rle")
        let output = try BoardOutput(path: path.path, shape: setup.shape, rule: setup.rule, name: "soup")
        let behind = RunOutcome.HashLifeShare(generations: 0, seconds: 0, squares: 0, handedOver: true)
        let ending = try await HashLifeRun.takeBack(setup, generations: 300000, output: output, after: behind, settings: .init(),
                                                    grace: .infinity)
        guard case .finished(let outcome) = ending else {
            Issue.record("HashLife did not take the run back")
            return
        }
        #expect(outcome.generations == 300000 && outcome.hashLife?.returns == 1 && outcome.hashLife?.tileGenerations == 4096)
        #expect(try Harness.cells(ofPatternFile: path) == (try Harness.golly(input, generations: 300000)))
    }

    /// A turn of HashLife hands back once it is further behind the tiles' pace than their grace.
    @Test func tookBackFromTilesOnlyWhileAhead() {
        let tiles = (secondsPerGeneration: 1e-4, grace: 0.01)
        #expect(!HashLifeRun.isBehind(tiles, seconds: 0.005, generations: 1))
        #expect(HashLifeRun.isBehind(tiles, seconds: 0.0102, generations: 1))
        #expect(!HashLifeRun.isBehind(tiles, seconds: 0.1, generations: 1000))
        #expect(HashLifeRun.isBehind(tiles, seconds: 0.111, generations: 1000))
    }

    /// A seeded 35% soup, `side` cells square, as an RLE file on the unbounded plane.
    private func soupFile(side: Int, in dir: URL) throws -> URL {
        let soup = try Soup(density: 0.35, seed: 7).cells(x: 0, y: 0, width: side, height: side)
        let rows = (0..<soup.height).map { y in String((0..<soup.width).map { soup[$0, y] ? "o" : "b" }) }
        let body = rows.joined(separator: "$") + "!"
        let lines = stride(from: 0, to: body.count, by: 70).map { String(body.dropFirst($0).prefix(70)) }
        return try file("x = \(soup.width), y = \(soup.height), rule = B3/S23\n" + lines.joined(separator: "\n") + "\n", "soup.rle", in: dir)
    }

    @Test(arguments: [
        (["--size", "64x64"], "bounded"),
        (["--workers", "2"], "in this process"),
        (["--checkpoint", "cp"], "in this process"),
    ])
    func hashLifeWhereItCannotRunSaysSo(extra: [String], says: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try file(Self.gun, "gun.rle", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", input.path, "--algorithm", "hashlife", "--generations", "10", "--output", output.path] + extra,
                                      in: dir)
        #expect(run.status == 2)
        #expect(run.stderr.contains(says) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A step of a pattern that never settles (Seeds, B2/S, from a soup) can take
    /// minutes: a signal stops it within the step, with nothing written. The plain line
    /// runs on the main thread without the task pool; `--workers 0` takes the parser's
    /// way, in a task.
    @Test(arguments: [[], ["--workers", "0"]])
    func aSignalStopsALongStep(extra: [String]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try file(Self.seeds, "seeds.rle", in: dir)
        let output = dir.appendingPathComponent("never.rle")
        let run = try RunningTessera(["run", input.path, "--algorithm", "hashlife", "--generations", "1099511627776", "--output", output.path] + extra)
        _ = try Processes.poll(timeout: 30, "the run to compute") { Processes.cpuSeconds(run.pid) > 0.3 ? true : nil }
        let sent = Date()
        kill(run.pid, SIGINT)
        #expect(run.wait(timeout: 10) == 128 + SIGINT)
        #expect(Date().timeIntervalSince(sent) < 5, "took \(Date().timeIntervalSince(sent)) s")
        #expect(run.errorText.contains("nothing written to \(output.path)"), "\(run.errorText)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A shell starts a background job with SIGINT ignored, and expects it to stay so: the
    /// run hears only the SIGTERM sent after it (noted first, it would name SIGINT).
    @Test func aSignalIgnoredAtStartStaysIgnored() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try file(Self.seeds, "seeds.rle", in: dir)
        let run = try RunningTessera(URL(fileURLWithPath: "/bin/sh"),
                                     ["-c", "trap '' INT; exec \"$0\" run \"$1\" --algorithm hashlife --generations 1099511627776",
                                      Harness.tessera.path, input.path])
        _ = try Processes.poll(timeout: 30, "the run to compute") { Processes.cpuSeconds(run.pid) > 0.3 ? true : nil }
        kill(run.pid, SIGINT)
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
        #expect(run.errorText.contains("interrupted by SIGTERM"), "\(run.errorText)")
    }

    private static let seeds = "x = 6, y = 5, rule = B2/S\nob2obo$2obo$bo2b2o$3obo$obob2o!\n"
}
