import TesseraCluster
import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraWire

/// A run between its engines: before it steps, or where HashLife left it for tiles.
package struct PendingRun: Sendable {
    package var setup: RunSetup
    package var generations: UInt64
    package var output: BoardOutput?
    /// The worker count asked for, else the CPUs this process can keep busy (read once:
    /// it takes a look at the cgroup's files).
    package var workers: Int
    package var hashLife: RunRequest.HashLifeStage?
    /// Where the run started, for its checkpoints (a resumed run's, where the first began).
    package var origin: Checkpoint.Origin?
    /// HashLife, which ran the first generations on its budget, may take the run back
    /// from tiles (`HashLifeRun.takeBack`).
    package var takesBack = false
}

extension RunRequest {
    /// What `begin()` leaves: the run's summary, or the rest of the run for `finish`.
    package enum Begun: Sendable {
        case finished(summary: [String])
        case continues(PendingRun)
    }

    /// Runs the request start to finish, and gives its summary's lines.
    package func run() async throws -> [String] {
        if case .awaited = cluster { return try await runOnAwaitedWorkers() }
        var pending = try pendingRun()
        if case .starts(let budgeted) = pending.hashLife {
            let ending = try await HashLifeRun.run(pending.setup, generations: pending.generations, output: pending.output,
                                                   budgeted: budgeted, settings: hashLifeSettings)
            switch settle(ending, pending) {
            case .finished(let summary): return summary
            case .continues(let rest): pending = rest
            }
        }
        return try await finish(pending)
    }

    /// `run()` up to where it needs the task pool, on this thread, which has not started
    /// it: a methuselah's whole run by HashLife takes less time than starting the pool.
    package func begin() throws -> Begun {
        let pending = try pendingRun()
        guard case .starts(let budgeted) = pending.hashLife else { return .continues(pending) }
        let ending = try HashLifeRun.runHere(pending.setup, generations: pending.generations, output: pending.output,
                                             budgeted: budgeted, settings: hashLifeSettings)
        return settle(ending, pending)
    }

    private var hashLifeSettings: HashLifeRun.Settings {
        HashLifeRun.Settings(memory: memory, step: step, writeEvery: asks.filesEvery)
    }

    /// The run's board, length and output made ready, and whether HashLife starts it.
    private func pendingRun() throws -> PendingRun {
        let usable = workers ?? CPUAffinity.usableCount
        var (setup, generations, origin) = try start(defaultTiles: max(1, usable))
        let output = try boardOutput(for: setup)
        let hashLife = try hashLifeStart(for: setup)
        // A step no HashLife takes would be ignored: HashLife over a rule tree's states takes
        // it where HashLife proper does not run.
        if let step, hashLife == nil {
            guard setup.runsStateHashLife else {
                throw TesseraError("--step sets HashLife's step, and this run of \(setup.rule) on \(setup.isUnbounded ? "the unbounded plane" : "a \(setup.shape)") has no HashLife",
                                   fix: "leave out --step (HashLife runs two-state rules and rule files on Golly's unbounded plane, for their result)")
            }
            setup.stateHashLifeStep = step
        }
        return PendingRun(setup: setup, generations: generations, output: output, workers: usable, hashLife: hashLife, origin: origin)
    }

    /// The output file asked for, made ready to write `setup`'s board.
    private func boardOutput(for setup: RunSetup) throws -> BoardOutput? {
        try output.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
    }

    /// Where HashLife's part left the run: finished (its summary), or handed to tiles.
    private func settle(_ ending: HashLifeRun.Ending, _ pending: PendingRun) -> Begun {
        switch ending {
        case .finished(let outcome):
            return .finished(summary: Summary.lines(setup: pending.setup, outcome: outcome, detailed: report))
        case .handedOver(let setup, let share):
            var rest = PendingRun(setup: setup, generations: pending.generations - share.generations, output: pending.output,
                                  workers: pending.workers, hashLife: .ran(share), origin: pending.origin)
            if case .starts(let budgeted) = pending.hashLife { rest.takesBack = budgeted }
            return .continues(rest)
        }
    }

    /// The rest of the run, on tiles: in this process, or on worker processes; where
    /// HashLife may take it back, taking turns with tiles in this process first.
    package func finish(_ pending: PendingRun) async throws -> [String] {
        var pending = pending
        if pending.takesBack, case .ran(let share) = pending.hashLife {
            let whole = pending.generations + share.generations
            let ending = try await HashLifeRun.takeBack(pending.setup, generations: whole, output: pending.output, after: share,
                                                        settings: HashLifeRun.Settings(memory: memory))
            var before = pending
            (before.generations, before.hashLife) = (whole, nil)
            switch settle(ending, before) {
            case .finished(let summary): return summary
            case .continues(let rest): pending = rest
            }
        }
        var outcome: RunOutcome
        // HashLife shown to viewers or frames steps the run in this process.
        let shown = if case .shown = pending.hashLife { true } else { false }
        if shown { try checkInThisProcess() }
        switch shown ? (.thisProcess, pending.setup) : try tileHome(for: pending.setup, usable: pending.workers) {
        case (.thisProcess, let setup):
            var session = RunSession(setup: setup, generations: pending.generations, workers: .launched(count: 0))
            try session.configure(by: self, output: pending.output)
            if shown { session.hashLife = hashLifeSettings }
            if session.mode.isBatch {
                outcome = try await InProcessRun.run(pending.setup, generations: pending.generations, output: pending.output,
                                                     writeEvery: asks.filesEvery)
            } else {
                warnIfOpen([viewListen], role: "run", exposes: "can watch and steer the run and edit its cells")
                outcome = try await session.runHere()
            }
        case (.workers(let count), let setup):
            var launcher = WorkerLauncher.here
            launcher.stopsBeforeBuilding = workersStopBeforeBuilding
            var session = RunSession(setup: setup, generations: pending.generations, workers: .launched(count: count, launcher: launcher))
            try session.configure(by: self, output: pending.output)
            session.checkpointing = try checkpointSchedule(for: setup, generations: pending.generations,
                                                           origin: try pending.origin ?? origin())
            session.credentials = try Credentials.member(keys: keys)
            session.headStart = headStart ?? (workers == nil || handOverAt != nil)
            session.handOverAt = handOverAt
            warnIfOpen([viewListen], role: "run", exposes: "can watch and steer the run and edit its cells")
            outcome = try await session.run()
        }
        if case .ran(let share) = pending.hashLife { outcome = outcome.after(share) }
        return Summary.lines(setup: pending.setup, outcome: outcome, detailed: report)
    }

    /// `tessera coordinator`: the run on workers started anywhere, which connect to it.
    private func runOnAwaitedWorkers() async throws -> [String] {
        guard case .awaited(let listen, let externalPresenter) = cluster else { preconditionFailure("not a coordinator's request") }
        let count = workers ?? 1
        var (setup, generations, origin) = try start(defaultTiles: count)
        setup = try setup.onTiles()
        let output = try boardOutput(for: setup)
        var session = RunSession(setup: setup, generations: generations,
                                 workers: .awaited(count: count, listen: listen ?? Self.defaultListen))
        try session.configure(by: self, output: output, externalPresenter: externalPresenter)
        session.checkpointing = try checkpointSchedule(for: setup, generations: generations, origin: try origin ?? self.origin())
        session.credentials = try Credentials.member(keys: keys)
        warnIfOpen([listen], role: "coordinator", exposes: "can join as a worker and read or rewrite the board")
        warnIfOpen([viewListen], role: "coordinator", exposes: "can watch and steer the run and edit its cells")
        let outcome = try await session.run()
        return Summary.lines(setup: setup, outcome: outcome, detailed: report)
    }

    /// Warns on stderr, once per endpoint, when `endpoints` reach past this machine with
    /// no keys: anyone on that network could then join the run or steer it.
    private func warnIfOpen(_ endpoints: [String?], role: String, exposes risk: String) {
        Credentials.warnIfOpen(endpoints, keys: keys, insecure: insecure, role: role, exposes: risk)
    }
}

extension RunSession {
    /// The mode and limits a request asks for.
    mutating func configure(by request: RunRequest, output: BoardOutput?, externalPresenter: Bool = false) throws {
        self.output = output
        connectTimeout = request.connectTimeout?.duration ?? connectTimeout
        silence = request.silence?.duration ?? silence
        balancing = request.balancing
        restarts = request.maxRestarts ?? RunRequest.defaultRestarts
        showsProgress = !request.viewHere
        if externalPresenter {
            mode = .externalPresenter
        } else if request.recordsFrames {
            mode = .record(try FrameRecording(folder: request.frames, gif: request.gif, every: request.every ?? 1,
                                              generations: request.generationCount))
        } else if request.viewHere {
            mode = .viewHere
        } else if let endpoint = request.viewListen {
            mode = .serveViewers(endpoint: endpoint)
        }
    }
}
