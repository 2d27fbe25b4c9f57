import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Tiles that move between worker processes mid-run, cells, skipping state and halo
/// routes and all, leave the result bgolly's.
@Suite struct TileMigrationTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func run(_ input: URL, generations: Int, _ extra: [String], in dir: URL) throws -> (cells: Set<Harness.Cell>, stdout: String) {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).rle")
        let result = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", output.path] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return (try Harness.cells(ofPatternFile: output), result.stdout)
    }

    /// Random tiles move after every round or few (`--random-moves`), on torus and plane,
    /// 2 and 3 workers, shallow and deep halos: acorn, and a soup under HighLife.
    @Test(arguments: ["T", "P"])
    func randomMovesEveryFewRoundsMatchGolly(topology: String) throws {
        let dir = try Harness.temporaryDirectory()
        let acorn = try write("x = 7, y = 3, rule = B3/S23:\(topology)300,160\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let golly = try Harness.golly(acorn, generations: 400)
        for (workers, halo, seed) in [(2, 1, 1), (2, 5, 2), (3, 3, 3)] {
            let (ours, stdout) = try run(acorn, generations: 400, ["--tiles", "4x3", "--workers", "\(workers)", "--halo", "\(halo)",
                                                                   "--random-moves", "\(seed)"], in: dir)
            #expect(ours == golly, "\(topology) workers \(workers) halo \(halo)")
            #expect(stdout.contains("tile move"), "the tiles did move: \(stdout)")
        }
        let soup = try Harness.soupFile(density: "0.35", seed: 4, rule: "B36/S23:\(topology)131,67", in: dir)
        let (ours, _) = try run(soup, generations: 150, ["--tiles", "3x2", "--halo", "2", "--random-moves", "9"], in: dir)
        #expect(ours == (try Harness.golly(soup, generations: 150)))
    }

    /// B0 without S8 alternates its rules by generation parity: a tile moved at an odd
    /// generation must carry on with the right one.
    @Test func movesKeepTheParityOfAlternatingRules() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = try Harness.soupFile(density: "0.3", seed: 5, rule: "B0134/S2:T96,64", in: dir)
        let (ours, _) = try run(soup, generations: 41, ["--tiles", "3x2", "--halo", "1", "--random-moves", "4"], in: dir)
        #expect(Harness.shape(of: ours) == (try Harness.gollyQuickLife(soup, generations: 41)))
    }

    /// A soup filling the top half of the board, all of it dealt to worker 0: the balancer
    /// moves tiles to worker 1 (the report says which, and the loads before and after),
    /// and the board is the one an unbalanced run gives.
    @Test func aLopsidedLoadIsBalancedAndTheBoardIsTheSame() throws {
        let dir = try Harness.temporaryDirectory()
        // Two million cells of soup: in a debug build a soup tile's compute is about twice
        // an empty one's (loads are the tiles' CPU time, so a busy machine adds nothing).
        let soup = try Harness.soupFile(density: "0.35", seed: 6, rule: "B3/S23:P2048,1024", in: dir)
        // The same cells, in the top half of a 2048² plane.
        let text = try String(contentsOf: soup, encoding: .utf8)
        let half = try write(text.replacingOccurrences(of: "#CXRLE Pos=-1024,-512", with: "#CXRLE Pos=-1024,-1024")
                                 .replacingOccurrences(of: ":P2048,1024", with: ":P2048,2048"), "lopsided.rle", in: dir)
        // Workers from the first generation: a head start in this process could take most of
        // the run before the workers load, leaving the balancer too few rounds to measure.
        let onWorkers = ["--tiles", "4x4", "--halo", "8", "--no-head-start"]
        // Stretches of a quarter second for the balancer to measure.
        let generations = try Harness.generations(300, lasting: 2, ["run", half.path] + onWorkers + ["--no-balance"])
        let (balanced, report) = try run(half, generations: generations, onWorkers + ["--report"], in: dir)
        let (pinned, plain) = try run(half, generations: generations, onWorkers + ["--no-balance"], in: dir)
        #expect(balanced == pinned)
        #expect(!plain.contains("tile move"))
        let moves = report.split(separator: "\n").filter { $0.contains("moved") }
        #expect(!moves.isEmpty, "\(report)")
        #expect(moves.first?.contains("0→1") == true && moves.allSatisfy { $0.contains("load per worker") }, "\(moves)")
    }

    /// SIGTERM to one of two workers mid-run, or `tessera worker --drain PID`: its tiles
    /// move to the other, it leaves with status 0, and the run ends on one worker with
    /// Golly's board.
    @Test(.timeLimit(.minutes(5)), arguments: [false, true])
    func aWorkerAskedToLeaveHandsOffItsTilesAndTheRunGoesOn(byCommand: Bool) throws {
        let dir = try Harness.temporaryDirectory()
        let acorn = try write("x = 7, y = 3, rule = B3/S23:T512,256\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let output = dir.appendingPathComponent("drained.rle")
        let run = try RunningTessera(["run", acorn.path, "--generations", "6000", "--tiles", "4x2", "--workers", "2", "--output", output.path])
        let workers = try run.workerPids(2)
        // Stepping, not starting: a worker that left before the run began would leave it short.
        _ = try Processes.poll(timeout: 60, "the workers to step") { Processes.cpuSeconds(workers[0]) > 0.5 ? true : nil }
        if byCommand {
            // It returns once the worker has gone, so the worker is gone before the run ends.
            let drain = try Harness.tessera(["worker", "--drain", "\(workers[0])"])
            #expect(drain.status == 0, "\(drain.stderr)")
            #expect(drain.stdout.contains("worker \(workers[0]) handed off its tiles and left"), "\(drain.stdout)")
            #expect(!Processes.alive(workers[0]))
        } else {
            kill(workers[0], SIGTERM)
        }
        #expect(run.wait(timeout: 150) == 0, "\(run.errorText)")
        #expect(run.errorText.contains("handed off its tiles and left"), "\(run.errorText)")
        #expect(run.outputText.contains(", 1 worker,"), "\(run.outputText)")
        #expect(!Processes.alive(workers[0]))
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(acorn, generations: 6000)))
    }

    /// `--drain` signals only a tessera worker, and says so in one line otherwise.
    @Test func drainRefusesWhatIsNotAWorker() throws {
        for (pid, problem) in [("\(getpid())", "is not a tessera worker"), ("999999999", "no process 999999999"),
                               ("1", "is not a tessera worker")] {
            let result = try Harness.tessera(["worker", "--drain", pid])
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(problem), "\(result.stderr)")
        }
        let alone = try Harness.tessera(["worker", "--drain", "1", "--coordinator", "tcp://127.0.0.1:9"])
        #expect(alone.status == 2 && alone.stderr.contains("takes no --coordinator"), "\(alone.stderr)")
        #expect(Processes.alive(1))
    }

    /// A third worker started against a running coordinator joins, takes tiles, and the
    /// board is still Golly's.
    @Test(.timeLimit(.minutes(5)))
    func aWorkerThatJoinsMidRunTakesTiles() throws {
        let dir = try Harness.temporaryDirectory()
        let acorn = try write("x = 7, y = 3, rule = B3/S23:T512,256\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let output = dir.appendingPathComponent("joined.rle")
        // Long enough for a worker that joins once the first have stepped 0.5 s.
        let generations = try Harness.generations(6000, lasting: 3, ["run", acorn.path, "--workers", "2", "--tiles", "4x2", "--no-head-start"])
        let coordinator = try RunningTessera(["coordinator", acorn.path, "--workers", "2", "--tiles", "4x2", "--generations", "\(generations)",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path, "--report"])
        let endpoint = try coordinator.workerEndpoint()
        let first = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"]) }
        _ = try Processes.poll(timeout: 60, "the workers to step") { Processes.cpuSeconds(first[0].pid) > 0.5 ? true : nil }
        let late = try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"])
        #expect(coordinator.wait(timeout: 150) == 0, "\(coordinator.errorText)")
        #expect(coordinator.errorText.contains("joins the run"), "\(coordinator.errorText)")
        let report = coordinator.outputText
        #expect(report.contains(", 3 workers,"), "\(report)")
        #expect(report.split(separator: "\n").contains { $0.contains("→2") }, "\(report)")
        for worker in first + [late] { #expect(worker.wait(timeout: 20) == 0) }
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(acorn, generations: generations)))
    }

    /// With a tile for every worker, one that joins could get none by moves: the board is
    /// cut again, a tile per worker, the joiner steps one, and the board is still Golly's.
    @Test(.timeLimit(.minutes(5)))
    func aWorkerThatJoinsWhenEveryTileHasAWorkerGetsOneOfTheBoardCutAgain() throws {
        let dir = try Harness.temporaryDirectory()
        let acorn = try write("x = 7, y = 3, rule = B3/S23:T512,256\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let output = dir.appendingPathComponent("recut.rle")
        // One worker steps 100000 generations in some 1 s (and two, with halos between
        // them, in 10 s): as many as one worker takes 1.5 s over, for a joiner.
        let generations = try Harness.generations(100_000, lasting: 1.5, ["run", acorn.path, "--workers", "1", "--no-head-start"])
        let coordinator = try RunningTessera(["coordinator", acorn.path, "--workers", "1", "--generations", "\(generations)",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path, "--report"])
        let endpoint = try coordinator.workerEndpoint()
        let first = try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"])
        _ = try Processes.poll(timeout: 60, "the worker to step") { Processes.cpuSeconds(first.pid) > 0.3 ? true : nil }
        let late = try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"])
        #expect(coordinator.wait(timeout: 150) == 0, "\(coordinator.errorText)")
        #expect(coordinator.errorText.contains("cut the board again into 2x1 tiles"), "\(coordinator.errorText)")
        let report = coordinator.outputText
        #expect(report.contains(", 2 workers, tiles 1x1, cut again into 2x1"), "\(report)")
        #expect(report.contains("tiles (1,0)"), "the joiner holds a tile: \(report)")
        for worker in [first, late] { #expect(worker.wait(timeout: 20) == 0) }
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(acorn, generations: generations)))
    }

    /// On the unbounded plane the workers hold shards of a sparse map: one that joins
    /// takes a share of a soup patch's tiles once the shards are dealt again between
    /// stretches, and the board is still Golly's. (With --no-balance it would stay idle:
    /// `CoordinatorStateTests`.)
    @Test(.timeLimit(.minutes(5)))
    func aWorkerThatJoinsAnUnboundedRunGetsAShard() throws {
        let dir = try Harness.temporaryDirectory()
        let patch = try Harness.soupPatch(density: "0.35", seed: 11, rule: "B3/S23:T1024,768", in: dir)
        let output = dir.appendingPathComponent("patch-out.rle")
        // One worker steps 150000 generations in some 3.5 s, two in 7 s: time for a joiner.
        let generations = try Harness.generations(150_000, lasting: 3, ["run", patch.path, "--workers", "1", "--no-head-start"])
        let coordinator = try RunningTessera(["coordinator", patch.path, "--workers", "1", "--generations", "\(generations)",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path, "--report"])
        let endpoint = try coordinator.workerEndpoint()
        let first = try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"])
        _ = try Processes.poll(timeout: 60, "the worker to step") { Processes.cpuSeconds(first.pid) > 0.5 ? true : nil }
        let late = try RunningTessera(["worker", "--coordinator", endpoint, "--advertise", "127.0.0.1"])
        #expect(coordinator.wait(timeout: 150) == 0, "\(coordinator.errorText)")
        #expect(coordinator.errorText.contains("joined: dealing the shards again at generation"), "\(coordinator.errorText)")
        let report = coordinator.outputText
        #expect(report.contains("on the unbounded plane B3/S23, 2 workers as a sparse map") && report.contains("its shards dealt again once"),
                "\(report)")
        // The joiner (worker 1) holds tiles of its own.
        #expect(report.split(separator: "\n").contains { $0.contains("worker 1 (") && !$0.contains("a shard of 0 tiles") }, "\(report)")
        for worker in [first, late] { #expect(worker.wait(timeout: 20) == 0) }
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(patch, generations: generations)))
    }
}
