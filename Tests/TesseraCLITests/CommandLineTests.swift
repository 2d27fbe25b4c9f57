import Foundation
import Testing
import TesseraCluster
import TesseraCore

/// The examples and the failure modes a new user meets first.
@Suite struct CommandLineTests {
    @Test func patternsListsEveryBuiltIn() throws {
        let result = try Harness.tessera(["patterns"])
        #expect(result.status == 0)
        for name in ["blinker", "beacon", "octagon", "glider", "lwss", "pulsar", "gosper", "rpentomino", "acorn", "diehard"] {
            #expect(result.stdout.contains(name))
        }
        #expect(result.stdout.contains("36x9"))
    }

    @Test func runPrintsASummary() throws {
        let result = try Harness.tessera(["run", "glider", "--size", "64x64", "--generations", "40", "--tiles", "2x2"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("40 generations"))
        #expect(result.stdout.contains("population 5"))
        #expect(result.stdout.contains("cell-updates/s"))
        #expect(!result.stdout.contains("\r") && !result.stdout.contains("ETA"), "no progress line where stdout is no terminal")
    }

    @Test func soupIsTheSameForEveryTiling() throws {
        let dir = try Harness.temporaryDirectory()
        var boards: [String] = []
        for tiles in ["1x1", "3x2", "5x5"] {
            let output = dir.appendingPathComponent("soup-\(tiles).rle")
            let result = try Harness.tessera(["run", "--soup", "0.3", "--seed", "5", "--size", "100x80",
                                              "--generations", "0", "--tiles", tiles, "--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            boards.append(try String(contentsOf: output, encoding: .utf8))
        }
        #expect(Set(boards).count == 1)
    }

    @Test func cellsOutputRoundTrips() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("board.cells")
        let result = try Harness.tessera(["run", "pulsar", "--size", "20x20", "--generations", "1", "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.split(separator: "\n").filter { !$0.hasPrefix("!") }.count == 20)
        #expect(text.filter { $0 == "O" }.count == 56)  // the pulsar's second phase
    }

    @Test func generationCountCarriesOverFromTheFile() throws {
        let dir = try Harness.temporaryDirectory()
        let first = dir.appendingPathComponent("a.rle"), second = dir.appendingPathComponent("b.rle")
        _ = try Harness.tessera(["run", "glider", "--size", "32x32", "--generations", "10", "--output", first.path])
        let result = try Harness.tessera(["run", first.path, "--generations", "5", "--output", second.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: second, encoding: .utf8).hasPrefix("#CXRLE Pos=-16,-16 Gen=15\n"))
    }

    static let badInputs: [(name: String, file: String?, arguments: [String], problem: String)] = [
        ("missing file", nil, ["run", "no/such/file.rle"], "no file or built-in pattern"),
        ("unknown pattern", nil, ["run", "glidr"], "tessera patterns"),
        ("malformed rule", nil, ["run", "glider", "--rule", "B9/S2"], "unknown rule"),
        ("B0 rule under HashLife", nil, ["run", "glider", "--rule", "B0/S1", "--algorithm", "hashlife"], "B0 and without S8"),
        ("Generations on workers on the unbounded plane", nil, ["run", "glider", "--rule", "345/3/6", "--workers", "2"],
         "runs on worker processes on a torus or a plane"),
        ("Generations checkpointed", nil, ["run", "--soup", "0.3", "--rule", "345/3/6", "--checkpoint", "/tmp/tessera-ck-unused"],
         "runs in this process"),
        ("Larger than Life past range 500", nil, ["run", "--soup", "0.3", "--rule", "R501,C0,M1,S1..1,B1..1,NM"], "too big"),
        ("zero size", nil, ["run", "glider", "--size", "0x10"], "at least 1"),
        ("bad size", nil, ["run", "glider", "--size", "big"], "WIDTHxHEIGHT"),
        ("too many tiles", nil, ["run", "glider", "--size", "8x8", "--tiles", "9x1"], "more tiles"),
        ("halo too deep", nil, ["run", "glider", "--size", "8x8", "--tiles", "2x2", "--halo", "5"], "halo depth"),
        ("workers without tiles", nil, ["run", "glider", "--size", "8x8", "--tiles", "2x1", "--workers", "3"], "fewer workers"),
        ("board too big", nil, ["run", "--soup", "0.3", "--size", "4000000x4000000"], "MiB"),
        ("pattern too big", nil, ["run", "gosper", "--size", "20x20"], "larger --size"),
        ("unknown topology", nil, ["run", "glider", "--topology", "sphere"], "'torus', 'plane' or 'infinite'"),
        ("bad RLE count", "x = 3, y = 1\n0o!", ["run", "@"], "run count 0"),
        ("bad RLE char", "x = 3, y = 1\n3z!", ["run", "@"], "unexpected character"),
        ("RLE without end", "x = 3, y = 1\n3o", ["run", "@"], "without '!'"),
        ("RLE lying header", "x = 2, y = 1\n3o!", ["run", "@"], "declared size"),
        ("nothing to run", nil, ["run"], "--soup"),
        ("bad flag", nil, ["run", "glider", "--generations", "many"], "generations"),
        ("bad output format", nil, ["run", "glider", "--output", "@.png"], "*.rle"),
        ("output folder missing", nil, ["run", "glider", "--output", "no/such/dir/out.rle"], "does not exist"),
        // Read as the values they are, not as flags ("Missing value for '--generations'").
        ("negative generations", nil, ["run", "glider", "--generations", "-5"], "'-5' is invalid for '--generations"),
        ("negative halo", nil, ["run", "glider", "--halo", "-3"], "below 1"),
    ]

    /// A reader's blocks are counted with what each holds besides its cells: a row of
    /// 2^26 cells is 2^20 blocks one row high, 8 MiB of cells and some 130 MiB in all,
    /// refused under a 64 MiB limit (its cells alone were let through).
    @Test func aLongRowsBlocksAreCountedWhole() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("row.rle")
        try "x = 67108864, y = 1\n67108864o!\n".write(to: input, atomically: true, encoding: .utf8)
        let run = try Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["TESSERA_MEMORY_LIMIT_MB=64", Harness.tessera.path, "run", input.path, "--generations", "1"])
        #expect(run.status == 2 && run.stderr.contains("MiB but this machine allows 64 MiB"), "\(run.stderr)")
    }

    @Test(arguments: badInputs.indices)
    func badInputFailsCleanly(index: Int) throws {
        let bad = Self.badInputs[index]
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("input.rle")
        if let file = bad.file { try file.write(to: input, atomically: true, encoding: .utf8) }
        let output = dir.appendingPathComponent("out.rle")
        var arguments = bad.arguments.map { $0 == "@" ? input.path : $0.replacingOccurrences(of: "@", with: dir.path + "/x") }
        if !arguments.contains("--output") { arguments += ["--output", output.path] }
        let result = try Harness.tessera(arguments, in: dir)
        #expect(result.status == 2, "\(bad.name): status \(result.status)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(bad.name): \(result.stderr)")
        #expect(result.stderr.contains(bad.problem), "\(bad.name): \(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != "input.rle" }
        #expect(left.isEmpty, "\(bad.name) left \(left)")
    }

    /// A disk that fills while the output is written: one line in the system's words
    /// and the fix, status 2, and no half-written file or temporary left behind. (A
    /// 16 KiB tmpfs, so root only, as the network-namespace tests are.)
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskFailsCleanly() throws {
        let dir = try Harness.temporaryDirectory().appendingPathComponent("small")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let mount = try Harness.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=16k", "tmpfs", dir.path])
        try #require(mount.status == 0, "cannot mount a tmpfs: \(mount.stderr)")
        defer { _ = try? Harness.run(URL(fileURLWithPath: "/bin/umount"), [dir.path]) }
        for workers in ["0", "2"] {
            let result = try Harness.tessera(["run", "--soup", "0.35", "--size", "512x512", "--generations", "10",
                                              "--workers", workers, "--output", dir.appendingPathComponent("out.rle").path])
            #expect(result.status == 2, "\(workers) workers: status \(result.status)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(workers) workers: \(result.stderr)")
            #expect(result.stderr.contains("No space left on device") && result.stderr.contains("free disk space"),
                    "\(workers) workers: \(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }
}

/// Every example configuration in configs/ runs as documented.
@Suite struct ConfigTests {
    @Test func runConfigsWork() throws {
        let acorn = try Harness.tessera(["run", "--config", Harness.packageRoot.appendingPathComponent("configs/acorn.toml").path,
                                         "--generations", "100"])
        #expect(acorn.status == 0, "\(acorn.stderr)")
        #expect(acorn.stdout.contains("acorn: 100 generations on 1024x1024 torus B3/S23, 2 workers"), "\(acorn.stdout)")
        let soup = try Harness.tessera(["run", "--config", Harness.packageRoot.appendingPathComponent("configs/soup-8192.toml").path,
                                        "--size", "512x512", "--generations", "10", "--workers", "1"])
        #expect(soup.status == 0, "\(soup.stderr)")
        #expect(soup.stdout.contains("soup: 10 generations on 512x512 torus") && soup.stdout.contains("  worker 0"))
    }

    @Test func coordinatorConfigWorks() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("gun.rle")
        let coordinator = try RunningTessera([
            "coordinator", "--config", Harness.packageRoot.appendingPathComponent("configs/coordinator.toml").path,
            "--listen", "tcp://127.0.0.1:*", "--generations", "90", "--output", output.path,
        ])
        let endpoint = try coordinator.workerEndpoint()
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint]) }
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in workers { _ = worker.wait(timeout: 10) }
        #expect(coordinator.outputText.contains("gosper: 90 generations on 2048x2048 plane"))
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix("#CXRLE Pos=-1024,-1024 Gen=90\n"))
    }

    @Test(arguments: [
        ("size = 512x512\n", "not a string, number or boolean"),
        ("sise = \"512x512\"\n", "unknown key 'sise'"),
        ("[run]\n", "tables are not used"),
        ("generations = \"many\"\n", "not a valid"),
        ("pattern = \"acorn\n", "unterminated string"),
        ("head-start = 3\n", "neither true nor false"),
        ("algorithm = \"quick\"\n", "not an algorithm"),
    ])
    func badConfigFailsCleanly(text: String, problem: String) throws {
        let dir = try Harness.temporaryDirectory()
        let config = dir.appendingPathComponent("bad.toml")
        try text.write(to: config, atomically: true, encoding: .utf8)
        let result = try Harness.tessera(["run", "--config", config.path, "glider"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(problem), "\(result.stderr)")
    }

    @Test func flagsOverrideTheConfig() throws {
        let dir = try Harness.temporaryDirectory()
        let config = dir.appendingPathComponent("c.toml")
        try "pattern = \"blinker\"\nsize = \"16x16\"\ngenerations = 7  # odd: the blinker is vertical\nworkers = 0\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let result = try Harness.tessera(["run", "--config", config.path, "--size", "20x20"])
        #expect(result.stdout.contains("blinker: 7 generations on 20x20 torus"), "\(result.stdout)")
    }

    /// `head-start = false` in a config keeps every generation on the workers, as
    /// `--no-head-start` does; `--head-start` on the command line wins over it.
    @Test func aConfigTurnsTheHeadStartOff() throws {
        let dir = try Harness.temporaryDirectory()
        let config = dir.appendingPathComponent("c.toml")
        try "pattern = \"blinker\"\nsize = \"1024x1024\"\ntopology = \"plane\"\ngenerations = 100\nhead-start = false\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let off = try Harness.tessera(["run", "--config", config.path])
        #expect(off.status == 0 && off.stdout.contains(" worker") && !off.stdout.contains("in process"), "\(off.stdout)")
        let on = try Harness.tessera(["run", "--config", config.path, "--head-start"])
        #expect(on.status == 0 && on.stdout.contains("in process (never busy enough"), "\(on.stdout)")
    }

    /// `algorithm = "tiles"` in a config keeps HashLife out of an unbounded run;
    /// `--algorithm hashlife` on the command line wins over it.
    @Test func aConfigChoosesTheAlgorithm() throws {
        let dir = try Harness.temporaryDirectory()
        let config = dir.appendingPathComponent("c.toml")
        try "pattern = \"gosper\"\ngenerations = 300\nalgorithm = \"tiles\"\n".write(to: config, atomically: true, encoding: .utf8)
        let tiles = try Harness.tessera(["run", "--config", config.path])
        #expect(tiles.status == 0 && tiles.stdout.contains("unbounded plane") && !tiles.stdout.contains("HashLife"), "\(tiles.stdout)")
        let hashLife = try Harness.tessera(["run", "--config", config.path, "--algorithm", "hashlife"])
        #expect(hashLife.status == 0 && hashLife.stdout.contains("in process by HashLife"), "\(hashLife.stdout)")
    }
}

@Suite struct ScalingBenchTests {
    @Test(arguments: ["strong", "weak"])
    func sweepWritesCSVJSONAndSVG(mode: String) throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["bench", "scaling", "--mode", mode, "--workers", "1,2", "--size", "128",
                                          "--generations", "40", "--halo", "2,8", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let csv = try String(contentsOf: dir.appendingPathComponent("results.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 5)
        #expect(csv[0].hasPrefix("mode,workers,halo,width_cells,height_cells"))
        #expect(csv[0].contains("cell_updates_per_s_median") && csv[0].contains("bytes_per_generation"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("results.json")))
        let points = try #require(json as? [[String: Any]])
        #expect(points.count == 4)
        for point in points where point["workers"] as? Int == 1 {
            #expect(point["speedup"] as? Double == 1 && point["efficiency"] as? Double == 1)
        }
        let heights = Set(points.map { "\($0["workers"] ?? ""):\($0["height_cells"] ?? "")" })
        #expect(heights == (mode == "weak" ? ["1:128", "2:256"] : ["1:128", "2:128"]))
        let svg = try String(contentsOf: dir.appendingPathComponent("scaling.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("polyline") && svg.contains("ideal"))
        #expect(result.stdout.contains("speed-up") && result.stdout.contains("wrote "))
    }

    /// Default halos differ between tilings; the speed-up must still be against the 1-worker point.
    @Test func defaultHaloSweepRelatesToOneWorker() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["bench", "scaling", "--workers", "1,2", "--size", "256", "--generations", "20",
                                          "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("results.json")))
        let points = try #require(json as? [[String: Any]]).sorted { ($0["workers"] as! Int) < ($1["workers"] as! Int) }
        try #require(points.count == 2)
        #expect(points[0]["halo"] as? Int != points[1]["halo"] as? Int)
        let rates = points.map { $0["cell_updates_per_s_median"] as! Double }
        let speedup = try #require(points[1]["speedup"] as? Double)
        #expect(abs(speedup - rates[1] / rates[0]) < 1e-9 * speedup)
    }

    /// `--ceiling` runs the 2-worker point's two tiles as independent one-worker runs at
    /// once, and relates the cluster's rate to their sum.
    @Test func ceilingRelatesTheClusterToIndependentRuns() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["bench", "scaling", "--workers", "1,2", "--size", "256", "--generations", "40",
                                          "--ceiling", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("results.json")))
        let points = try #require(json as? [[String: Any]]).sorted { ($0["workers"] as! Int) < ($1["workers"] as! Int) }
        try #require(points.count == 2)
        #expect(points[0]["ceiling_cell_updates_per_s"] == nil)
        let ceiling = try #require(points[1]["ceiling_cell_updates_per_s"] as? Double)
        let share = try #require(points[1]["share_of_ceiling"] as? Double)
        #expect(ceiling > 0 && abs(share - (points[1]["cell_updates_per_s_median"] as! Double) / ceiling) < 1e-9)
        #expect(result.stdout.contains("of ceiling"))
        let hosts = dir.appendingPathComponent("hosts")
        try "elsewhere\n".write(to: hosts, atomically: true, encoding: .utf8)
        let refused = try Harness.tessera(["bench", "scaling", "--ceiling", "--hosts", hosts.path, "--out", dir.path + "/no"])
        #expect(refused.status == 2 && refused.stderr.contains("--ceiling"), "\(refused.stderr)")
    }

    /// `--hosts` starts each worker through the launch command, dealing workers over the hosts.
    @Test func sweepOnHostsUsesTheLaunchCommand() throws {
        let dir = try Harness.temporaryDirectory()
        let hosts = dir.appendingPathComponent("hosts")
        try "# this machine, twice\n127.0.0.1\nlocalhost   # again\n".write(to: hosts, atomically: true, encoding: .utf8)
        let result = try Harness.tessera(["bench", "scaling", "--workers", "1,2", "--size", "128", "--generations", "10",
                                          "--hosts", hosts.path, "--launch", "touch \(dir.path)/{host}.launched &&",
                                          "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        for host in ["127.0.0.1", "localhost"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("\(host).launched").path))
        }
        try "node1\nrm -rf /\n".write(to: hosts, atomically: true, encoding: .utf8)
        let bad = try Harness.tessera(["bench", "scaling", "--hosts", hosts.path, "--out", dir.path])
        #expect(bad.status == 2 && bad.stderr.contains("line 2"), "\(bad.stderr)")
    }

    @Test func badSweepFailsBeforeRunning() throws {
        let dir = try Harness.temporaryDirectory()
        for bad in [["--workers", "1,zero"], ["--halo", "0"], ["--size", "4", "--workers", "32"]] {
            let result = try Harness.tessera(["bench", "scaling", "--out", dir.path] + bad)
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1, "\(bad): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("results.csv").path))
        // A run that fails leaves no folder behind.
        let hosts = dir.appendingPathComponent("hosts")
        try "somewhere\n".write(to: hosts, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("never")
        let failed = try Harness.tessera(["bench", "scaling", "--workers", "1", "--size", "64", "--hosts", hosts.path,
                                          "--launch", "false", "--listen", "tcp://127.0.0.1:*", "--out", out.path])
        #expect(failed.status == 2 && failed.stderr.contains("launched on somewhere"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}

@Suite struct WorkloadsBenchTests {
    /// The whole suite, shrunk: every workload runs, ends with bgolly's population, and
    /// lands in both files.
    @Test func suiteRunsBesideBgollyAndWritesCSVAndJSON() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["bench", "workloads", "--scale", "0.05", "--workers", "2", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try Harness.tessera(["bench", "workloads", "--list"]).stdout.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
        #expect(names.count >= 10 && names.contains("acorn-64k") && names.contains("spaceship-fleet"))
        #expect(names.contains("acorn-unbounded") && names.contains("gun-unbounded"))
        let csv = try String(contentsOf: dir.appendingPathComponent("workloads.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == names.count + 1)
        #expect(csv[0].hasPrefix("workload,board,generations,workers,tessera_s"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("workloads.json")))
        let rows = try #require(json as? [[String: Any]])
        #expect(rows.map { $0["workload"] as? String } == names)
        for row in rows {
            #expect(row["same_as_bgolly"] as? Bool == true, "\(row)")
            #expect(row["workers"] as? Int == 2 && (row["bgolly_quicklife_s"] as? Double ?? 0) > 0, "\(row)")
            // The unbounded plane has no cell count to rate, and says which plane it is.
            let unbounded = (row["workload"] as? String ?? "").hasSuffix("-unbounded")
            #expect((row["effective_cell_updates_per_s"] == nil) == unbounded, "\(row)")
            #expect((row["board"] as? String == "unbounded plane") == unbounded, "\(row)")
        }
        #expect(!result.stdout.contains("DIFFERS") && result.stdout.contains("vs bgolly"))
    }

    @Test func badChoicesFailBeforeRunning() throws {
        let dir = try Harness.temporaryDirectory()
        for bad in [["--only", "acorn,nope"], ["--scale", "0"], ["--scale", "2"], ["--repeat", "0"], ["--workers", "0"]] {
            let result = try Harness.tessera(["bench", "workloads", "--out", dir.path] + bad)
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1, "\(bad): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("workloads.csv").path))
    }
}

/// What a hostile probe of the command line found, each a one-line error with exit 2 now.
@Suite struct CommandLineDefenceTests {
    func expectOneLineError(_ result: Harness.Result, _ problem: String, _ comment: String = "") {
        #expect(result.status == 2, "\(comment): status \(result.status)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(comment): \(result.stderr)")
        #expect(result.stderr.contains(problem), "\(comment): \(result.stderr)")
    }

    /// Before: SIGILL on nan, inf or 1e300, and negative values taken quietly.
    @Test(arguments: ["nan", "inf", "1e300", "-1", "0", "soon"])
    func durationsMustBeRealNumbersOfSeconds(value: String) throws {
        for flag in ["connect-timeout", "silence"] {
            let run = try Harness.tessera(["run", "glider", "--\(flag)=\(value)", "--generations", "1"])
            expectOneLineError(run, "is not a number of seconds", "run --\(flag)=\(value)")
        }
        let worker = try Harness.tessera(["worker", "--coordinator", "tcp://127.0.0.1:9", "--silence=\(value)"])
        expectOneLineError(worker, "is not a number of seconds", "worker --silence=\(value)")
    }

    /// Before: `#CXRLE Gen=` near 2^64 plus --generations crashed on overflow.
    @Test(arguments: ["0", "2"])
    func generationsPastTheLastOneAreRefused(workers: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("late.rle")
        try "#CXRLE Gen=18446744073709551610\nx = 3, y = 1, rule = B3/S23\n3o!\n".write(to: input, atomically: true, encoding: .utf8)
        let result = try Harness.tessera(["run", input.path, "--generations", "100", "--workers", workers, "--size", "16x16"])
        expectOneLineError(result, "past the last generation")
    }

    /// Before: "RLE has no header line" for anything that was not RLE.
    @Test(arguments: [("x.mc", Array("[M2] (golly 3.3)\n#R B3/S23\n$$$$$$..*$\n4 0 0 0 2\n".utf8), "not an earlier node"),
                      ("x.rle.gz", [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3], "gzip data ends early"),
                      ("x.zip", Array("PK\u{03}\u{04}rest".utf8), "zip-compressed")])
    func unsupportedFormatsAreNamed(name: String, bytes: [UInt8], problem: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent(name)
        try Data(bytes).write(to: input)
        expectOneLineError(try Harness.tessera(["run", input.path]), problem)
    }

    @Test func anAddressInUseSaysWhatToDo() throws {
        let first = try RunningTessera(["coordinator", "glider", "--workers", "1", "--listen", "tcp://127.0.0.1:*"])
        let endpoint = try first.workerEndpoint()
        expectOneLineError(try Harness.tessera(["coordinator", "glider", "--workers", "1", "--listen", endpoint]),
                           "another process holds that port")
        kill(first.pid, SIGTERM)
        _ = first.wait(timeout: 10)
    }

    /// Before: a presenter pointed at nothing, or at a coordinator that serves none,
    /// printed nothing and waited for ever.
    @Test func aPresenterWithNothingToDriveSaysSo() throws {
        let started = Date()
        expectOneLineError(try Harness.tessera(["presenter", "--coordinator", "tcp://127.0.0.1:9", "--silence", "1",
                                                "--view-listen", "tcp://127.0.0.1:*"]), "did not answer")
        #expect(Date().timeIntervalSince(started) < 10)
        let coordinator = try RunningTessera(["coordinator", "glider", "--workers", "1", "--listen", "tcp://127.0.0.1:*"])
        let endpoint = try coordinator.workerEndpoint()
        expectOneLineError(try Harness.tessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*"]),
                           "start it with --external-presenter")
        kill(coordinator.pid, SIGTERM)
        _ = coordinator.wait(timeout: 10)
    }

    /// Before: --tiles 1000x1000 on a 1024² board grew each worker to 3.5 GB with no
    /// progress in a minute, and --workers 100000 started 474 processes in 8 s and went
    /// on. What cannot work here is one line and status 2, from the flags and from a
    /// config alike, and no worker process starts.
    @Test(arguments: [
        ("tiles", "1000x1000", "more than the 4096 a board is cut into"),
        ("tiles", "65x64", "4160, more than the 4096 a board is cut into"),
        ("workers", "100000", "more than this machine runs"),
        ("workers", "\(WorkerCount.localLimit(cpus: CPUAffinity.usableCount, processLimit: WorkerCount.processLimit) + 1)",
         "more than this machine runs"),
    ])
    func tilesAndWorkersThatCannotWorkHereAreRefusedBeforeAnyStarts(key: String, value: String, problem: String) throws {
        let config = try Harness.temporaryDirectory().appendingPathComponent("run.toml")
        try "soup = 0.3\ngenerations = 2\n\(key) = \(key == "tiles" ? "\"\(value)\"" : value)\n".write(to: config, atomically: true, encoding: .utf8)
        for arguments in [["run", "--soup", "0.3", "--generations", "2", "--\(key)", value], ["run", "--config", config.path]] {
            let (result, workers) = try Self.runCountingChildren(arguments)
            expectOneLineError(result, problem, arguments.joined(separator: " "))
            #expect(workers.isEmpty, "\(arguments): \(workers.count) worker processes started")
        }
    }

    /// Runs `tessera` to its end (killed after 30 s), and the child processes /proc
    /// showed it meanwhile, looked at every millisecond.
    static func runCountingChildren(_ arguments: [String]) throws -> (Harness.Result, children: Set<Int32>) {
        let run = try RunningTessera(arguments)
        let deadline = Date().addingTimeInterval(30)
        var children = Set<Int32>()
        while run.isRunning && Date() < deadline {
            children.formUnion(Processes.children(of: run.pid))
            usleep(1000)
        }
        let status = run.wait(timeout: 0)
        return (Harness.Result(status: status, stdout: run.outputText, stderr: run.errorText), children)
    }

    /// Before: "worker  leaving", with two spaces, when the worker had no --name.
    @Test func aWorkerWithoutANameLeavesInPlainWords() throws {
        let result = try Harness.tessera(["worker", "--coordinator", "tcp://127.0.0.1:9", "--silence", "0.5"])
        expectOneLineError(result, "; worker leaving")
        #expect(!result.stderr.contains("  "))
    }
}
