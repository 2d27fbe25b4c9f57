import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Checkpoints on disk: written by the workers, committed by the manifest, read back
/// on resume onto any tiling, bit-exact with bgolly, and passed over when damaged.
@Suite struct CheckpointTests {
    func acorn(in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("acorn.rle")
        try "x = 7, y = 3, rule = B3/S23:T512,256\nbo$3bo$2o2b3o!\n".write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Starts `command` (two workers), kills its coordinator once the checkpoint at
    /// `generation` is committed, and waits for the orphaned workers to leave.
    func killAfterCheckpoint(_ command: [String], at generation: UInt64, in store: URL, waiting: Double) throws {
        let run = try RunningTessera(command)
        let workers = try run.workerPids(2)
        _ = try Processes.poll(timeout: waiting, "a first checkpoint") {
            FileManager.default.fileExists(atPath: Checkpoint.folder(in: store.path, generation: generation) + "/" + Checkpoint.manifestName)
                ? true : nil
        }
        kill(run.pid, SIGKILL)
        _ = run.wait(timeout: 5)
        _ = try Processes.poll(timeout: 20, "the orphaned workers to leave") { workers.allSatisfy { !Processes.alive($0) } ? true : nil }
    }

    func generations(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("generation-") }.sorted()
    }

    @Test func aResumedRunOnAnotherTilingEndsWithGollysBoard() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try acorn(in: dir), store = dir.appendingPathComponent("ck")
        let first = try Harness.tessera(["run", input.path, "--generations", "3000", "--tiles", "4x2",
                                         "--checkpoint", store.path, "--checkpoint-every", "1000"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("3 checkpoints (last at generation 3000"))
        #expect(generations(in: store) == ["generation-00000000000000002000", "generation-00000000000000003000"], "the last two kept")
        // The checkpoint is a Golly pattern too.
        let exported = dir.appendingPathComponent("at3000.rle")
        let export = try Harness.tessera(["export", store.path, exported.path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try Harness.cells(ofPatternFile: exported) == (try Harness.golly(input, generations: 3000)))
        // Resumed on 3x3 tiles and three workers, 1000 more.
        let output = dir.appendingPathComponent("at4000.rle")
        let resumed = try Harness.tessera(["run", "--resume", store.path, "--generations", "1000", "--tiles", "3x3",
                                           "--workers", "3", "--output", output.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("#CXRLE Pos=-256,-128 Gen=4000"))
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 4000)))
    }

    /// A damaged tile file: the newest checkpoint is passed over with a line naming the
    /// file, and the run resumes from the one before.
    @Test func aDamagedCheckpointIsPassedOverForTheOneBefore() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try acorn(in: dir), store = dir.appendingPathComponent("ck")
        let first = try Harness.tessera(["run", input.path, "--generations", "2000", "--checkpoint", store.path,
                                         "--checkpoint-every", "1000"])
        #expect(first.status == 0, "\(first.stderr)")
        let damaged = store.appendingPathComponent("generation-00000000000000002000/tile-1-0.cells")
        let handle = try FileHandle(forWritingTo: damaged)
        try handle.seek(toOffset: 40)
        try handle.write(contentsOf: Data([0xA5]))
        try handle.close()
        let output = dir.appendingPathComponent("out.rle")
        let resumed = try Harness.tessera(["run", "--resume", store.path, "--generations", "500", "--output", output.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("tile-1-0.cells is damaged"), "\(resumed.stderr)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 1500)))
        // With every checkpoint damaged, nothing is resumed, and the line says why.
        try FileManager.default.removeItem(at: store.appendingPathComponent("generation-00000000000000001000/manifest.json"))
        let none = try Harness.tessera(["run", "--resume", store.path, "--generations", "10"])
        #expect(none.status == 2 && none.stderr.contains("no usable checkpoint") && none.stderr.contains("no manifest.json"),
                "\(none.stderr)")
    }

    /// The coordinator killed mid-run: its workers leave by themselves, and the same
    /// command again (as Slurm's requeue runs it) resumes and ends with Golly's board.
    @Test(.timeLimit(.minutes(3)))
    func aKilledRunResumesWithTheSameCommand() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try acorn(in: dir), store = dir.appendingPathComponent("ck")
        let output = dir.appendingPathComponent("out.rle")
        let command = ["run", input.path, "--generations", "6000", "--tiles", "4x2", "--checkpoint", store.path,
                       "--checkpoint-every", "1000", "--resume", store.path, "--output", output.path]
        try killAfterCheckpoint(command, at: 1000, in: store, waiting: 120)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let again = try Harness.tessera(command)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("ck: ") && !again.stdout.contains(" 6000 generations"), "resumed, not restarted: \(again.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 6000)))
    }

    /// On Golly's unbounded plane the workers hold shards, and the coordinator writes
    /// their live parts: the coordinator killed mid-run, the same command resumes from
    /// the newest checkpoint (parts far apart among them), `export` writes it as Golly's
    /// pattern, and the end is bgolly's.
    @Test(.timeLimit(.minutes(5)))
    func anUnboundedRunOnShardsResumesWithTheSameCommand() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupPatch(density: "0.4", seed: 11, rule: "B3/S23:P192,192", in: dir)
        let store = dir.appendingPathComponent("ck"), output = dir.appendingPathComponent("out.rle")
        // Long enough in a debug build (about two seconds) for the kill to come mid-run.
        let command = ["run", input.path, "--generations", "100000", "--workers", "2", "--checkpoint", store.path,
                       "--checkpoint-every", "5000", "--resume", store.path, "--output", output.path]
        try killAfterCheckpoint(command, at: 5000, in: store, waiting: 240)
        // The newest committed one: the kill may have come while one was written.
        let at = try #require(try Checkpoint.committed(in: store.path).first)
        let newest = Checkpoint.folder(in: store.path, generation: at)
        #expect(FileManager.default.fileExists(atPath: newest + "/plane.cells"))
        let exported = dir.appendingPathComponent("newest.rle")
        let export = try Harness.tessera(["export", store.path, exported.path])
        #expect(export.status == 0 && export.stdout.contains("of the unbounded plane"), "\(export.stderr)")
        #expect(try Harness.cells(ofPatternFile: exported) == (try Harness.golly(input, generations: Int(at))), "at \(at)")
        // As plain text too, which spells the live cells' box out as one grid.
        let plain = dir.appendingPathComponent("newest.cells")
        let exportPlain = try Harness.tessera(["export", store.path, plain.path])
        #expect(exportPlain.status == 0, "\(exportPlain.stderr)")
        #expect(Harness.shape(of: try Harness.cells(ofPatternFile: plain)) == Harness.shape(of: try Harness.cells(ofPatternFile: exported)))
        #expect(at < 100_000 && !FileManager.default.fileExists(atPath: output.path))
        let again = try Harness.tessera(command)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("ck: \(100_000 - Int(at)) generations"), "resumed, not restarted: \(again.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 100_000)))
        // A bounded board's command is another run's.
        let other = try Harness.tessera(["run", "--resume", store.path, "--size", "64x64", "--generations", "10"])
        #expect(other.status == 2 && other.stderr.contains("its board is the unbounded plane"), "\(other.stderr)")
    }

    /// A worker lost from a checkpointed run on shards: the run rolls back to the cells
    /// its last checkpoint read (kept in memory), and ends as bgolly's.
    @Test(.timeLimit(.minutes(5)))
    func aLostShardHostRollsBackToItsLastCheckpointsCells() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupPatch(density: "0.4", seed: 11, rule: "B3/S23:P192,192", in: dir)
        let store = dir.appendingPathComponent("ck"), output = dir.appendingPathComponent("out.rle")
        let run = try RunningTessera(["run", input.path, "--generations", "100000", "--workers", "3", "--checkpoint", store.path,
                                      "--checkpoint-every", "5000", "--output", output.path, "--report"])
        let workers = try run.workerPids(3)
        _ = try Processes.poll(timeout: 240, "a first checkpoint") {
            FileManager.default.fileExists(atPath: Checkpoint.folder(in: store.path, generation: 5000) + "/" + Checkpoint.manifestName)
                ? true : nil
        }
        kill(workers[0], SIGKILL)
        #expect(run.wait(timeout: 240) == 0, "\(run.errorText)")
        // The snapshot its checkpoint kept: at a checkpoint's generation, a multiple of 5000.
        let restored = run.errorText.firstMatch(of: /rolled back to the shards' last snapshot at generation (\d+)/)
        #expect(restored.map { Int($0.1)! % 5000 == 0 } == true, "\(run.errorText)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 100_000)))
    }

    /// A bounded grid too big for dense tiles runs as shards, whose checkpoint is their
    /// live parts too: acorn on a 2^20 plane checkpoints, exports and resumes on three
    /// workers as Golly's board.
    @Test func aHugeBoundedGridOnShardsCheckpointsItsLiveParts() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("acorn.rle"), store = dir.appendingPathComponent("ck")
        try "x = 7, y = 3, rule = B3/S23:P1048576,1048576\nbo$3bo$2o2b3o!\n".write(to: input, atomically: true, encoding: .utf8)
        let first = try Harness.tessera(["run", input.path, "--generations", "3000", "--workers", "2", "--checkpoint", store.path,
                                         "--checkpoint-every", "1000"])
        #expect(first.status == 0 && first.stdout.contains("as a sparse map") && first.stdout.contains("3 checkpoints"),
                "\(first.stdout) \(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("generation-00000000000000003000/plane.cells").path))
        let exported = dir.appendingPathComponent("at3000.rle")
        let export = try Harness.tessera(["export", store.path, exported.path])
        #expect(export.status == 0 && export.stdout.contains("of 1048576x1048576 plane"), "\(export.stdout) \(export.stderr)")
        #expect(try Harness.cells(ofPatternFile: exported) == (try Harness.golly(input, generations: 3000)))
        let output = dir.appendingPathComponent("at4000.rle")
        let resumed = try Harness.tessera(["run", "--resume", store.path, "--generations", "1000", "--workers", "3", "--output", output.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.golly(input, generations: 4000)))
    }

    /// By wall time: checkpoints at whatever generation the stop falls on, each one
    /// Golly's board at that generation.
    @Test func checkpointsByWallTimeHoldGollysBoardsAtTheirGenerations() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try acorn(in: dir), store = dir.appendingPathComponent("ck")
        // Long enough for a few stops 0.3 s apart.
        let length = try Harness.generations(3000, lasting: 1, ["run", input.path, "--checkpoint", dir.appendingPathComponent("timing").path,
                                                                 "--checkpoint-every", "0.3s"])
        let run = try Harness.tessera(["run", input.path, "--generations", "\(length)", "--checkpoint", store.path,
                                       "--checkpoint-every", "0.3s"])
        #expect(run.status == 0, "\(run.stderr)")
        let newest = try #require(generations(in: store).last)
        let generation = try #require(Int(newest.dropFirst("generation-".count)))
        let exported = dir.appendingPathComponent("newest.rle")
        #expect(try Harness.tessera(["export", store.path, exported.path]).status == 0)
        #expect(try Harness.cells(ofPatternFile: exported) == (try Harness.golly(input, generations: generation)), "at \(generation)")
    }

    /// A folder holding another run's checkpoints is refused, and they stay: written
    /// beside them, this run's would have been pruned as older, and a lost worker would
    /// have rolled back to the other run's board. Resuming from them is the way on.
    @Test func aFolderOfAnotherRunsCheckpointsIsRefused() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try acorn(in: dir), store = dir.appendingPathComponent("ck")
        let soup = ["run", "--soup", "0.3", "--size", "256x256", "--checkpoint-every", "100", "--checkpoint", store.path]
        #expect(try Harness.tessera(soup + ["--generations", "300"]).status == 0)
        let before = generations(in: store)
        #expect(before.count == 2)
        let other = try Harness.tessera(["run", input.path, "--generations", "100", "--checkpoint", store.path, "--checkpoint-every", "50"])
        #expect(other.status == 2 && other.stderr.split(separator: "\n").count == 1, "\(other.stderr)")
        #expect(other.stderr.contains("already holds checkpoints") && other.stderr.contains("--resume"), "\(other.stderr)")
        #expect(generations(in: store) == before)
        // The same folder given to --resume, spelt differently: the run goes on from there
        // to where the same command would have ended undisturbed.
        let resumed = try Harness.tessera(soup + ["--generations", "400", "--resume", store.path + "/"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(generations(in: store).last == "generation-00000000000000000400")
    }

    /// A manifest altered by one bit (the rule B3678 made B2678) or with a tile moved over
    /// another no longer matches its digest: it is passed over, not resumed into another
    /// board, and the run goes on from the checkpoint before.
    @Test func anAlteredManifestIsPassedOver() throws {
        let dir = try Harness.temporaryDirectory()
        let store = dir.appendingPathComponent("ck")
        let soup = ["run", "--soup", "0.35", "--size", "256x256", "--rule", "B3678/S34678", "--tiles", "1x2"]
        let first = try Harness.tessera(soup + ["--generations", "300", "--checkpoint", store.path, "--checkpoint-every", "100"])
        #expect(first.status == 0, "\(first.stderr)")
        let newest = store.appendingPathComponent("generation-00000000000000000300/manifest.json")
        let text = try String(contentsOf: newest, encoding: .utf8)
        #expect(text.contains("\"rule\" : \"B3678/S34678\""))
        try text.replacingOccurrences(of: "B3678", with: "B2678").write(to: newest, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.rle"), undisturbed = dir.appendingPathComponent("undisturbed.rle")
        let resumed = try Harness.tessera(soup + ["--generations", "350", "--resume", store.path, "--output", output.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("generation-00000000000000000300/manifest.json is damaged or was edited"), "\(resumed.stderr)")
        #expect(try Harness.tessera(soup + ["--generations", "350", "--output", undisturbed.path]).status == 0)
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.cells(ofPatternFile: undisturbed)))
        // The second tile laid over the first: with no checkpoint left, nothing runs.
        let older = store.appendingPathComponent("generation-00000000000000000200/manifest.json")
        let tiles = try String(contentsOf: older, encoding: .utf8)
        #expect(tiles.contains("\"y\" : 128"))
        try tiles.replacingOccurrences(of: "\"y\" : 128", with: "\"y\" : 100").write(to: older, atomically: true, encoding: .utf8)
        let none = try Harness.tessera(["run", "--resume", store.path, "--generations", "10", "--output", output.path + ".2"])
        #expect(none.status == 2 && none.stderr.contains("no usable checkpoint")
                && none.stderr.contains("generation-00000000000000000200/manifest.json is damaged or was edited"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path + ".2"))
    }

    /// A command that names its pattern or soup resumes only that run's checkpoints: one
    /// of another rule or start is refused, naming what differs, and nothing is written.
    @Test func aCheckpointOfAnotherRunIsRefused() throws {
        let dir = try Harness.temporaryDirectory()
        let store = dir.appendingPathComponent("ck"), output = dir.appendingPathComponent("out.rle")
        let soup = ["run", "--soup", "0.35", "--size", "256x256", "--rule", "B3678/S34678"]
        #expect(try Harness.tessera(soup + ["--generations", "100", "--checkpoint", store.path, "--checkpoint-every", "50"]).status == 0)
        for (command, differences) in [
            (["run", "acorn", "--size", "256x256"], ["its rule is B3678/S34678, this command's B3/S23", "this command from acorn"]),
            (["run", "--soup", "0.35", "--size", "256x256"], ["its rule is B3678/S34678, this command's B3/S23"]),
            (soup + ["--seed", "2"], ["started from a soup of density 0.35 and seed 1, this command from a soup of density 0.35 and seed 2"]),
            (["run", "--soup", "0.35", "--size", "512x256", "--rule", "B3678/S34678"], ["its board is 256x256 torus, this command's 512x256 torus"]),
            (["run", "--rule", "B3/S23"], ["its rule is B3678/S34678, this command's B3/S23"]),
        ] as [([String], [String])] {
            let resumed = try Harness.tessera(command + ["--generations", "500", "--resume", store.path, "--output", output.path])
            #expect(resumed.status == 2 && resumed.stderr.split(separator: "\n").count == 1, "\(command): \(resumed.stderr)")
            #expect(resumed.stderr.contains("is of another run"), "\(resumed.stderr)")
            for difference in differences { #expect(resumed.stderr.contains(difference), "\(resumed.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    /// A soup's run killed and run again by the same command (Slurm's requeue) ends where
    /// the undisturbed run ends, not `--generations` past its checkpoint.
    @Test(.timeLimit(.minutes(3)))
    func aRequeuedSoupEndsWhereTheUndisturbedRunEnds() throws {
        let dir = try Harness.temporaryDirectory()
        let store = dir.appendingPathComponent("ck"), output = dir.appendingPathComponent("out.rle")
        let soup = ["run", "--soup", "0.35", "--size", "256x256", "--rule", "B3678/S34678", "--generations", "3000"]
        let command = soup + ["--checkpoint", store.path, "--checkpoint-every", "200", "--resume", store.path, "--output", output.path]
        let run = try RunningTessera(command)
        _ = try run.workerPids(2)
        _ = try Processes.poll(timeout: 120, "a first checkpoint") {
            FileManager.default.fileExists(atPath: store.appendingPathComponent("generation-00000000000000000200/manifest.json").path)
                ? true : nil
        }
        kill(run.pid, SIGKILL)
        _ = run.wait(timeout: 5)
        let again = try Harness.tessera(command)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasPrefix("ck: ") && !again.stdout.contains(" 3000 generations"), "resumed, not restarted: \(again.stdout)")
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("#CXRLE Pos=-128,-128 Gen=3000\n"))
        let undisturbed = dir.appendingPathComponent("undisturbed.rle")
        #expect(try Harness.tessera(soup + ["--output", undisturbed.path]).status == 0)
        #expect(try Harness.cells(ofPatternFile: output) == (try Harness.cells(ofPatternFile: undisturbed)))
    }

    @Test(arguments: [
        (["run", "glider", "--size", "64x64", "--checkpoint-every", "10"], "without --checkpoint"),
        (["run", "glider", "--size", "64x64", "--checkpoint", "/tmp/tessera-ck-unused", "--workers", "0"], "worker processes"),
        (["run", "glider", "--checkpoint", "/tmp/tessera-ck-unused", "--frames", "/tmp/tessera-ck-frames-unused"], "batch runs"),
        (["run", "glider", "--size", "64x64", "--checkpoint-every", "0", "--checkpoint", "/tmp/tessera-ck-unused"], "no interval"),
        (["run", "glider", "--size", "64x64", "--checkpoint-every", "soon", "--checkpoint", "/tmp/tessera-ck-unused"], "neither a number"),
    ])
    func checkpointFlagsThatCannotWorkSaySo(arguments: [String], problem: String) throws {
        let result = try Harness.tessera(arguments)
        #expect(result.status == 2 && result.stderr.contains(problem) && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
    }
}
