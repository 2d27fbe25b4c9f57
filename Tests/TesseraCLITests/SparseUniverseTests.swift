import Foundation
import Testing
import TesseraCore

/// The unbounded plane's memory follows its live cells: a file that declares a box of
/// 2^30 cells a side, or strings cells out over a million of them, is read as its live
/// blocks and stepped as tiles where life is, in this process or as shards on worker
/// processes, and gives bgolly's board.
///
/// Each test runs several whole processes (workers among them): alone they take seconds,
/// but in the whole suite on two vCPUs some went past two minutes, so the limits of five
/// are there to catch a hang, not to time them.
@Suite struct SparseUniverseTests {
    /// Peak resident memory of `tessera` with `arguments`, in KiB, from GNU time.
    func peakKiB(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String, kib: Int) {
        let time = URL(fileURLWithPath: "/usr/bin/time")
        guard FileManager.default.isExecutableFile(atPath: time.path) else {
            throw TesseraError("GNU time is not installed", fix: "apt-get install time (deploy/install-deps.sh installs it)")
        }
        let result = try Harness.run(time, ["-f", "peak %M", Harness.tessera.path] + arguments)
        let line = result.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") } ?? ""
        return (result.status, result.stdout, result.stderr, Int(line.dropFirst(5)) ?? .max)
    }

    /// Gliders in two far corners of a 2^30 box, and 350 blinkers 3000 cells apart on a
    /// diagonal a million cells long: one window around the diagonal would be 10^12
    /// cells; the tiles around what lives are a few hundred kilobytes.
    @Test(.timeLimit(.minutes(5)))
    func aHugeSparseFileRunsInTheMemoryOfItsCells() throws {
        let side = 1 << 30
        var rows: [String] = ["bo", "2bo", "3o"]
        var y = 2
        for i in 0..<350 {
            let row = 1000 + 3000 * i
            rows.append("\(row - y)$\(row)b3o")
            y = row
        }
        let text = "x = \(side), y = \(side), rule = B3/S23\n" + rows[0] + "$" + rows[1] + "$" + rows[2]
            + rows[3...].joined() + "\(side - 3 - y)$\(side - 2)bo$\(side - 1)bo$\(side - 3)b3o!\n"
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("huge.rle")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let golly = try Harness.golly(input, generations: 301)
        #expect(golly.count == 10 + 350 * 3)
        for layout in [["--algorithm", "tiles", "--workers", "0"], [], ["--workers", "2"]] {
            let output = dir.appendingPathComponent("out\(layout.count).mc")
            let run = try peakKiB(["run", input.path, "--generations", "301", "--output", output.path] + layout)
            #expect(run.status == 0, "\(layout): \(run.stderr)")
            #expect(try Harness.cells(ofPatternFile: output) == golly, "\(layout)")
            // The process itself (the Swift runtime and libraries) is about 16 MB.
            #expect(run.kib < 48 << 10, "\(layout): peak \(run.kib) KiB")
        }
    }

    /// A dead-edge plane 2^20 cells a side (2^40 cells, 128 GiB dense), with a glider
    /// headed for each corner and a spaceship along an edge: by default it runs in this
    /// process as a sparse map of tiles, in the memory of what lives, and ends as
    /// bgolly's board (each glider a block in its corner, or gone).
    @Test(.timeLimit(.minutes(5)))
    func aHugeDeadEdgePlaneRunsInTheMemoryOfItsCells() throws {
        let side = 1 << 20, half = side / 2
        let text = """
            #CXRLE Pos=\(-half),\(-half)
            x = \(side), y = \(side), rule = B3/S23:P\(side),\(side)
            40$40b3o\(side - 86)b3o$40bo\(side - 84)bo$41bo\(side - 86)bo$\(side / 2)$\(side / 2)bo2bo$\(side / 2 - 1)bo$\(side / 2 - 1)bo3bo$\(side / 2 - 1)b4o\(side / 2 - 110)$
            40bo\(side - 86)bo$40bo\(side - 84)bo$40b3o\(side - 86)b3o!

            """
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("edges.rle")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let golly = try Harness.golly(input, generations: 4000)
        #expect(!golly.isEmpty)
        let output = dir.appendingPathComponent("out.mc")
        let run = try peakKiB(["run", input.path, "--generations", "4000", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Harness.cells(ofPatternFile: output) == golly)
        #expect(run.kib < 48 << 10, "peak \(run.kib) KiB")
        // On workers, dense tiles would hold every cell: shards of a sparse map hold
        // what lives (so few tiles stay on one shard; the others trade empty bands).
        let sharded = dir.appendingPathComponent("sharded.mc")
        let workers = try peakKiB(["run", input.path, "--generations", "4000", "--workers", "3", "--output", sharded.path])
        #expect(workers.status == 0, "\(workers.stderr)")
        #expect(workers.stdout.contains("3 workers as a sparse map"), "\(workers.stdout)")
        #expect(try Harness.cells(ofPatternFile: sharded) == golly)
        #expect(workers.kib < 48 << 10, "peak \(workers.kib) KiB")
    }

    /// A torus of whole tiles steps as a sparse map too: a glider gun whose gliders
    /// come round the torus and wreck it, against bgolly.
    @Test func aGunOnATorusOfWholeTilesMatchesGolly() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("gun.rle")
        try """
            x = 36, y = 9, rule = B3/S23:T512,256
            24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!

            """.write(to: input, atomically: true, encoding: .utf8)
        let golly = try Harness.golly(input, generations: 3000)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", input.path, "--generations", "3000", "--workers", "0", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Harness.cells(ofPatternFile: output) == golly)
    }

    /// A soup patch of about 200 tiles on the unbounded plane, cut into three shards on
    /// three worker processes, which trade bands every stretch: bgolly's board, and
    /// the output written from the shards' parts.
    @Test(.timeLimit(.minutes(5)))
    func aSoupOnTheUnboundedPlaneRunsAsShardsOnWorkers() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupPatch(density: "0.35", seed: 11, rule: "B3/S23:T1024,768", in: dir)
        let golly = try Harness.golly(input, generations: 300)
        let output = dir.appendingPathComponent("out.rle")
        let run = try peakKiB(["run", input.path, "--generations", "300", "--workers", "3", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("3 workers as a sparse map") && run.stdout.contains("population \(golly.count),"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == golly)
        #expect(run.kib < 64 << 10, "peak \(run.kib) KiB")
    }

    /// B0 rules on shards: with S8 the cells are stored inverted, without it inverted at
    /// odd generations (as Golly's QuickLife keeps them), and the bands between shards
    /// are cells as stored, so every shard must step its ghosts by the same parity.
    @Test(.timeLimit(.minutes(5)), arguments: ["B0134/S2", "B0123478/S01234678"])
    func b0SoupsRunAsShardsOnWorkers(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try Harness.soupPatch(density: "0.3", seed: 4, rule: "\(rule):T1024,768", in: dir)
        let alternating = try Rule(parsing: rule).emulation == .alternating
        for generations in [40, 41] {
            let output = dir.appendingPathComponent("out\(generations).rle")
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--workers", "3", "--halo", "6",
                                           "--output", output.path])
            #expect(run.status == 0 && run.stdout.contains("3 workers as a sparse map"), "\(run.stdout) \(run.stderr)")
            let ours = try Harness.cells(ofPatternFile: output)
            if alternating {
                #expect(Harness.shape(of: ours) == (try Harness.gollyQuickLife(input, generations: generations)), "\(generations)")
            } else {
                #expect(ours == (try Harness.golly(input, generations: generations)), "\(generations)")
            }
        }
    }

    /// A torus 2^20 cells a side, its pattern given without a place: Golly centres it,
    /// and so must the shards that hold it on workers (dense tiles would need 128 GiB);
    /// a run of no generations counts its cells too.
    @Test(.timeLimit(.minutes(5)))
    func aHugeTorusOnShardsHasItsPatternWhereGollyPutsIt() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("torus.rle")
        try "x = 40, y = 3, rule = B3/S23:T1048576,1048576\nbo35b3o$2bo$3o!\n".write(to: input, atomically: true, encoding: .utf8)
        for generations in [0, 200] {
            let golly = try Harness.golly(input, generations: generations)
            let output = dir.appendingPathComponent("out\(generations).mc")
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--workers", "2", "--output", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("2 workers as a sparse map") && run.stdout.contains("population \(golly.count),"), "\(run.stdout)")
            #expect(try Harness.cells(ofPatternFile: output) == golly)
        }
    }
}
