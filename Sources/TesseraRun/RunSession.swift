import FoundationEssentials
import Synchronization
import TesseraCluster
import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraTiles
import TesseraViewer
import TesseraWire

/// One run on a cluster, start to finish: the coordinator, its workers, signal
/// handling and a progress line run as children of one task group (as in
/// swift-service-lifecycle's ServiceGroup), and the mode decides what drives the run.
package struct RunSession: Sendable {
    /// Where the workers come from.
    package enum Workers: Sendable {
        /// Started from here: worker processes of this binary, or through a launch command
        /// on other hosts; they reach the coordinator on `listen`.
        case launched(count: Int, launcher: WorkerLauncher = .here, listen: String = "tcp://127.0.0.1:*")
        /// Started anywhere by someone else (`tessera worker --coordinator …`), connecting to `listen`.
        case awaited(count: Int, listen: String)

        var count: Int {
            switch self {
            case .launched(let count, _, _), .awaited(let count, _): count
            }
        }
    }

    /// What drives the run once the workers are ready.
    package enum Mode: Sendable {
        /// The generations at full speed.
        case batch
        /// The generations, while viewers attach on `endpoint` and steer.
        case serveViewers(endpoint: String)
        /// A viewer in this terminal steers until it quits.
        case viewHere
        /// PNG frames and a GIF of the run.
        case record(FrameRecording)
        /// A `tessera presenter` process drives the run until it says it is done.
        case externalPresenter

        package var isBatch: Bool {
            if case .batch = self { true } else { false }
        }

        /// Whether the run's length is up to a presenter process rather than known here.
        var isExternalPresenter: Bool {
            if case .externalPresenter = self { true } else { false }
        }
    }

    package var setup: RunSetup
    package var generations: UInt64
    package var workers: Workers
    package var mode: Mode = .batch
    package var output: BoardOutput?
    package var connectTimeout: Duration = .seconds(30)
    /// How long a worker (or the presenter) may go unheard.
    package var silence: Duration = .seconds(5)
    /// A live progress line on stdout when it is a terminal.
    package var showsProgress = false
    /// Lost workers a run survives (`--max-restarts`), from the first started.
    package var restarts = 0
    /// Where viewers or frames watch HashLife step the run in this process (`runHere`).
    package var hashLife: HashLifeRun.Settings?
    /// Where and how often a batch run writes checkpoints, and where it ends.
    package var checkpointing: CheckpointSchedule?
    /// How a batch run moves tiles to even its workers' loads.
    package var balancing = Balancing.standard
    /// The cluster's keys: every socket then speaks CURVE and admits only listed keys.
    package var credentials: Credentials?
    /// Whether a batch run of a pattern on workers launched here steps it in this process
    /// first, starting the workers only once the board keeps a core busy (see
    /// `HeadStart`), where its one tile fits in memory beside theirs.
    package var headStart = false
    /// For tests: a head start that starts the workers at once and hands them the cells
    /// at this generation (counted from the run's first), however quiet the board.
    package var handOverAt: UInt64?

    package init(setup: RunSetup, generations: UInt64, workers: Workers) {
        (self.setup, self.generations, self.workers) = (setup, generations, workers)
    }

    /// Runs the session and says what the run did; throws `Interrupted` after SIGINT,
    /// SIGTERM, SIGQUIT or SIGHUP, once every worker has stopped.
    package func run() async throws -> RunOutcome {
        let sharded = runsSharded
        _ = try setup.end(after: generations)
        if mode.isExternalPresenter, setup.isUnbounded {
            throw TesseraError("an external presenter needs a bounded board; the pattern's rule has none, so it runs on Golly's unbounded plane",
                               fix: "give --size WxH (a torus) or a rule suffix such as :P1024,1024")
        }
        if checkpointing != nil, !mode.isBatch {
            throw TesseraError("checkpoints are written by batch runs (no viewers, no frames)",
                               fix: "leave out --checkpoint, or the viewers and frames")
        }
        // Tiles refuse a board that steps whole, saying why; workers hold the unbounded
        // plane only as shards.
        if !sharded { try setup.checkTiles() }
        if setup.isUnbounded, !sharded {
            throw TesseraError("workers hold the unbounded plane only as shards of a sparse map, which this run cannot use",
                               fix: "give --workers 0")
        }
        // The coordinator holds one band of the board at a time, and only to write it;
        // local workers share this machine's memory with it, remote ones check their own.
        let launchedHere = if case .launched(_, let launcher, _) = workers { launcher.hosts.isEmpty } else { false }
        if launchedHere { try WorkerCount.checkLocal(workers.count) } else { try WorkerCount.check(workers.count) }
        if !sharded { try RunPlan.check(workers: workers.count, tiling: setup.tiling) }
        // Workers hold every cell of their tiles; this process's sparse map only the live
        // ones, on any board it holds.
        let sparseFix = !setup.isUnbounded && SparsePlane.holds(setup.shape, rule: setup.rule)
            ? "give --workers 0: this process steps the board as a sparse map, whose memory follows the live cells"
            : nil
        if !sharded {
            try TileCluster.checkMemory(launchedHere ? setup.tiling.tiles : [], of: setup.tiling, halo: setup.halo, rule: setup.rule,
                                        extraBytes: output?.bandBytes ?? 0, fix: sparseFix)
        }
        // Soups are made by the workers themselves, and are seldom over in a blink. The
        // head start's one tile must fit beside the workers' tiles.
        let wanted = headStart && launchedHere && mode.isBatch && checkpointing == nil && setup.soup == nil
        let alone = (wanted ? try? setup.inOneTile() : nil).flatMap { one in
            (try? TileCluster.checkMemory(setup.tiling.tiles, of: setup.tiling, halo: setup.halo, rule: setup.rule,
                                          extraBytes: TileCluster.byteCount(of: one.tiling, halo: one.halo, rule: one.rule)
                                              + (output?.bandBytes ?? 0)))
                .map { one }
        }
        let headProgress = HeadStart.Progress()
        var head: HeadStart? = nil
        if let alone {
            let first = try await firstGenerations(of: alone, progress: headProgress)
            if first.generations == generations {
                return try await finishHere(first, workers: workers.count, started: false)
            }
            head = first
        }
        let listen: String
        switch workers {
        case .launched(_, _, let endpoint), .awaited(_, let endpoint): listen = endpoint
        }
        let viewers: String? = switch mode {
        case .serveViewers(let endpoint): endpoint
        case .viewHere: "tcp://127.0.0.1:*"
        default: nil
        }
        let plan = sharded ? try shardPlan(of: setup.startingSparseParts, at: setup.generation) : setup.plan(generations: generations)
        return try await MessagePump.with(.coordinator(listen: listen, viewers: viewers), credentials: credentials) { pump in
            let coordinator = Coordinator(pump: pump, workers: workers.count, plan: plan,
                                          connectTimeout: connectTimeout, silence: silence,
                                          servesPresenter: mode.isExternalPresenter)
            await coordinator.setRestarts(restarts)
            var launch: (() throws -> LocalWorkers)? = nil
            switch workers {
            case .launched(let count, let launcher, _):
                launch = { try LocalWorkers.launch(count: count, coordinator: pump.boundEndpoint, launcher: launcher,
                                                   keys: credentials?.folder) }
            case .awaited(let count, _):
                // Unbuffered, so whoever starts the workers can read the endpoint at once.
                say("tessera coordinator: waiting for \(count) workers on \(pump.boundEndpoint)")
            }
            return try await serve(coordinator, pump: pump, launch: launch, head: head, headProgress: headProgress)
        }
    }

    /// Whether the workers step the board as shards of a sparse plane (`ShardPlan`),
    /// whose memory follows the live cells, rather than as dense tiles: a run on Golly's
    /// unbounded plane, or on a bounded grid whose dense tiles would not fit in memory,
    /// where this process would step it as a sparse map (`RunSetup.runsSparse`), in
    /// batch (checkpoints too), with viewers or recording frames (`ShardedPlane`). A
    /// presenter process needs a bounded board's tiles.
    var runsSharded: Bool {
        guard !mode.isExternalPresenter, setup.runsSparse, !setup.stepsWhole else { return false }
        return setup.isUnbounded || !setup.tilesFitInMemory
    }

    /// The run's cells `parts` (Golly's coordinates) at `generation`, as shards.
    private func shardPlan(of parts: [PlacedCells], at generation: UInt64) throws -> RunPlan {
        let shards = try ShardPlan(parts: parts, rule: setup.rule, board: setup.isUnbounded ? nil : setup.shape,
                                   depth: min(64, max(1, setup.halo)))
        return RunPlan.sharded(shards, tiling: setup.tiling, rule: setup.rule, generation: generation, generations: generations)
    }

    /// Steps the first generations here, on `alone` (the run on one tile), before any
    /// worker or socket exists (see `HeadStart`), until the board keeps a core busy (tests: until `handOverAt`) or the
    /// run is over. A stopping signal ends it, with nothing written, as `Interrupted`.
    private func firstGenerations(of alone: RunSetup, progress: HeadStart.Progress) async throws -> HeadStart {
        let (setup, generations, handOverAt) = (self.setup, self.generations, self.handOverAt)
        let follow = showsProgress && ProgressLine.isTerminal
        return try await Interrupted.unlessSignalled(output: output?.path) {
            var head = try await HeadStart(alone)
            var busy = HeadStart.Busy()
            // Rounds up to 1024 generations: one takes a quiet board a millisecond or two.
            let local = head.local
            try await head.step(toward: min(generations, handOverAt ?? .max), longest: 1024, progress: progress) {
                guard handOverAt == nil, busy.isBusy(at: $0, left: generations - ($0 - alone.generation)) else { return false }
                return await busy.fillsEnough(local)
            }
            head.keptSparse = busy.keptSparse
            return head
        } alongside: {
            if follow { await ProgressLine.follow(nil, cells: setup.boardCells, total: generations, headStart: progress) }
        }
    }

    /// Ends a run whose every generation was stepped here: writes the output from here,
    /// and says what the run did.
    private func finishHere(_ head: HeadStart, workers: Int, started: Bool) async throws -> RunOutcome {
        if let output { try await head.write(output) }
        let outcome = RunOutcome(seconds: 0, population: try await head.population(), workers: [], generations: 0)
        return outcome.after(head.record(workers: workers, started: started, handedOver: false))
    }

    /// Runs the session's mode on `coordinator`, with the workers `launch` starts here
    /// (nil: they come by themselves). After a head start, they are started at once, and
    /// `head` steps on here until they are up, then hands them its cells.
    private func serve(_ coordinator: Coordinator, pump: MessagePump, launch: (() throws -> LocalWorkers)?,
                       head: HeadStart?, headProgress: HeadStart.Progress) async throws -> RunOutcome {
        let stop = StopSignal()
        var written = false
        var services = ServiceGroup()
        var workers: LocalWorkers? = nil
        if let launch {
            do {
                let started = try launch()
                workers = started
                services.add {
                    await started.watch { pid, host, how in await coordinator.workerExited(pid: pid, host: host, how: how.description) }
                }
            } catch {
                await coordinator.shutdown()
                throw error
            }
        }
        services.add { await coordinator.serve() }
        services.onSignals { signal in
            stop.note(signal)
            await coordinator.cancel("interrupted by \(Signals.name(signal))")
        }
        if showsProgress && ProgressLine.isTerminal {
            let total = mode.isExternalPresenter ? nil : generations
            services.add {
                await ProgressLine.follow(coordinator, cells: setup.boardCells, total: total,
                                          headStart: head == nil ? nil : headProgress)
            }
        }
        return try await services.run { [workers] in
            do {
                var head = head
                if var running = head {
                    // Short rounds: the workers wait at most one once they are up.
                    try await running.step(toward: min(generations, handOverAt ?? .max), longest: 128, progress: headProgress) { _ in
                        try await coordinator.isReady()
                    }
                    headProgress.finish()
                    head = running
                    if running.generations == generations {
                        // Over before the workers were up: they hold nothing, so they go at once.
                        let outcome = try await finishHere(running, workers: self.workers.count, started: true)
                        written = output != nil
                        await coordinator.shutdown()
                        await workers?.dismiss()
                        if let signal = stop.signal { throw Interrupted(signal: signal, output: output?.path, written: written) }
                        return outcome
                    }
                }
                try await coordinator.start()
                await coordinator.setCheckpointing(checkpointing)
                if coordinator.plan.shards != nil {
                    let outcome = try await runShards(on: coordinator, pump: pump, after: head)
                    written = output != nil
                    await coordinator.shutdown()
                    await workers?.stop()
                    if let signal = stop.signal { throw Interrupted(signal: signal, output: output?.path, written: true) }
                    return outcome
                }
                if let head { try await head.handOver(to: coordinator, as: setup, generations: generations) }
                try await drive(coordinator, generations: generations - (head?.generations ?? 0), coordinator: coordinator, pump: pump)
                if let output {
                    let board = await coordinator.tiling.shape
                    let live = try await coordinator.liveBounds(in: TileRect(x: 0, y: 0, width: board.width, height: board.height))
                    let generation = await coordinator.generation
                    if setup.rule.steppedAsStates {
                        // The live box's states, held whole (as a board of states is in this
                        // process), gathered in bands of rows that keep each message small.
                        let box = live ?? TileRect(x: 0, y: 0, width: 0, height: 0)
                        var states = StateGrid(width: box.width, height: box.height, states: setup.rule.states)
                        let rows = max(1, (64 << 20) / max(1, (box.width + 63) / 64 * 8 * states.planes.count))
                        for top in stride(from: 0, to: box.height, by: rows) {
                            let band = TileRect(x: box.x, y: box.y + top, width: box.width, height: min(rows, box.height - top))
                            states.replace(with: try await coordinator.states(in: band), atX: 0, y: top)
                        }
                        try output.write(states: states, left: board.left + box.x, top: board.top + box.y, rule: setup.rule, generation: generation)
                    } else {
                        try await output.write(generation: generation, live: live) { try await coordinator.cells(in: $0) }
                    }
                    written = true
                }
                var outcome = await coordinator.outcome
                if let head { outcome = outcome.after(head.record(workers: self.workers.count, started: true, handedOver: true)) }
                await coordinator.shutdown()
                await workers?.stop()
                if let signal = stop.signal { throw Interrupted(signal: signal, output: output?.path, written: true) }
                return outcome
            } catch let error as Interrupted {
                throw error
            } catch {
                await coordinator.shutdown()
                await workers?.stop()
                if let signal = stop.signal {
                    throw Interrupted(signal: signal, output: output?.path, written: written)
                }
                throw error
            }
        }
    }

    /// A run on shards: takes over the head start's cells, if one ran, steps the rest of
    /// the generations (or presents them), and writes the output from the shards' live parts.
    private func runShards(on coordinator: Coordinator, pump: MessagePump, after head: HeadStart?) async throws -> RunOutcome {
        if let head {
            try await coordinator.replan(try shardPlan(of: try await head.liveParts(), at: setup.generation + head.generations))
        }
        let remaining = generations - (head?.generations ?? 0)
        if mode.isBatch {
            try await coordinator.advance(remaining, balancing: balancing)
        } else {
            let plane = ShardedPlane(coordinator: coordinator, balancing: balancing, grid: setup.isUnbounded ? nil : setup.shape)
            try await present(plane, generations: remaining, viewers: pump)
        }
        if let output {
            let board = setup.isUnbounded ? nil : setup.shape
            let plane = try SparsePlane(parts: try await coordinator.liveParts(), rule: setup.rule, board: board,
                                        generation: await coordinator.generation)
            try await plane.write(to: output)
        }
        var outcome = await coordinator.outcome
        if let head { outcome = outcome.after(head.record(workers: workers.count, started: true, handedOver: true)) }
        return outcome
    }

    /// What the mode does between the workers being ready and the end of the run, with
    /// `board` as viewers see it (the coordinator's bounded board of tiles).
    private func drive(_ board: any Universe, generations: UInt64, coordinator: Coordinator, pump: MessagePump) async throws {
        switch mode {
        case .batch:
            try await coordinator.advance(generations, balancing: balancing)
        case .externalPresenter:
            say("tessera coordinator: waiting for 'tessera presenter --coordinator \(pump.boundEndpoint)'")
            try await coordinator.serveRemotePresenter()
        case .record, .serveViewers, .viewHere:
            try await present(board, generations: generations, viewers: pump)
        }
    }

    /// What a viewing mode does with `board`: frames to files, or a presenter for the
    /// viewers that attach to `viewers` (the one in this terminal, with `viewHere`).
    private func present(_ board: any Universe, generations: UInt64, viewers: MessagePump?) async throws {
        let endpoint = viewers?.viewerEndpoint
        switch mode {
        case .batch, .externalPresenter:
            preconditionFailure("\(mode) has no presenter here")
        case .record(let recording):
            try await recording.record(board, generations: generations, followsLife: setup.isUnbounded)
        case .serveViewers:
            let presenter = makePresenter(board, viewers: viewers, stopAt: setup.generation + generations, delay: 0)
            say("tessera: viewers can attach with 'tessera view --connect \(endpoint ?? "")'")
            try await presenter.run()
        case .viewHere:
            let presenter = makePresenter(board, viewers: viewers, stopAt: nil, delay: 0.03)
            // Whichever ends first ends the other: quitting the viewer, or a failed run.
            let viewerFailure = Mutex<(any Error)?>(nil)
            var services = ServiceGroup()
            services.add {
                do {
                    try await ViewerApp.run(presenter: endpoint ?? "", credentials: credentials)
                } catch {
                    viewerFailure.withLock { $0 = error }
                }
                await presenter.stop()
            }
            try await services.run { try await presenter.run() }
            if let failure = viewerFailure.withLock({ $0 }) { throw failure }
        }
    }

    /// Runs the session's viewing mode (viewers or frames) on a run stepped in this
    /// process, with no workers and no coordinator (`--workers 0`): viewers attach to a
    /// socket of this process. Says what the run did; throws `Interrupted` after a
    /// stopping signal, with nothing written.
    package func runHere() async throws -> RunOutcome {
        _ = try setup.end(after: generations)
        precondition(!mode.isBatch && !mode.isExternalPresenter, "a batch run in this process is InProcessRun's")
        let viewers: String? = switch mode {
        case .serveViewers(let endpoint): endpoint
        case .viewHere: "tcp://127.0.0.1:*"
        default: nil
        }
        let (setup, generations, output, credentials, hashLife) = (setup, generations, output, credentials, hashLife)
        return try await Interrupted.unlessSignalled(output: output?.path) {
            let local: any LocalUniverse = if let hashLife { try HashLifePlane(setup, settings: hashLife) }
                else { try await InProcessRun.universe(of: setup) }
            let clock = ContinuousClock(), started = clock.now
            if let viewers {
                try await MessagePump.with(.viewers(listen: viewers), credentials: credentials) { pump in
                    try await present(local, generations: generations, viewers: pump)
                }
            } else {
                try await present(local, generations: generations, viewers: nil)
            }
            let seconds = (clock.now - started).seconds
            if let output { try await local.write(output) }
            let (ran, rewound) = await local.generation.subtractingReportingOverflow(setup.generation)
            return try await InProcessRun.outcome(of: local, seconds: seconds, generations: rewound ? 0 : ran)
        }
    }

    /// A presenter whose `p` key cycles through the built-in patterns and whose saves
    /// go into fresh RLE files in the working folder.
    private func makePresenter(_ universe: any Universe, viewers: MessagePump?, stopAt: UInt64?, delay: Double) -> Presenter {
        let shape = setup.shape
        let patterns = PatternLibrary.names.compactMap(PatternLibrary.pattern(named:)).map { pattern in
            let start = StartingCells(soup: nil, overlays: pattern.overlays(on: shape))
            return { @Sendable (rect: TileRect) -> BitGrid in start.cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height, of: shape) }
        }
        let (name, rule) = (setup.name, setup.rule)
        return Presenter(universe: universe, viewers: viewers, delay: delay, stopAt: stopAt, patterns: patterns) { board, generation in
            try Self.save(board, generation: generation, stem: "tessera-\(name.split(separator: ".").first ?? "board")-\(generation)",
                          shape: shape, rule: rule)
        }
    }

    /// Writes a viewer's save into a fresh RLE file here, the cells in their states where
    /// the rule has more than two; says where.
    package static func save(_ board: StateGrid, generation: UInt64, stem: String, shape: BoardShape, rule: Rule) throws -> String {
        let output = try BoardOutput(path: BoardOutput.freshPath(stem: stem), shape: shape, rule: rule, name: stem)
        if rule.states > 2 {
            try output.write(states: board, left: shape.left, top: shape.top, rule: rule, generation: generation)
        } else {
            try output.write(board.occupied, generation: generation)
        }
        return FileManager.default.currentDirectoryPath + "/" + output.path
    }
}

/// A run stopped by a signal; the process exits 128 + its number.
package struct Interrupted: Error, CustomStringConvertible {
    package let signal: Int32
    /// The output file asked for, and whether it was written before the signal.
    package let output: String?
    package let written: Bool

    package init(signal: Int32, output: String? = nil, written: Bool = false) {
        (self.signal, self.output, self.written) = (signal, output, written)
    }

    package var description: String {
        let file = output.map { written ? ", \($0) was written before it" : ", nothing written to \($0)" } ?? ""
        return "interrupted by \(Signals.name(signal)): every worker stopped\(file)"
    }
}

extension Interrupted {
    /// `body`'s result, unless a stopping signal comes first: then `body` is cancelled
    /// and this throws `Interrupted`, with nothing written to `output`. `alongside`
    /// runs beside `body` and is cancelled when it ends.
    package static func unlessSignalled<T: Sendable>(output: String?, _ body: @escaping @Sendable () async throws -> T,
                                                     alongside: @escaping @Sendable () async -> Void = {}) async throws -> T {
        let stop = StopSignal()
        var services = ServiceGroup()
        services.add(alongside)
        // The body, or a signal, whichever comes first; the other is cancelled.
        let ending = await services.run {
            await ServiceGroup.first(of: [
                {
                    do {
                        return .success(try await body())
                    } catch {
                        return .failure(error)
                    }
                },
                {
                    for await signal in Signals.stream() {
                        stop.note(signal)
                        return .failure(CancellationError())
                    }
                    return nil
                },
            ] as [@Sendable () async -> Result<T, any Error>?])
        }
        if case .success(let value)? = ending { return value }
        if let signal = stop.signal { throw Interrupted(signal: signal, output: output) }
        guard let ending else { throw CancellationError() }
        return try ending.get()
    }
}

/// The first signal that stopped a run, noted by its signal task and read at the end.
/// Behind a lock, hence `Sendable`.
final class StopSignal: Sendable {
    private let first = Mutex<Int32?>(nil)

    func note(_ signal: Int32) { first.withLock { $0 = $0 ?? signal } }

    var signal: Int32? { first.withLock { $0 } }
}

/// A line on stdout, written at once (not buffered), so whoever started this process
/// can read it while it runs.
package func say(_ line: String) {
    Files.writeToStandardOutput((line + "\n"))
}
