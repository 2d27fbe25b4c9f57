import Foundation
import Testing
import TesseraCore
@testable import TesseraCluster
@testable import TesseraRun

/// A run as asked for (`RunRequest`), without a process: what a config file adds, what
/// may go with what, and which engine steps which board.
@Suite struct RunRequestTests {
    private func request(_ change: (inout RunRequest) throws -> Void, cluster: RunRequest.Cluster = .here) rethrows -> RunRequest {
        var request = RunRequest(cluster: cluster)
        request.pattern = "glider"
        try change(&request)
        return request
    }

    private func refusal(_ request: RunRequest) -> String? {
        do {
            try request.validate()
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func config(_ text: String, into request: RunRequest) throws -> RunRequest {
        let url = try Self.temporaryFile("c.toml")
        try Data(text.utf8).write(to: url)
        var request = request
        try request.apply(configAt: url.path)
        return request
    }

    private static func temporaryFile(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-request-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name)
    }

    // MARK: config files

    @Test func aConfigFillsOnlyWhatTheFlagsLeftOut() throws {
        let flags = request {
            $0.generations = 7
            $0.workers = 0
        }
        let merged = try config("""
            generations = 500
            rule = "B36/S23"
            no-balance = true
            algorithm = "tiles"
            connect-timeout = 2.5
            """, into: flags)
        #expect(merged.generations == 7 && merged.workers == 0, "flags win")
        #expect(merged.rule == (try RuleChoice(parsing: "B36/S23")) && merged.algorithm == .tiles && merged.balancing == .off)
        #expect(merged.connectTimeout?.duration == .milliseconds(2500))
        // A flag's random moves are kept over the config's no-balance.
        var moving = flags
        moving.balancing = .random(seed: 3)
        #expect(try config("no-balance = true", into: moving).balancing == .random(seed: 3))
    }

    /// `run` and `coordinator` read one config format, each with its own keys.
    @Test func eachCommandTakesItsOwnKeys() throws {
        let coordinator = request({ _ in }, cluster: .awaited(listen: nil, externalPresenter: false))
        let listening = try config("listen = \"tcp://127.0.0.1:9000\"\nworkers = 2", into: coordinator)
        #expect(listening.cluster == .awaited(listen: "tcp://127.0.0.1:9000", externalPresenter: false))
        #expect(throws: TesseraError.self) { try config("algorithm = \"tiles\"", into: coordinator) }
        #expect(throws: TesseraError.self) { try config("listen = \"tcp://127.0.0.1:9000\"", into: request { _ in }) }
        // A flag's endpoint wins over the config's.
        let flagged = request({ _ in }, cluster: .awaited(listen: "tcp://127.0.0.1:9001", externalPresenter: true))
        #expect(try config("listen = \"tcp://127.0.0.1:9000\"", into: flagged).cluster
                    == .awaited(listen: "tcp://127.0.0.1:9001", externalPresenter: true))
    }

    /// What the config sets is checked as flags are: a step that is not a power of two.
    @Test func aConfigIsCheckedWithTheFlags() throws {
        do {
            _ = try config("step = 48", into: request { _ in })
            Issue.record("step 48 was taken")
        } catch {
            #expect("\(error)".contains("--step 48 is not a power of two"), "\(error)")
        }
        do {
            _ = try config("memory = 64", into: request { $0.algorithm = .tiles })
            Issue.record("memory with tiles was taken")
        } catch {
            #expect("\(error)".contains("--memory limits HashLife"), "\(error)")
        }
    }

    // MARK: what may go with what

    @Test func eachRuleOfTheFlagsIsOneLine() throws {
        let cases: [(String, (inout RunRequest) -> Void)] = [
            ("halo depth 0 is below 1", { $0.halo = 0 }),
            ("--workers -1 is negative", { $0.workers = -1 }),
            ("--max-restarts -2 is negative", { $0.maxRestarts = -2 }),
            ("--checkpoint-every without --checkpoint", { $0.checkpointEvery = .generations(10) }),
            ("--checkpoint-every 0 is no interval", { ($0.checkpoint, $0.checkpointEvery) = ("c", .seconds(0)) }),
            ("--keys and --insecure contradict", { ($0.keys, $0.insecure) = ("k", true) }),
            ("--memory 0 is not a size", { $0.memory = 0 }),
            ("--step 3 is not a power of two", { $0.step = 3 }),
            ("--step sets HashLife's step", { ($0.step, $0.algorithm) = (4, .tiles) }),
            ("--every says how often", { $0.every = 10 }),
            ("--every 0 is no interval", { ($0.every, $0.output) = (0, "out.rle") }),
        ]
        for (expected, change) in cases {
            let problem = refusal(request(change))
            #expect(problem?.contains(expected) == true, "\(expected): \(problem ?? "accepted")")
        }
        #expect(refusal(request { ($0.every, $0.output) = (10, "out.rle") }) == nil)
        #expect(refusal(request { ($0.every, $0.frames) = (10, "frames") }) == nil)
    }

    @Test func aCoordinatorNeedsWorkersAndAnEndpoint() {
        let coordinator = RunRequest.Cluster.awaited(listen: nil, externalPresenter: false)
        #expect(refusal(request({ $0.workers = 0 }, cluster: coordinator))?.contains("a coordinator needs --workers 1 or more") == true)
        #expect(refusal(request({ $0.workers = 3 }, cluster: coordinator)) == nil)
        #expect(refusal(request({ _ in }, cluster: .awaited(listen: "nowhere", externalPresenter: false))) != nil)
        // HashLife's flags are run's: a coordinator's request has none to break.
        #expect(refusal(request({ $0.workers = 2 }, cluster: coordinator)) == nil)
    }

    // MARK: which engine

    @Test func hashLifeStartsAPatternOnTheUnboundedPlaneRunForItsResult() throws {
        let plain = request { _ in }
        let setup = try plain.fresh(defaultTiles: 2)
        guard case .starts(budgeted: true) = try plain.hashLifeStart(for: setup) else {
            Issue.record("auto should start with HashLife on a budget")
            return
        }
        // A step of its own, or files every so often: HashLife throughout.
        guard case .starts(budgeted: false) = try request({ $0.step = 1024 }).hashLifeStart(for: setup),
              case .starts(budgeted: false) = try request({ ($0.every, $0.output) = (10, "o.rle") }).hashLifeStart(for: setup)
        else {
            Issue.record("--step and --every should run HashLife throughout")
            return
        }
        // What tiles give (workers, viewers, frames, a soup), or tiles asked for.
        for asksTiles in [request { $0.workers = 2 }, request { $0.viewListen = "tcp://127.0.0.1:7000" },
                          request { $0.frames = "f" }, request { $0.algorithm = .tiles }, request { $0.halo = 4 }] {
            #expect(try asksTiles.hashLifeStart(for: setup) == nil, "\(asksTiles)")
        }
        // Viewers and frames watch HashLife where it is asked for.
        for watched in [request { ($0.algorithm, $0.viewListen) = (.hashlife, "tcp://127.0.0.1:7000") },
                        request { ($0.algorithm, $0.frames) = (.hashlife, "f") }] {
            guard case .shown = try watched.hashLifeStart(for: setup) else {
                Issue.record("\(watched) should show HashLife's run")
                continue
            }
        }
        // Files every so often from this process's tiles, where asked for.
        #expect(try request { ($0.every, $0.output, $0.workers) = (10, "o.rle", 0) }.hashLifeStart(for: setup) == nil)
    }

    @Test func hashLifeAskedForWhereItCannotRunIsRefused() throws {
        let bounded = request {
            ($0.algorithm, $0.size) = (.hashlife, try? BoardSize(parsing: "64x64"))
        }
        #expect(throws: TesseraError.self) { try bounded.hashLifeStart(for: try bounded.fresh(defaultTiles: 1)) }
        for elsewhere in [request { ($0.algorithm, $0.workers) = (.hashlife, 2) },
                          request { ($0.algorithm, $0.checkpoint) = (.hashlife, "ck") }] {
            #expect(throws: TesseraError.self) { try elsewhere.hashLifeStart(for: try elsewhere.fresh(defaultTiles: 1)) }
        }
        let largerThanLife = request { ($0.algorithm, $0.rule) = (.hashlife, try? RuleChoice(parsing: "R2,C0,M0,S3..5,B3..4,NM")) }
        #expect(throws: TesseraError.self) { try largerThanLife.hashLifeStart(for: try largerThanLife.fresh(defaultTiles: 1)) }
    }

    @Test func aFamilyWithAnEngineOfItsOwnRunsInThisProcess() throws {
        let rule = try RuleChoice(parsing: "345/3/6")
        let byDefault = request { $0.rule = rule }
        let setup = try byDefault.fresh(defaultTiles: 2)
        #expect(try byDefault.tileHome(for: setup, usable: 2).0 == .thisProcess)
        for (change, expected) in [({ (r: inout RunRequest) in r.workers = 2 }, "runs on worker processes on a torus or a plane, and this is Golly's unbounded plane"),
                                   ({ (r: inout RunRequest) in r.checkpoint = "c" }, "--checkpoint needs worker processes"),
                                   ({ (r: inout RunRequest) in r.keys = "k" }, "--keys secures worker processes")] {
            var asked = byDefault
            change(&asked)
            do {
                _ = try asked.tileHome(for: setup, usable: 2)
                Issue.record("\(expected): accepted")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }

    /// Larger than Life (two states or history), Generations and rule files on a torus or
    /// a plane go to workers when they are asked for, the halo deep enough for the range;
    /// else they step whole here.
    @Test func familiesGoToWorkersAskedForOnATorusOrPlane() throws {
        let bosco = "R5,C0,M1,S34..58,B34..45,NM"
        let byDefault = request { $0.rule = try? RuleChoice(parsing: "\(bosco):T400,400") }
        let whole = try byDefault.fresh(defaultTiles: 2)
        #expect(try byDefault.tileHome(for: whole, usable: 2).0 == .thisProcess)
        #expect(whole.stepsWhole)
        for topology in ["T", "P"] {
            let asked = request { ($0.rule, $0.workers) = (try? RuleChoice(parsing: "\(bosco):\(topology)400,400"), 2) }
            let (home, setup) = try asked.tileHome(for: try asked.fresh(defaultTiles: 2), usable: 2)
            #expect(home == .workers(2) && setup.familyOnTiles && !setup.stepsWhole)
            #expect(setup.halo == setup.tiling.defaultHalo(reach: 5), "\(setup.halo)")
        }
        for rule in ["R5,C3,M1,S34..58,B34..45,NM:T400,400", "345/3/6:P100,100", "LifeHistory:T64,64"] {
            let asked = request { ($0.rule, $0.workers) = (try? RuleChoice(parsing: rule), 2) }
            let (home, setup) = try asked.tileHome(for: try asked.fresh(defaultTiles: 2), usable: 2)
            #expect(home == .workers(2) && setup.familyOnTiles, "\(rule)")
        }
        let deep = request { ($0.rule, $0.workers, $0.halo) = (try? RuleChoice(parsing: "\(bosco):T400,400"), 2, 41) }
        let unbounded = request { ($0.rule, $0.workers) = (try? RuleChoice(parsing: bosco), 2) }
        let klein = request { ($0.rule, $0.workers) = (try? RuleChoice(parsing: "B3/S23:K64,64"), 2) }
        for (asked, expected) in [(deep, "halo depth 41 (5 cells a generation"), (unbounded, "this is Golly's unbounded plane"),
                                  (klein, "runs in this process, not on worker processes yet")] {
            do {
                _ = try asked.tileHome(for: try asked.fresh(defaultTiles: 2), usable: 2)
                Issue.record("\(expected): accepted")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }

    @Test func workersStepWhatFitsAndTheSparseMapWhatDoesNot() throws {
        // A small torus: a default worker count shrinks to its one tile.
        let small = request { ($0.size, $0.tiles) = (try? BoardSize(parsing: "64x64"), try? TileGrid(parsing: "1x1")) }
        #expect(try small.tileHome(for: try small.fresh(defaultTiles: 4), usable: 4).0 == .workers(1))
        // Asked for, it stays.
        let asked = request { ($0.size, $0.workers) = (try? BoardSize(parsing: "256x256"), 2) }
        #expect(try asked.tileHome(for: try asked.fresh(defaultTiles: 2), usable: 4).0 == .workers(2))
        // A glider on a plane 2^22 cells a side: its dense tiles fit in no machine here.
        let huge = request { $0.rule = try? RuleChoice(parsing: "B3/S23:P4194304,4194304") }
        #expect(try huge.tileHome(for: try huge.fresh(defaultTiles: 2), usable: 2).0 == .thisProcess)
        // Frames of the unbounded plane follow its live cells from this process.
        let frames = request { $0.frames = "f" }
        #expect(try frames.tileHome(for: try frames.fresh(defaultTiles: 2), usable: 2).0 == .thisProcess)
        let zero = request { ($0.workers, $0.checkpoint) = (0, "c") }
        #expect(throws: TesseraError.self) { try zero.tileHome(for: try zero.fresh(defaultTiles: 1), usable: 2) }
    }

    /// The plain line's start, on this thread: a methuselah finishes by HashLife here.
    @Test func aShortPatternRunFinishesBeforeTheTaskPool() throws {
        let rpentomino = request { ($0.pattern, $0.generations) = ("rpentomino", 1103) }
        guard case .finished(let summary) = try rpentomino.begin() else {
            Issue.record("HashLife should finish 1103 generations of the R-pentomino")
            return
        }
        #expect(summary.first?.contains("1103 generations") == true && summary.joined().contains("population 116"), "\(summary)")
    }
}
