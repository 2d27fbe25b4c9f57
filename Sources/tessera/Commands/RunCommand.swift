import ArgumentParser
import TesseraCluster
import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraRun
import TesseraViewer

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Runs a pattern or soup on a local cluster of worker processes and prints a summary.")

    @OptionGroup var board: BoardOptions
    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var run: RunOptions
    @OptionGroup var checkpoints: CheckpointOptions
    @OptionGroup var security: SecurityOptions

    @Flag(help: "Watch and steer the run in this terminal; quitting the viewer ends the run.")
    var view = false

    @Option(help: "How to step a pattern on the unbounded plane: tiles (fastest where it stays chaotic), hashlife (in this process; fastest where it repeats, as a gun does), or auto: HashLife while it keeps ahead, then tiles (default).")
    var algorithm: Algorithm?

    @Option(parsing: .unconditional, help: "HashLife's memory in MiB, as bgolly's -M (default: 256, as bgolly's): where it fills, HashLife drops the squares its pattern no longer reaches, and takes smaller steps where one needs more.")
    var memory: Int?

    @Option(parsing: .unconditional, help: "HashLife's step in generations, a power of two, as bgolly's -i, and HashLife throughout (default: growing from 1 to a 256th of the run, and tiles where they are faster): a pattern whose results repeat at large scales can run faster in larger steps.")
    var step: UInt64?

    @Flag(inversion: .prefixedNo,
          help: "Step the first generations of a pattern in this process while the workers start, and hand the cells to them once they are up: a short run ends before they are needed. Default: on unless --workers is given, so that a chosen worker count does every generation.")
    var headStart: Bool?

    /// Hands the cells to the workers at this generation: for tests of the hand-over.
    @Option(parsing: .unconditional, help: .hidden)
    var handOverAt: UInt64?

    /// Each worker stops itself (SIGSTOP) at the first tiles it is given: for tests that
    /// lose a worker while the board loads.
    @Flag(help: .hidden)
    var workersStopBeforeBuilding = false

    func validate() throws {
        if view && !Terminal.isInteractive {
            throw TesseraError("--view needs a terminal", fix: "run it in a terminal, or use --view-listen and 'tessera view'")
        }
        try check(cluster, run)
    }

    /// What holds for flags and config alike.
    private func check(_ cluster: ClusterOptions, _ run: RunOptions) throws {
        try cluster.checkWorkerCount(local: true)
        if let memory, memory < 1 {
            throw TesseraError("--memory \(memory) is not a size in MiB", fix: "give --memory 1 or more (MiB), or leave it out")
        }
        if let step, step == 0 || step & (step - 1) != 0 {
            throw TesseraError("--step \(step) is not a power of two", fix: "give --step 1, 2, 4, … 1048576 or any power of two")
        }
        if memory != nil, algorithm == .tiles {
            throw TesseraError("--memory limits HashLife, and --algorithm tiles runs none", fix: "leave out --memory, or --algorithm tiles")
        }
        if step != nil, algorithm == .tiles {
            throw TesseraError("--step sets HashLife's step, and --algorithm tiles runs none", fix: "leave out --step, or --algorithm tiles")
        }
        if let every = run.every, every == 0 || !run.recordsFrames && run.output == nil {
            throw TesseraError(every == 0 ? "--every 0 is no interval" : "--every says how often frames or files are written, and none is asked for",
                               fix: "give --every 1 or more with --frames, --gif or --output, or leave it out")
        }
    }

    func run() async throws {
        var command = self
        var rest = try command.prepare()
        if case .starts(let budgeted) = rest.hashLife {
            let ending = try await HashLifeRun.run(rest.setup, generations: rest.generations, output: rest.output, budgeted: budgeted,
                                                   settings: HashLifeRun.Settings(memory: command.memory, step: command.step,
                                                                                  writeEvery: command.asks.filesEvery))
            guard let handedOver = Self.settle(ending, rest, report: command.run.report) else { return }
            rest = handedOver
        }
        try await command.finish(rest)
    }

    /// Where a run stands before it steps, or where HashLife left it for tiles.
    struct Rest {
        var setup: RunSetup
        var generations: UInt64
        var output: BoardOutput?
        /// The worker count given, else the CPUs this process can keep busy (read once:
        /// it takes a look at the cgroup's files).
        var workers: Int
        var hashLife: HashLifeStage?
        /// Where the run started, for its checkpoints (a resumed run's, where the first began).
        var origin: Checkpoint.Origin?
        /// HashLife, which ran the first generations on its budget, may take the run back
        /// from tiles (`HashLifeRun.takeBack`).
        var takesBack = false
    }

    enum HashLifeStage {
        /// HashLife is to start the run; `budgeted` (auto): it hands over to tiles once behind.
        case starts(budgeted: Bool)
        /// HashLife ran its share of the run, and tiles go on.
        case ran(RunOutcome.HashLifeShare)
    }

    /// The config file (into these options), the board and the output file; and whether
    /// HashLife starts the run.
    private mutating func prepare() throws -> Rest {
        if let path = board.config {
            let config = try ConfigFile(
                path: path,
                allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys + CheckpointOptions.configKeys
                    + SecurityOptions.configKeys + ["head-start", "algorithm", "memory", "step"])
            headStart = try headStart ?? config.value("head-start", Bool.init, problem: "is neither true nor false",
                                                      fix: "write head-start = true or false")
            algorithm = try algorithm ?? config.value("algorithm", Algorithm.init(rawValue:), problem: "is not an algorithm",
                                                      fix: "write algorithm = \"tiles\", \"hashlife\" or \"auto\"")
            memory = try memory ?? config.value("memory", { Int($0) }, problem: "is not a size in MiB", fix: "write memory = 512")
            step = try step ?? config.value("step", { UInt64($0) }, problem: "is not a number of generations", fix: "write step = 1024")
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            try checkpoints.apply(config)
            try security.apply(config)
            try check(cluster, run)
        }
        let workers = cluster.workers ?? CPUAffinity.usableCount
        let (setup, generations, origin) = try checkpoints.setup(board, generations: run.generations, defaultTiles: max(1, workers))
        var rest = try Rest(setup: setup, generations: generations, output: run.output, workers: workers, algorithm: algorithm ?? .auto,
                            asks: asks)
        rest.origin = origin
        return rest
    }

    /// Nil when HashLife finished the run (its summary printed), else what tiles go on from.
    static func settle(_ ending: HashLifeRun.Ending, _ rest: Rest, report: Bool) -> Rest? {
        switch ending {
        case .finished(let outcome):
            Summary.lines(setup: rest.setup, outcome: outcome, detailed: report).forEach { print($0) }
            return nil
        case .handedOver(let setup, let share):
            var handedOver = Rest(setup: setup, generations: rest.generations - share.generations, output: rest.output,
                                  workers: rest.workers, hashLife: .ran(share), origin: rest.origin)
            if case .starts(let budgeted) = rest.hashLife { handedOver.takesBack = budgeted }
            return handedOver
        }
    }

    /// The rest of the run, on tiles: in this process, or on worker processes; where
    /// HashLife may take it back, taking turns with tiles in this process first.
    func finish(_ rest: Rest) async throws {
        var rest = rest
        if rest.takesBack, case .ran(let share) = rest.hashLife {
            let ending = try await HashLifeRun.takeBack(rest.setup, generations: rest.generations + share.generations, output: rest.output,
                                                        after: share, settings: HashLifeRun.Settings(memory: memory))
            guard let left = Self.settle(ending, Rest(setup: rest.setup, generations: rest.generations + share.generations,
                                                      output: rest.output, workers: rest.workers, origin: rest.origin),
                                         report: run.report) else { return }
            rest = left
        }
        var chosen = rest.workers
        // Larger than Life, Generations, rule files and Golly's other grids have engines
        // of their own, in this process.
        let inThisProcessOnly = rest.setup.stepsWhole
        if inThisProcessOnly {
            guard (cluster.workers ?? 0) == 0 else {
                let what = rest.setup.rule.isTwoStateMoore ? "a \(rest.setup.shape)" : "\(rest.setup.rule)"
                throw TesseraError("\(what) runs in this process, not on worker processes yet", fix: "give --workers 0, or leave out --workers")
            }
            chosen = 0
        }
        // A default worker count gives way to this process's sparse map of tiles, which
        // holds only what lives, where the workers' tiles would not fit in memory: a
        // window around the live cells of the unbounded plane (demonoid-c512: 817408 x
        // 813312 cells), or a bounded grid 2^20 cells a side; and where frames of the
        // unbounded plane are recorded, which follow its live cells from this process.
        let setup = chosen == 0 ? rest.setup : try rest.setup.windowed()
        if cluster.workers == nil, !inThisProcessOnly, setup.runsSparse, checkpoints.checkpoint == nil,
           !setup.tilesFitInMemory || (run.recordsFrames && setup.isUnbounded) {
            chosen = 0
        }
        var outcome: RunOutcome
        if chosen == 0 {
            if security.keys != nil {
                throw TesseraError("--keys secures worker processes' connections, and --workers 0 has none", fix: "leave out --keys")
            }
            if checkpoints.checkpoint != nil {
                throw inThisProcessOnly
                    ? TesseraError("--checkpoint needs worker processes, and \(rest.setup.rule) runs in this process", fix: "leave out --checkpoint")
                    : TesseraError("--checkpoint needs worker processes, which write their tiles", fix: "give --workers 1 or more")
            }
            var session = RunSession(setup: setup, generations: rest.generations, workers: .launched(count: 0))
            try session.configure(run: run, cluster: cluster, output: rest.output, view: view)
            if session.mode.isBatch {
                outcome = try await InProcessRun.run(rest.setup, generations: rest.generations, output: rest.output,
                                                     writeEvery: asks.filesEvery)
            } else {
                security.warnIfOpen([run.viewListen], role: "run", exposes: "can watch and steer the run and edit its cells")
                outcome = try await session.runHere()
            }
        } else {
            // A default worker count shrinks to the number of tiles instead of failing.
            let workers = cluster.workers == nil ? min(chosen, setup.tiling.columns * setup.tiling.rows) : chosen
            var launcher = WorkerLauncher.here
            launcher.stopsBeforeBuilding = workersStopBeforeBuilding
            var session = RunSession(setup: setup, generations: rest.generations, workers: .launched(count: workers, launcher: launcher))
            try session.configure(run: run, cluster: cluster, output: rest.output, view: view)
            session.checkpointing = try checkpoints.schedule(for: setup, generations: rest.generations,
                                                             origin: try rest.origin ?? board.origin())
            session.credentials = try security.memberCredentials()
            session.headStart = headStart ?? (cluster.workers == nil || handOverAt != nil)
            session.handOverAt = handOverAt
            security.warnIfOpen([run.viewListen], role: "run", exposes: "can watch and steer the run and edit its cells")
            outcome = try await session.run()
        }
        if case .ran(let share) = rest.hashLife { outcome = outcome.after(share) }
        Summary.lines(setup: rest.setup, outcome: outcome, detailed: run.report).forEach { print($0) }
    }

    /// What a command line asks of a run besides its pattern, as far as it decides
    /// whether HashLife starts the run.
    struct Asks {
        /// Viewers, frames, checkpoints or worker processes: what HashLife, in this
        /// process for the result alone, cannot give.
        var beyondHashLife = false
        /// A worker count, tiles, halo depth, head start or hand-over (those ask for
        /// tiles), or a soup (chaotic from the start).
        var tiles = false
        /// An output file every so many generations (`--every` with `--output` and no
        /// frames): HashLife writes them, throughout the run, or (`--workers 0`) the run
        /// in this process.
        var filesEvery: UInt64?
        /// `--workers 0`: every tile in this process.
        var inThisProcess = false
        /// `--step`: HashLife's step, as bgolly's `-i`, so HashLife throughout. Weighed
        /// against tiles from its first step, a step of thousands of generations has
        /// earned no budget yet, and nick-gotts-1 went to tiles (minutes, not 0.6 s).
        var step = false

        static let none = Asks()
    }

    private var asks: Asks {
        Asks(beyondHashLife: view || run.viewListen != nil || run.recordsFrames || checkpoints.checkpoint != nil || (cluster.workers ?? 0) > 0,
             tiles: cluster.workers != nil || board.tiles != nil || board.halo != nil || board.soup != nil || handOverAt != nil || headStart != nil,
             filesEvery: run.recordsFrames || run.output == nil ? nil : run.every, inThisProcess: cluster.workers == 0,
             step: step != nil)
    }

    /// Whether the run starts with HashLife: asked for, or (auto) a pattern on the
    /// unbounded plane run for its result alone, with nothing asked that tiles give.
    static func startsWithHashLife(_ algorithm: Algorithm, _ setup: RunSetup, asks: Asks) throws -> Bool {
        if let every = asks.filesEvery {
            // HashLife, or a run in this process, writes a run's files as it goes; workers do not yet.
            if asks.inThisProcess || setup.stepsWhole, !asks.beyondHashLife { return false }
            guard setup.isUnbounded, algorithm != .tiles, !asks.beyondHashLife, !asks.tiles, setup.rule.emulation != .alternating else {
                throw TesseraError("--every \(every) with --output writes a file every \(every) generations from HashLife on Golly's unbounded plane, or from a run in this process, for the result alone",
                                   fix: "add --workers 0, or leave out --every (--frames DIR --every N makes pictures)")
            }
            return true
        }
        switch algorithm {
        case .tiles:
            return false
        case .hashlife:
            if !setup.rule.isTwoStateMoore {
                throw TesseraError("HashLife runs two-state rules of the 3x3 neighbourhood, and \(setup.rule) is not one",
                                   fix: "leave out --algorithm hashlife")
            }
            if let edges = setup.shape.edges {
                throw TesseraError("HashLife runs the unbounded plane, and this is a \(edges.name) (\(setup.shape.gollySuffix))",
                                   fix: "leave out --algorithm hashlife")
            }
            guard setup.isUnbounded else {
                throw TesseraError("HashLife runs Golly's unbounded plane, and this board is bounded (\(setup.shape))",
                                   fix: "leave out --algorithm hashlife, or give a pattern whose rule has no :T/:P suffix and no --size")
            }
            if asks.beyondHashLife {
                throw TesseraError("HashLife runs in this process for the result alone: no workers, viewers, frames or checkpoints",
                                   fix: "leave out --algorithm hashlife, or --workers, --view, --view-listen, --frames, --gif and --checkpoint")
            }
            return true
        case .auto:
            // Golly's HashLife refuses B0 without S8 (see `HashLife`); tiles run it.
            return setup.isUnbounded && !asks.beyondHashLife && !asks.tiles && setup.rule.emulation != .alternating
                && !setup.stepsWhole
        }
    }
}

extension RunCommand.Rest {
    /// A run of `setup` about to step: `output` made ready to write, and whether
    /// HashLife starts it (`RunCommand.startsWithHashLife`).
    init(setup: RunSetup, generations: UInt64, output path: String?, workers: Int, algorithm: Algorithm, asks: RunCommand.Asks) throws {
        let output = try path.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
        let hashLife = try RunCommand.startsWithHashLife(algorithm, setup, asks: asks)
            ? RunCommand.HashLifeStage.starts(budgeted: algorithm == .auto && asks.filesEvery == nil && !asks.step) : nil
        self.init(setup: setup, generations: generations, output: output, workers: workers, hashLife: hashLife)
    }
}
