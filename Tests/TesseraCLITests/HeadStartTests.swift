import Foundation
import Testing
import TesseraCore

/// A run whose worker count Tessera chooses steps a pattern in its own process, on one
/// tile, until the board keeps a core busy; only then does it start its workers, and it
/// hands them the live cells once they are up. Wherever that hand-over falls (tests
/// pick it with the hidden `--hand-over-at`), the board is Golly's.
/// One at a time: each starts clusters, and CLI suites running side by side on two
/// cores can push the resilience tests past their time limits.
@Suite(.serialized) struct HeadStartTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs `arguments` with an output file; returns the summary line and the output's cells.
    func run(_ arguments: [String], in dir: URL) throws -> (summary: String, cells: Set<Harness.Cell>) {
        let output = dir.appendingPathComponent("\(UUID().uuidString).rle")
        let result = try Harness.tessera(["run"] + arguments + ["--output", output.path])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return (result.stdout, try Harness.cells(ofPatternFile: output))
    }

    @Test(arguments: [
        // On a torus: gliders cross its seams before and after the hand-over.
        ("acorn, torus", "x = 7, y = 3, rule = B3/S23:T200,150\nbo$3bo$2o2b3o!\n", 2000, [1, 777, 1999]),
        // On a dead-edge plane, another rule: HighLife's replicator reaches the edges.
        ("replicator, plane", "x = 5, y = 5, rule = B36/S23:P120,100\n2b3o$bo2bo$o3bo$o2bo$3o!\n", 600, [100, 450]),
        // Unbounded: the gun's gliders fly off, here and on the workers' shards.
        ("gun, unbounded", "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!\n", 5000, [64, 4500]),
        // Unbounded growth, far from the origin (within the ±10⁹ Golly writes as RLE).
        ("switch engines, far", "#CXRLE Pos=999990000,-999990000\nx = 39, y = 1, rule = B3/S23\n8ob5o3b3o6b7ob5o!\n", 3000, [2999]),
        // A pattern that dies: nothing to hand over.
        ("dies", "x = 2, y = 1, rule = B3/S23:T64,64\n2o!\n", 300, [5]),
    ])
    func theHandOverLeavesGollysBoard(name: String, text: String, generations: Int, handOvers: [Int]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write(text, "pattern.rle", in: dir)
        let golly = try Harness.golly(input, generations: generations)
        for at in handOvers {
            for layout in [[], ["--workers", "3", "--tiles", "2x2", "--halo", "7"]] {
                let ours = try run([input.path, "--generations", "\(generations)", "--hand-over-at", "\(at)"] + layout, in: dir)
                #expect(ours.cells == golly, "\(name), hand-over at \(at), \(layout)")
                #expect(ours.summary.contains("(the first \(at) generations stepped here)"), "\(ours.summary)")
            }
        }
    }

    /// A soup laid on an area of the unbounded plane is a pattern too: it hands over.
    @Test func aSoupOnTheUnboundedPlaneHandsOverToo() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = ["--soup", "0.37", "--seed", "5", "--size", "48x40", "--topology", "infinite"]
        let start = dir.appendingPathComponent("soup.rle")
        #expect(try Harness.tessera(["run"] + soup + ["--generations", "0", "--output", start.path]).status == 0)
        let golly = try Harness.golly(start, generations: 1200)
        let ours = try run(soup + ["--generations", "1200", "--hand-over-at", "300"], in: dir)
        #expect(ours.cells == golly)
    }

    /// A quiet board is never busy enough to be worth the workers: the run ends here
    /// with no worker process started, as fast as one process runs it. (A blinker: even
    /// a debug build steps it in a few microseconds a generation.)
    @Test func aQuietPatternNeverStartsItsWorkers() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 3, y = 1, rule = B3/S23:P1024,1024\n3o!\n", "blinker.rle", in: dir)
        let ours = try run([input.path, "--generations", "100001"], in: dir)
        #expect(ours.summary.contains("in process (never busy enough to start its"), "\(ours.summary)")
        #expect(ours.cells == (try Harness.golly(input, generations: 100001)))
        // A chosen worker count does every generation.
        let chosen = try run([input.path, "--generations", "1001", "--workers", "2"], in: dir)
        #expect(chosen.summary.contains("2 workers,") && !chosen.summary.contains("stepped here"), "\(chosen.summary)")
        #expect(chosen.cells == ours.cells)
    }

    /// A busy pattern spread thin (four soups at the corners of a box 30000 cells wide)
    /// stays in this process, whose sparse map steps only its tiles, with no bands to
    /// trade. Whether or not the run counts as busy, no worker takes it.
    @Test func aSparsePatternStaysInProcessBusyOrNot() throws {
        let dir = try Harness.temporaryDirectory()
        var random = SplitMix64(seed: 41)
        let (side, far) = (512, 30_000)
        func soupRow() -> String {
            (0..<side).map { _ in random.next() % 100 < 35 ? "o" : "b" }.joined()
        }
        var rows: [String] = []
        for y in 0..<(far + side) {
            guard y < side || y >= far else { continue }
            rows.append(soupRow() + "\(far - side)b" + soupRow() + (y == side - 1 ? "\(far - side + 1)$" : "$"))
        }
        let text = "x = \(far + side), y = \(far + side), rule = B3/S23\n" + rows.joined(separator: "\n").dropLast() + "!\n"
        let input = try write(text, "corners.rle", in: dir)
        let ours = try run([input.path, "--generations", "2000"], in: dir)
        #expect(ours.summary.contains("in process (") && !ours.summary.contains("stepped here"), "\(ours.summary)")
        #expect(Harness.shape(of: ours.cells) == (try Harness.gollyQuickLife(input, generations: 2000)))
    }

    /// SIGTERM after the hand-over stops the run like any other: the workers stop,
    /// nothing is written, and the run exits 128 + 15. (The head start's signal stream
    /// ended before the cluster's began, and the cluster's once never caught a signal.)
    @Test(.timeLimit(.minutes(2))) func aSignalAfterTheHandOverStopsTheRun() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupFile(density: "0.35", seed: 3, rule: "B3/S23:T512,512", in: dir)
        let output = dir.appendingPathComponent("never.rle")
        let run = try RunningTessera(["run", input.path, "--generations", "1000000000", "--hand-over-at", "10",
                                      "--output", output.path])
        let workers = try run.workerPids(2)
        // Stepping on the workers, so past the hand-over.
        _ = try Processes.poll(timeout: 60, "the workers to step") { Processes.cpuSeconds(workers[0]) > 0.3 ? true : nil }
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 30) == 128 + SIGTERM, "\(run.errorText)")
        #expect(run.errorText.contains("interrupted by SIGTERM"), "\(run.errorText)")
        #expect(!workers.contains(where: Processes.alive))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A worker lost after the hand-over, before any snapshot: the run rolls back to the
    /// cells it handed over (never to the pattern's start: the tiles are not the run's
    /// first), and ends with the board an undisturbed run writes. (A loss after a
    /// snapshot goes as in ResilienceTests: the hand-over is then behind it.) The
    /// workers hold the handed-over cells as shards of a sparse map, whose switch
    /// engines grow for long enough (some seconds) to lose a worker in the middle.
    @Test(.timeLimit(.minutes(2)))
    func aWorkerLostAfterTheHandOverIsSurvived() throws {
        let dir = try Harness.temporaryDirectory()
        let engines = try write("x = 6002, y = 2, rule = B3/S23\n8ob5o3b3o6b7ob5o5961b2o$6000b2o!\n", "engines.rle", in: dir)
        let undisturbed = dir.appendingPathComponent("undisturbed.rle"), output = dir.appendingPathComponent("out.rle")
        // Long enough on this machine for the loss to come mid-run: 100000 generations
        // took 0.37 s with AVX-512's kernel, before the kill at 0.4.
        let generations = "\(try Harness.generations(100_000, lasting: 2.5, ["run", engines.path, "--hand-over-at", "100"]))"
        #expect(try Harness.tessera(["run", engines.path, "--generations", generations, "--workers", "0",
                                     "--output", undisturbed.path]).status == 0)
        let run = try RunningTessera(["run", engines.path, "--generations", generations, "--hand-over-at", "100",
                                      "--output", output.path, "--report"])
        try ResilienceTests.killTheBusiestWorker(of: run, count: 2, after: 0.4)
        #expect(run.wait(timeout: 90) == 0, "\(run.errorText)")
        #expect(run.outputText.contains("(the first 100 generations stepped here)")
            && run.outputText.contains("survived 1 lost worker") && run.outputText.contains("rolled back to 100 "),
            "\(run.outputText)")
        #expect(try Data(contentsOf: output) == Data(contentsOf: undisturbed))
    }

    /// libzmq and the libraries it brings load when the first socket opens: a run
    /// that never needs its workers never loads them (the dynamic loader says what it
    /// loads under LD_DEBUG), and one with workers does.
    @Test func aRunOverInProcessNeverLoadsLibzmq() throws {
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let arguments = ["LD_DEBUG=files", Harness.tessera.path, "run", "blinker", "--size", "1024x1024", "--topology", "plane", "--generations", "1000"]
        let quiet = try Harness.run(env, arguments)
        #expect(quiet.status == 0 && quiet.stdout.contains("never busy enough"), "\(quiet.stdout)")
        #expect(quiet.stderr.contains("libc.so") && !quiet.stderr.contains("libzmq"))
        let cluster = try Harness.run(env, arguments + ["--workers", "2"])
        #expect(cluster.status == 0 && cluster.stderr.contains("libzmq.so.5"))
    }

    /// A dense board keeps a core busy at once: the workers start (and take the cells
    /// over partway, unless the run is over before they are up), and the board is the
    /// one this process steps alone (which the oracle tests hold to Golly's). Sixteen
    /// million cells, so that a generation takes longer than `HeadStart.busy` even
    /// with the optimised kernel of a debug build on 512-bit vectors (four million took
    /// 43 µs a generation on a Zen 3 core, against its 40, and were not always busy; eight
    /// million take a Zen 5 core about 40 µs at 512 bits a vector).
    @Test func aBusyBoardStartsItsWorkers() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupFile(density: "0.35", seed: 11, rule: "B3/S23:T4096,4096", in: dir)
        let ours = try run([input.path, "--generations", "2000"], in: dir)
        #expect(ours.summary.contains(" (the first ") || ours.summary.contains(" (over before its"), "\(ours.summary)")
        #expect(ours.cells == (try run([input.path, "--generations", "2000", "--workers", "0"], in: dir).cells))
    }

    @Test func noHeadStartMeansTheWorkersDoEveryGeneration() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 3, y = 3, rule = B3/S23:T64,64\nbo$2bo$3o!\n", "glider.rle", in: dir)
        let ours = try run([input.path, "--generations", "100", "--no-head-start"], in: dir)
        #expect(ours.summary.contains(" worker") && !ours.summary.contains("in process") && !ours.summary.contains("stepped here"),
                "\(ours.summary)")
        #expect(ours.cells == (try Harness.golly(input, generations: 100)))
    }
}
