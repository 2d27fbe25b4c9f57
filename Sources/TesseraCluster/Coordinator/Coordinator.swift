import FoundationEssentials
import Glibc
import TesseraCore
import TesseraPatterns
import TesseraWire

/// One worker as the coordinator saw it.
package struct WorkerSummary: Sendable {
    package let index: Int
    package let pid: UInt32
    package let host: String
    package let tiles: [TileID]
    package let report: WorkerReport
}

/// What a cluster run produced.
package struct RunOutcome: Sendable {
    /// Wall time spent advancing, from each `start` to the last worker's `done`.
    package private(set) var seconds: Double
    package let population: Int
    package let workers: [WorkerSummary]
    /// Generations run (those stepped again after a rollback counted once).
    package private(set) var generations: UInt64
    /// Tiles moved between workers, in order.
    package let rebalances: [Rebalance]
    /// Checkpoints written: generation, and seconds each took.
    package let checkpoints: [(generation: UInt64, seconds: Double)]
    /// Lost workers survived.
    package let recoveries: [Coordinator.Recovery]
    /// In-memory snapshots taken: generation, and seconds each took.
    package let snapshots: [(generation: UInt64, seconds: Double)]
    /// The board cut again for workers that joined: generation, and the new tiles.
    package let recuts: [(generation: UInt64, columns: Int, rows: Int)]
    /// For a run stepped as a sparse map of 64x64 tiles (in one process, or as shards on
    /// workers): the tiles it held at the end.
    package var sparseTiles: Int?
    /// Generations at which a sparse plane's shards were dealt again, to workers that
    /// joined or without those that left.
    package var shardDeals: [UInt64] = []

    package init(seconds: Double, population: Int, workers: [WorkerSummary], generations: UInt64, rebalances: [Rebalance] = [],
                 checkpoints: [(generation: UInt64, seconds: Double)] = [], recoveries: [Coordinator.Recovery] = [],
                 snapshots: [(generation: UInt64, seconds: Double)] = [], recuts: [(generation: UInt64, columns: Int, rows: Int)] = []) {
        (self.seconds, self.population, self.workers, self.generations) = (seconds, population, workers, generations)
        (self.rebalances, self.checkpoints, self.recoveries, self.snapshots) = (rebalances, checkpoints, recoveries, snapshots)
        self.recuts = recuts
    }

    /// Generations stepped again after rollbacks.
    package var generationsComputedAgain: UInt64 { Coordinator.recomputed(recoveries) }

    /// The first generations of a run, stepped in the coordinator's process until the
    /// board was busy enough for its workers and they were up.
    package struct HeadStart: Sendable {
        package let generations: UInt64
        package let seconds: Double
        /// The run's workers, whether they were started (the board kept a core busy) and
        /// whether they took over the rest of the run.
        package let workers: Int
        package let started: Bool
        package let handedOver: Bool
        /// Whether the board kept a core busy, but filled too little of its bounding box
        /// to be worth the workers (`HeadStart.leastFill`).
        package let keptSparse: Bool

        package init(generations: UInt64, seconds: Double, workers: Int, started: Bool, handedOver: Bool, keptSparse: Bool = false) {
            (self.generations, self.seconds, self.workers) = (generations, seconds, workers)
            (self.started, self.handedOver, self.keptSparse) = (started, handedOver, keptSparse)
        }
    }

    package private(set) var headStart: HeadStart?

    /// The first generations of a run on the unbounded plane, or all of them, stepped
    /// by HashLife in this process.
    package struct HashLifeShare: Sendable {
        package let generations: UInt64
        package let seconds: Double
        /// Squares HashLife held when it stopped.
        package let squares: Int
        /// Whether tiles took over the rest, HashLife having fallen behind them.
        package let handedOver: Bool
        /// Times HashLife dropped the squares its pattern no longer reached, to stay within its memory.
        package let collections: Int
        /// Of `generations`, those tiles stepped in this process between HashLife's turns,
        /// and the times HashLife took the run back from them.
        package private(set) var tileGenerations: UInt64 = 0
        package private(set) var returns = 0

        package init(generations: UInt64, seconds: Double, squares: Int, handedOver: Bool, collections: Int = 0) {
            (self.generations, self.seconds, self.squares, self.handedOver) = (generations, seconds, squares, handedOver)
            self.collections = collections
        }

        /// This share, then `tiles` generations stepped by tiles in `seconds`, then
        /// HashLife's turn `next`.
        package func joined(tiles: UInt64, seconds tileSeconds: Double, then next: HashLifeShare) -> HashLifeShare {
            var joined = HashLifeShare(generations: generations + tiles + next.generations, seconds: seconds + tileSeconds + next.seconds,
                                       squares: next.squares, handedOver: next.handedOver, collections: collections + next.collections)
            (joined.tileGenerations, joined.returns) = (tileGenerations + tiles + next.tileGenerations, returns + 1 + next.returns)
            return joined
        }
    }

    package private(set) var hashLife: HashLifeShare?

    /// This outcome with `share`'s generations and seconds first.
    package func after(_ share: HashLifeShare) -> RunOutcome {
        var outcome = adding(generations: share.generations, seconds: share.seconds)
        outcome.hashLife = share
        return outcome
    }

    /// This outcome with `head`'s generations and seconds first.
    package func after(_ head: HeadStart) -> RunOutcome {
        var outcome = adding(generations: head.generations, seconds: head.seconds)
        outcome.headStart = head
        return outcome
    }

    private func adding(generations: UInt64, seconds: Double) -> RunOutcome {
        var outcome = self
        outcome.seconds += seconds
        outcome.generations += generations
        return outcome
    }
}

/// Runs a plan on workers: waits for them to connect, assigns tiles, then advances,
/// draws frames, collects or reloads the board on request. It is not on the data path:
/// halos go from worker to worker.
///
/// A thin shell: every decision is `CoordinatorState`'s, and this actor, the one place
/// that state changes, feeds it the control socket's messages in arrival order and a
/// tick four times a second, carries out its effects, and lets one request at a time
/// wait for its answers.
package actor Coordinator {
    private var state: CoordinatorState
    private let pump: MessagePump
    /// Resolved when every worker has built its tiles.
    private let prepared = Completion<Void>()
    /// The request in flight.
    private var pending: Completion<CoordinatorState.Answer>?
    /// What a presenter process asks for, in order, for `serveRemotePresenter`.
    private let presenterRequests: AsyncStream<(op: UInt64, request: PresenterRequest)>
    private let presenterRequestsIn: AsyncStream<(op: UInt64, request: PresenterRequest)>.Continuation
    package nonisolated let plan: RunPlan
    package nonisolated let workerCount: Int
    package private(set) var secondsAdvancing = 0.0
    /// Generations advanced so far (a presenter's rewind does not take them back).
    package private(set) var generationsAdvanced: UInt64 = 0
    /// When the advance in flight started, and from which generation, for progress.
    package private(set) var advancing: (since: ContinuousClock.Instant, from: UInt64, to: UInt64)?

    /// - Parameters:
    ///   - connectTimeout: how long to wait for all `workers` to connect.
    ///   - silence: how long a worker may go without a heartbeat before the run fails.
    ///   - servesPresenter: whether a presenter process may drive the run.
    package init(pump: MessagePump, workers: Int, plan: RunPlan, connectTimeout: Duration,
                 silence: Duration = .seconds(5), servesPresenter: Bool = false) {
        self.pump = pump
        self.plan = plan
        workerCount = workers
        state = CoordinatorState(.init(plan: plan, workers: workers, silence: silence,
                                       connectDeadline: .now + connectTimeout, servesPresenter: servesPresenter))
        (presenterRequests, presenterRequestsIn) = AsyncStream.makeStream(of: (op: UInt64, request: PresenterRequest).self)
    }

    /// Serves the workers until the task is cancelled: takes the control socket's
    /// messages in order, and ticks. Run it as a child of the run's task group.
    package nonisolated func serve() async {
        var services = ServiceGroup()
        services.add {
            while !Task.isCancelled {
                await self.tick()
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
        await services.run {
            for await incoming in self.pump.control {
                guard let message = Wire.decodeOrLog(incoming.bytes, as: ToCoordinator.self, role: "coordinator") else {
                    await self.unreadable(from: incoming.from)
                    continue
                }
                await self.receive(message, from: incoming.from)
            }
            if !Task.isCancelled { await self.cancel("the coordinator's control socket closed") }
        }
    }

    private func receive(_ message: ToCoordinator, from peer: PeerID) {
        apply(state.receive(message, from: peer, now: .now))
    }

    private func unreadable(from peer: PeerID) { apply(state.unreadable(from: peer)) }

    private func tick() {
        let pump = self.pump
        apply(state.tick(now: .now) { pump.lastHeard(from: $0) })
        Wire.logCountedRefusals()
    }

    private func apply(_ effects: [CoordinatorState.Effect]) {
        for effect in effects {
            switch effect {
            case .send(let message, let peer):
                pump.send(message, to: .member(peer))
            case .prepared:
                prepared.succeed()
            case .completed(let answer):
                let done = pending
                pending = nil
                done?.succeed(answer)
            case .failed(let error):
                prepared.fail(error)
                let done = pending
                pending = nil
                done?.fail(error)
                presenterRequestsIn.finish()
            case .presenter(let op, let request):
                presenterRequestsIn.yield((op, request))
            case .log(let line):
                Wire.log("coordinator", line)
            case .refused(let line):
                Wire.logRefusal(line, at: Lane.toCoordinator.rawValue, as: "coordinator")
            }
        }
    }

    /// Waits for the workers to connect and build their tiles.
    package func start() async throws {
        try await prepared.value()
    }

    /// Whether every worker connected and built its tiles, without waiting; throws what
    /// failed the run meanwhile, if anything did.
    package func isReady() throws -> Bool {
        if let failure = state.failure { throw failure }
        return state.phase == .idle || state.phase == .busy
    }

    private func perform(_ request: CoordinatorState.Request) async throws -> CoordinatorState.Answer {
        let effects = try state.begin(request)
        let done = Completion<CoordinatorState.Answer>()
        pending = done
        apply(effects)
        return try await done.value()
    }

    /// Advances every tile `generations` generations, once the tiles of any worker that
    /// asked to leave moved to others. A worker lost on the way (with restarts left)
    /// rolls every tile back to the last snapshot, and the advance goes on from there to
    /// the same generation: whoever asked (a viewer's presenter, say) sees a pause.
    package func advance(_ generations: UInt64) async throws {
        guard generations > 0 else { return try await countPopulation() }
        let target = state.generation.addingReportingOverflow(generations)
        // Past the last generation: the state refuses it, with the line that says so.
        guard !target.overflow else { _ = try await perform(.advance(generations: generations)); return }
        defer { advancing = nil }
        while state.generation < target.partialValue {
            if let why = state.lostWhileIdle {
                try await recover(from: why, at: state.generation)
                continue
            }
            let departures = state.departures
            if !departures.isEmpty {
                do { try await move(departures) } catch is WorkerLost { continue }
            }
            let count = target.partialValue - state.generation
            let started = ContinuousClock.now
            advancing = (started, state.generation, target.partialValue)
            if case .interrupted(let why) = try await perform(.advance(generations: count)) {
                try await recover(from: why, at: state.generation)
                continue
            }
            secondsAdvancing += (ContinuousClock.now - started).seconds
            generationsAdvanced += count
        }
    }

    /// Has the workers report every tile's population where the coordinator has none:
    /// a soup's tiles are made on the workers, which count them only after an advance,
    /// so a run of no generations steps none to hear them.
    private func countPopulation() async throws {
        while !state.knowsPopulation {
            if case .interrupted(let why) = try await perform(.advance(generations: 0)) {
                try await recover(from: why, at: state.generation)
            }
        }
    }

    /// On shards, as they last reported (asked for where they have not since they were
    /// dealt): the live cells' bounds in Golly's coordinates, and the tiles present.
    package func shardFigures() async throws -> (bounds: CellBounds?, tiles: Int) {
        try await countPopulation()
        return (state.shardBounds, state.shardTiles)
    }

    /// A worker was lost mid-advance and the others stopped: the tiles need rolling back.
    package struct WorkerLost: Error, CustomStringConvertible {
        package let why: String
        package var description: String { why }
    }

    /// One lost worker survived: what was lost, where the run was, and the generation
    /// it rolled back to.
    package struct Recovery: Sendable, Equatable {
        package let lost: String
        package let at: UInt64
        package let rolledBackTo: UInt64
        /// From the others halted to every tile rebuilt from the snapshot.
        package let seconds: Double
        /// Whether the tiles came back from the workers' in-memory snapshots (else from
        /// a checkpoint on disk, or the start).
        package let fromMemory: Bool

        /// Generations computed again. None when the point restored lies ahead of where
        /// the tiles stood: a second loss soon after a roll back to a snapshot can find
        /// a checkpoint on disk newer than that snapshot (written just before the
        /// snapshot after it was cut short), and the run goes on from there.
        package var recomputed: UInt64 { wentAhead ? 0 : at - rolledBackTo }

        /// Whether the point restored lay ahead of where the tiles stood (see `recomputed`).
        package var wentAhead: Bool { rolledBackTo > at }

        /// What the coordinator says as it restores `what` at `restored`.
        package static func line(_ what: String, at generation: UInt64, restored: UInt64) -> String {
            restored > generation
                ? "went on from \(what) at generation \(restored), ahead of generation \(generation) where the tiles stood: nothing to compute again"
                : "rolled back to \(what) at generation \(restored): \(generation - restored) generations to compute again"
        }
    }

    package private(set) var recoveries: [Recovery] = []

    /// How many lost workers the run may survive: set before its workers start, so that
    /// one lost while the board loads is survived too.
    package func setRestarts(_ count: Int) { state.restartsLeft = count }

    /// Rolls every tile back to the last in-memory snapshot, if every tile of it
    /// survives (on the worker that took it or on its buddy): no cells cross the wire.
    /// Else to the newest checkpoint on disk, else to the run's start (once the tiles were
    /// made afresh, for a head start's cells, joiners or shards dealt again, their
    /// plan's start: it carries the cells they were made with), on the workers still in
    /// the run, the lost one's tiles dealt to them.
    private func recover(from why: String, at generation: UInt64) async throws {
        let started = ContinuousClock.now
        var plan = state.settings.plan, source = "the run's start"
        switch state.rollBack(checkpoints: checkpointing != nil) {
        case .memorySnapshot(let restored):
            Wire.log("coordinator", Recovery.line("the in-memory snapshot", at: generation, restored: restored))
            state.recovered()
            _ = try await perform(.restore)
            recoveries.append(Recovery(lost: why, at: generation, rolledBackTo: restored,
                                       seconds: (ContinuousClock.now - started).seconds, fromMemory: true))
            return
        case .presentPlan:
            (plan, source) = (state.plan, "the tiles as they were made")
        case .checkpointElseStart:
            // Only a complete checkpoint: the first may be half written when the loss came
            // (its workers were writing their tiles), and the run's start is as exact.
            if let root = checkpointing?.root, let restored = (try? Checkpoint.newest(in: root)) ?? nil {
                switch restored.cells {
                case .grid(let board, let states):
                    // Tiles' cells for tiles; shards roll back to their snapshot or deal.
                    guard state.plan.shards == nil else { break }
                    let tiling = state.plan.tiling
                    let (rule, halo, at) = (state.plan.rule, state.plan.halo, restored.manifest.generation)
                    plan = RunPlan(tiling: tiling, rule: rule, halo: halo, generation: at, generations: 0, soup: nil,
                                   cells: { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) })
                    // Each tile's states go with its cells, a load a tile.
                    if let states { plan.states = { states.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) } }
                    source = "the checkpoint on disk"
                case .parts(let parts):
                    guard let shards = state.plan.shards else { break }
                    plan = state.plan.resharded(try ShardPlan(parts: parts, rule: plan.rule, board: shards.board, depth: shards.depth),
                                                at: restored.manifest.generation)
                    source = "the checkpoint on disk"
                }
            }
        case .runStart:
            break
        }
        if let snapshot = shardSnapshot, snapshot.shards != nil, snapshot.generation >= plan.generation, snapshot.generation <= generation {
            (plan, source) = (snapshot, "the shards' last snapshot")
        }
        Wire.log("coordinator", Recovery.line(source, at: generation, restored: plan.generation))
        // Cleared first: a worker lost while the tiles are dealt again is noted afresh.
        state.recovered()
        _ = try await perform(.rollBack(plan))
        recoveries.append(Recovery(lost: why, at: generation, rolledBackTo: plan.generation,
                                   seconds: (ContinuousClock.now - started).seconds, fromMemory: false))
    }

    /// The board reduced to `viewport`, every tile at the same generation.
    package func frame(_ viewport: Viewport) async throws -> BitGrid {
        try await frame(viewport, clip: nil)
    }

    /// The same, of the cells within `clip` (board coordinates) only, when given.
    package func frame(_ viewport: Viewport, clip: TileRect?) async throws -> BitGrid {
        guard case .frame(let dots, _) = try await read(.frame(viewport, clip: clip)) else { throw TesseraError("no frame came back") }
        return dots
    }

    /// A frame's dots in their states, where the rule has more than two (`Universe`).
    package func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)? {
        guard state.plan.rule.states > 2, state.plan.shards == nil else { return nil }
        guard case .frame(_, let states?) = try await read(.frame(viewport, clip: nil)) else { throw TesseraError("no frame came back") }
        return (states, state.plan.rule.states)
    }

    /// A read of every tile (a frame, rows of the board) at the generation reached. A
    /// worker lost meanwhile: the tiles roll back, step to that generation again, and
    /// are read again.
    private func read(_ request: CoordinatorState.Request) async throws -> CoordinatorState.Answer {
        let reached = state.generation
        while true {
            let answer = try await perform(request)
            guard case .interrupted(let why) = answer else { return answer }
            try await recover(from: why, at: reached)
            try await advance(reached - state.generation)
        }
    }

    /// Advances `generations` in stretches of about a quarter second. Between them,
    /// the tiles of workers that asked to leave move to others, and tiles move to even
    /// the load as `balancing` says (a worker that joined takes its share).
    package func advance(_ generations: UInt64, balancing: Balancing) async throws {
        // One worker with one tile steps straight through, unless a worker may join; no
        // generations need no stretches.
        if state.plan.shards != nil { return try await advanceShards(generations, balancing: balancing) }
        guard generations > 0, state.members.count > 1 || state.plan.tiling.tiles.count > 1 || checkpointing != nil || balancing != .off else {
            return try await advance(generations)
        }
        var generator = SplitMix64(seed: { if case .random(let seed) = balancing { seed } else { 0 } }())
        var schedule = AdvanceSchedule(halo: state.plan.halo, from: state.generation, generations: generations,
                                       checkpoints: checkpointing?.interval, tileSeconds: state.tileSeconds, now: .now)
        while state.generation < schedule.end {
            let count = schedule.nextCount(at: state.generation)
            let started = ContinuousClock.now, recovered = recoveries.count
            do {
                try await advance(count)
                let due = schedule.due(at: state.generation, now: .now, restartsLeft: state.restartsLeft)
                if let checkpointing, due.checkpoint {
                    try await checkpoint(into: checkpointing.root)
                    schedule.checkpointed(at: .now)
                }
                if due.snapshot {
                    let started = ContinuousClock.now
                    try await snapshot()
                    schedule.snapshotted(started: started, ended: .now)
                }
            } catch let lost as WorkerLost {
                try await recover(from: lost.why, at: state.generation)
            }
            if recoveries.count != recovered {
                // Every tile was dealt afresh (the advance or the checkpoint rolled back).
                schedule.startOver()
                continue
            }
            guard state.generation < schedule.end else { break }
            if balancing != .off, try await cutTilesForJoiners() {
                schedule.startOver()
                continue
            }
            let took = (ContinuousClock.now - started).seconds
            schedule.stretched(count: count, seconds: took)
            if case .random = balancing { schedule.stretch(rounds: UInt64.random(in: 1...3, using: &generator)) }
            let loads = schedule.loads(measured: state.tileSeconds)
            let moves = state.moves(balancing, loads: loads, seconds: took, staying: schedule.staying, random: &generator)
            guard !moves.isEmpty else { continue }
            do {
                try await move(moves, loads: loads)
            } catch is WorkerLost {
                continue  // the loop rolls back at its top: the loss is noted as between advances
            }
            schedule.moved(moves.keys)
        }
    }

    /// Advances a sparse plane spread over the workers as shards, in stretches that double
    /// while each takes under a second (a stretch's round trip is its fixed cost, which a
    /// loaded machine makes long): between them, once a worker joined or a shard host
    /// asked to leave (`CoordinatorState.shardsToDealAgain`), or the shards' measured
    /// compute came out uneven (`unevenShards`, unless `balancing` is off; at most every
    /// fourth stretch, once stretches take a second), the live cells are read and dealt
    /// again as shards of the workers that stay, and every few seconds they are read and
    /// kept as a snapshot (`snapshotShards`). The shards are found and ordered off this
    /// actor, which goes on hearing and beating meanwhile.
    private nonisolated func advanceShards(_ generations: UInt64, balancing: Balancing) async throws {
        // No generations: the shards' figures, as `advance` counts a soup's.
        guard generations > 0 else { return try await advance(0) }
        var left = generations, stretch: UInt64 = 64, sinceDeal = 0
        var before = await state.shardSeconds
        let checkpointing = await checkpointing
        var lastCheckpoint = ContinuousClock.now
        while left > 0 {
            if try await skipEmptyShards(left) { return }
            if let why = await state.shardsToDealAgain(balancing: balancing != .off) {
                try await dealShardsAgain(because: why)
                (sinceDeal, before) = (0, await state.shardSeconds)
            }
            let from = await state.generation
            let count = checkpointing?.interval.cut(min(left, stretch), at: from) ?? min(left, stretch)
            let clock = ContinuousClock(), started = clock.now
            try await advance(count)
            left -= count
            let took = clock.now - started
            if took < .seconds(1) { stretch = min(stretch * 2, 1 << 24) }
            if let checkpointing, checkpointing.interval.isDue(at: from + count, elapsed: .now - lastCheckpoint) {
                try await checkpointShards(checkpointing)
                lastCheckpoint = .now
            }
            if await shardSnapshotDue() { try await snapshotShards() }
            sinceDeal += 1
            if balancing != .off, left > 0, took >= (await shardBalancing.stretch), sinceDeal >= 4,
               let (why, costs) = await state.unevenShards(since: before, least: await shardBalancing.least) {
                try await dealShardsAgain(because: why, costs: costs)
                sinceDeal = 0
            }
            before = await state.shardSeconds
        }
    }

    /// The least stretch of shards whose measured loads may deal them again, and the
    /// least compute of its busiest shard: long enough that a deal, which reads and
    /// sends every live cell, costs little beside it (tests: any).
    private var shardBalancing = (stretch: Duration.seconds(1), least: 0.25)
    package func balanceShardsOnAnyStretch() { shardBalancing = (.zero, 0) }

    /// On shards: the live cells as last read between stretches, as a plan that deals
    /// them again, which a lost worker rolls back to (`recover`). The coordinator holds
    /// them, in the memory of the live cells; a worker holds none of another's.
    private var shardSnapshot: RunPlan?
    private var lastShardSnapshot: ContinuousClock.Instant?
    /// The least time between snapshots of shards, from the first stretch: 40 times what
    /// the last one took where that is longer, so that they take at most 2.5% of the run.
    private var shardSnapshotInterval = AdvanceSchedule.defaultSnapshotInterval

    /// Tests take snapshots of shards after every stretch (`.zero`), or never.
    package func setShardSnapshotInterval(_ interval: Duration) { shardSnapshotInterval = interval }

    private func shardSnapshotDue() -> Bool {
        guard state.restartsLeft > 0, state.plan.shards != nil else { return false }
        let now = ContinuousClock.now, last = lastShardSnapshot ?? now
        if lastShardSnapshot == nil { lastShardSnapshot = now }
        return now - last >= shardSnapshotInterval
    }

    /// The shards' live cells as read now, found and ordered off this actor, the plan
    /// in force and the generation they are at; nil where the plan is not shards.
    private nonisolated func readShards() async throws -> (shards: ShardPlan, plan: RunPlan, generation: UInt64)? {
        let parts = try await liveParts()
        let (plan, generation) = await planInForce()
        guard let shards = plan.shards else { return nil }
        return (try ShardPlan(parts: parts, rule: plan.rule, board: shards.board, depth: shards.depth), plan, generation)
    }

    /// Reads the shards' live cells and keeps them as the plan a loss rolls back to.
    private nonisolated func snapshotShards() async throws {
        let clock = ContinuousClock(), started = clock.now
        guard let read = try await readShards() else { return }
        await keepShardSnapshot(read.plan.resharded(read.shards, at: read.generation), seconds: (clock.now - started).seconds)
    }

    private func keepShardSnapshot(_ plan: RunPlan, seconds: Double) {
        (shardSnapshot, lastShardSnapshot) = (plan, .now)
        shardSnapshotInterval = max(shardSnapshotInterval, .seconds(seconds * 40))
        snapshots.append((plan.generation, seconds))
    }

    /// Deals the shards again from their live cells, in runs of equal counts of tiles, or
    /// of equal cost where each shard's measured cost a tile (`costs`, by shard) is given.
    private nonisolated func dealShardsAgain(because why: String, costs: [Int: Double]? = nil) async throws {
        guard let (read, plan, generation) = try await readShards() else { return }
        var next = read
        if let costs, let map = await state.shardMap, !costs.isEmpty {
            let usual = costs.values.reduce(0, +) / Double(costs.count)
            next.weights = next.codes.map { costs[map.owner(ofCode: $0)] ?? usual }
        }
        Wire.log("coordinator", "\(why): dealing the shards again at generation \(generation)")
        try await replan(plan.resharded(next, at: generation))
        await noteShardDeal(at: generation)
    }

    /// Moves shards on which nothing lives (as stored) `generations` on at once, by
    /// dealing them again empty there: an empty plane stays empty (a B0 rule's stored
    /// cells are stepped by a rule without B0). False where anything lives, or the
    /// shards have not said since they were dealt.
    private func skipEmptyShards(_ generations: UInt64) async throws -> Bool {
        let plan = state.plan
        let (end, overflow) = state.generation.addingReportingOverflow(generations)
        guard let shards = plan.shards, state.knowsPopulation, state.population == 0, !overflow else { return false }
        try await replan(plan.resharded(try ShardPlan(parts: [], rule: plan.rule, board: shards.board, depth: shards.depth), at: end))
        generationsAdvanced += generations
        return true
    }

    private func noteShardDeal(at generation: UInt64) { shardDeals.append(generation) }
    private func planInForce() -> (RunPlan, UInt64) { (state.plan, state.generation) }
    private var shardDeals: [UInt64] = []

    /// Cuts the board again for workers that joined, where `CoordinatorState.recutForJoiners`
    /// says so, from its cells at this generation. Returns whether it did.
    private func cutTilesForJoiners() async throws -> Bool {
        let tiling: Tiling, idle: Int
        switch state.recutForJoiners() {
        case .none:
            return false
        case .refused(let why):
            if !recutRefused {
                recutRefused = true
                Wire.log("coordinator", why)
            }
            return false
        case .cut(let cut, let joined):
            (tiling, idle) = (cut, joined)
        }
        let started = ContinuousClock.now
        let board = try await collect(), generation = state.generation
        try await replan(RunPlan(tiling: tiling, rule: state.plan.rule, halo: state.plan.halo, generation: generation,
                                 generations: state.plan.generations, soup: nil,
                                 cells: { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }))
        Wire.log("coordinator", "cut the board again into \(tiling.columns)x\(tiling.rows) tiles at generation \(generation), one for each of \(tiling.tiles.count) workers: \(idle) had joined with none (" + String(cFormat: "%.1f ms", (ContinuousClock.now - started).seconds * 1000) + ")")
        recuts.append((generation, tiling.columns, tiling.rows))
        return true
    }

    private var recutRefused = false
    private var recuts: [(generation: UInt64, columns: Int, rows: Int)] = []

    /// Moves tiles to other workers (by index) between advances, and notes it.
    package func move(_ moves: [TileID: Int], loads: [TileID: Double] = [:]) async throws {
        let started = ContinuousClock.now
        let from = Dictionary(uniqueKeysWithValues: moves.keys.map { ($0, state.owner(of: $0)) })
        func perWorker(_ owner: (TileID) -> Int) -> [Double] {
            var load = Array(repeating: 0.0, count: state.members.count)
            for tile in state.plan.tiling.tiles { load[owner(tile)] += loads[tile] ?? 0 }
            return load
        }
        let before = perWorker { state.owner(of: $0) }
        if case .interrupted(let why) = try await perform(.move(moves)) { throw WorkerLost(why: why) }
        rebalances.append(Rebalance(
            generation: state.generation,
            moves: moves.keys.sorted().map { Rebalance.Move(tile: $0, from: from[$0]!, to: moves[$0]!) },
            before: before, after: perWorker { state.owner(of: $0) },
            seconds: (ContinuousClock.now - started).seconds))
    }

    /// Every move so far.
    package private(set) var rebalances: [Rebalance] = []

    package var checkpointing: CheckpointSchedule?

    package func setCheckpointing(_ schedule: CheckpointSchedule?) { checkpointing = schedule }

    /// In-memory snapshots taken so far: generation and seconds each took.
    package private(set) var snapshots: [(generation: UInt64, seconds: Double)] = []

    /// Every worker keeps its tiles' cells (1 bit a cell) and sends a copy to its buddy.
    package func snapshot() async throws {
        let started = ContinuousClock.now, generation = state.generation
        let answer = try await perform(.snapshot)
        if case .interrupted(let why) = answer { throw WorkerLost(why: why) }
        if state.memorySnapshot?.generation == generation {
            snapshots.append((generation, (ContinuousClock.now - started).seconds))
        }
    }

    /// Checkpoints written so far: generation and seconds each took.
    package private(set) var checkpoints: [(generation: UInt64, seconds: Double)] = []

    /// Writes a checkpoint under `root`: every worker writes its own tiles at once, then
    /// the manifest goes in last (see `Checkpoint`).
    package func checkpoint(into root: String) async throws {
        let started = ContinuousClock.now
        let generation = state.generation, tiling = state.plan.tiling
        let folder = Checkpoint.folder(in: root, generation: generation)
        let madeRoot = !Files.exists(root)
        try Checkpoint.createFolder(folder)
        let answer: CoordinatorState.Answer
        do {
            answer = try await perform(.checkpoint(folder: folder))
        } catch {
            Self.discardUnfinished(folder, root: madeRoot ? root : nil)
            throw error
        }
        if case .interrupted(let why) = answer { throw WorkerLost(why: why) }
        guard case .checkpointed(let sums) = answer else { throw TesseraError("no checkpoint came back") }
        let entries = tiling.tiles.map { tile in
            let rect = tiling.rect(of: tile)
            return Checkpoint.Manifest.Tile(column: tile.column, row: tile.row, x: rect.x, y: rect.y, width: rect.width,
                                            height: rect.height, file: Checkpoint.fileName(of: tile),
                                            checksum: String(sums[tile]!, radix: 16))
        }
        let manifest = Checkpoint.Manifest(generation: generation, rule: state.plan.rule, shape: tiling.shape,
                                           columns: tiling.columns, rows: tiling.rows,
                                           end: checkpointing?.end ?? generation,
                                           origin: checkpointing?.origin ?? Checkpoint.Origin(pattern: nil, name: nil, soup: nil),
                                           tiles: entries)
        do {
            try Checkpoint.commit(manifest, in: folder, root: root)
        } catch {
            Self.discardUnfinished(folder, root: madeRoot ? root : nil)
            throw error
        }
        noteCheckpoint(at: generation, seconds: (ContinuousClock.now - started).seconds)
    }

    /// Writes a checkpoint of the shards: the coordinator reads their live cells
    /// (`readShards`) and writes them as one file of parts, a tile each, then the
    /// manifest (see `Checkpoint`). The cells read are the shards' snapshot too, where
    /// one is kept: a loss then rolls back in memory, not from disk, and the next
    /// snapshot need not read them again.
    private nonisolated func checkpointShards(_ schedule: CheckpointSchedule) async throws {
        let started = ContinuousClock.now
        guard let (shards, plan, generation) = try await readShards() else { return }
        let read = ContinuousClock.now - started
        let folder = Checkpoint.folder(in: schedule.root, generation: generation)
        let madeRoot = !Files.exists(schedule.root)
        do {
            try Checkpoint.createFolder(folder)
            let file = try Checkpoint.writePlane(shards.tiles.map(PlacedCells.init), generation: generation, in: folder)
            let manifest = Checkpoint.Manifest(generation: generation, rule: plan.rule, board: shards.board, end: schedule.end,
                                               origin: schedule.origin, plane: file)
            try Checkpoint.commit(manifest, in: folder, root: schedule.root)
        } catch {
            Self.discardUnfinished(folder, root: madeRoot ? schedule.root : nil)
            throw error
        }
        await noteCheckpoint(at: generation, seconds: (ContinuousClock.now - started).seconds)
        // Timed as a snapshot alone (the read), not with the disk's writes.
        if await state.restartsLeft > 0 { await keepShardSnapshot(plan.resharded(shards, at: generation), seconds: read.seconds) }
    }

    private func noteCheckpoint(at generation: UInt64, seconds: Double) { checkpoints.append((generation, seconds)) }

    /// Removes a checkpoint's folder that will never get its manifest: the run failed
    /// while its tiles or its manifest were written (a full disk, say), and `root` too
    /// when this checkpoint made it and nothing else is in it. After a lost worker the
    /// run goes on and the others may still be writing there: that folder stays, and is
    /// passed over as incomplete.
    private static func discardUnfinished(_ folder: String, root: String?) {
        guard !Files.exists(folder + "/" + Checkpoint.manifestName) else { return }
        try? FileManager.default.removeItem(atPath: folder)
        if let root { rmdir(root) }
    }

    /// The whole board, gathered from every tile.
    package func collect() async throws -> BitGrid {
        try await collect(rows: 0..<state.plan.tiling.shape.height)
    }

    /// Board rows `rows`, full width, gathered from the tiles they cross: a band at a
    /// time, a board of any size can be written without being held whole.
    package func collect(rows: Range<Int>) async throws -> BitGrid {
        try await cells(in: TileRect(x: 0, y: rows.lowerBound, width: state.plan.tiling.shape.width, height: rows.count))
    }

    /// The cells of `rect` (board coordinates), from the tiles it crosses.
    package func cells(in rect: TileRect) async throws -> BitGrid {
        guard case .cells(let cells, _) = try await read(.collect(area: rect)) else { throw TesseraError("no cells came back") }
        return cells
    }

    /// The states of `rect` (board coordinates), for a rule of more than two states.
    package func states(in rect: TileRect) async throws -> StateGrid {
        guard case .cells(_, let states?) = try await read(.collect(area: rect)) else {
            throw TesseraError("no states came back: \(state.plan.rule) has two")
        }
        return states
    }

    /// The live cells of a sparse plane spread over the workers as shards, in Golly's
    /// coordinates: each shard's live tiles, runs of them side by side in a part.
    package func liveParts() async throws -> [PlacedCells] {
        guard case .parts(let parts) = try await read(.readParts) else { throw TesseraError("no cells came back") }
        return parts.map(PlacedCells.init)
    }

    /// A rectangle holding every live cell of `rect` (board coordinates), within a dot of
    /// a coarse frame (at most 1024 dots a side, of the cells in `rect` only): workers
    /// report live bounds per worker, not per rectangle. Nil when none is alive there.
    /// Small rectangles are cheaper read whole than drawn.
    package func liveBounds(in rect: TileRect) async throws -> TileRect? {
        guard rect.width * rect.height > 1 << 22 else { return rect }
        let z = (max(rect.width, rect.height) + 1023) / 1024
        let view = Viewport(x: rect.x, y: rect.y, cellsPerDot: z, width: (rect.width + z - 1) / z, height: (rect.height + z - 1) / z)
        guard let dots = try await frame(view, clip: rect).liveBounds else { return nil }
        return TileRect(x: rect.x + dots.x * z, y: rect.y + dots.y * z, width: dots.width * z, height: dots.height * z)
            .intersection(rect)
    }

    /// Replaces every tile's cells with `cells` of its rectangle, at `generation`. A
    /// worker lost meanwhile: the tiles roll back, and every tile is loaded again.
    package func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        try await load(generation: generation, cells: cells, states: nil)
    }

    private func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid,
                      states: (@Sendable (TileRect) -> StateGrid)?) async throws {
        while case .interrupted(let why) = try await perform(.load(generation: generation, cells: cells, states: states)) {
            try await recover(from: why, at: state.generation)
        }
    }

    /// Replaces every tile's cells with its part of `board`, each in its state, at
    /// `generation` (a viewer's edit or rewind).
    package func load(generation: UInt64, states board: StateGrid) async throws {
        let cells = board.occupied
        var states: (@Sendable (TileRect) -> StateGrid)? = nil
        if state.plan.rule.steppedAsStates { states = { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) } }
        try await load(generation: generation, cells: { cells.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
                       states: states)
    }

    /// The whole board, each cell in its state (one plane for two-state rules).
    package func collectStates() async throws -> StateGrid {
        let shape = state.plan.tiling.shape
        guard state.plan.rule.steppedAsStates else { return StateGrid(ones: try await collect(), states: 2) }
        return try await states(in: TileRect(x: 0, y: 0, width: shape.width, height: shape.height))
    }

    /// Replaces every worker's tiles with those of `plan`: a head start's cells, the
    /// board cut again for workers that joined, or the shards dealt again.
    package func replan(_ plan: RunPlan) async throws {
        _ = try await perform(.replan(plan))
    }

    /// The tiles of the plan in force.
    package var tiling: Tiling { state.plan.tiling }


    /// Lets a presenter in its own process (`tessera presenter`) drive the run: answers
    /// its requests, in order, with this actor's operations until it says `finish`.
    package func serveRemotePresenter() async throws {
        for await (op, request) in presenterRequests {
            let reply: PresenterReply
            switch request {
            case .advance(let generations):
                try await advance(generations)
                reply = .advanced(generation: state.generation, population: state.population)
            case .frame(let viewport):
                reply = .frame(try await frame(viewport))
            case .collect(let rows):
                reply = .board(try await collect(rows: rows))
            case .load(let at, let board):
                try await load(generation: at) { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
                reply = .loaded(generation: state.generation, population: state.population)
            case .finish:
                return
            case .stateFrame(let viewport):
                let frame = try await stateFrame(viewport)
                reply = .stateFrame(dots: frame?.dots ?? [], states: frame?.states ?? 2)
            case .collectStates:
                reply = .states(try await collectStates())
            case .loadStates(let at, let board):
                try await load(generation: at, states: board)
                reply = .loaded(generation: state.generation, population: state.population)
            }
            if let presenter = state.presenter { pump.send(.presenterReply(op: op, reply), to: .member(presenter.peer)) }
        }
        if let failure = state.failure { throw failure }
    }

    /// A worker process this coordinator started ended.
    package func workerExited(pid: Int32, host: String? = nil, how: String) {
        apply(state.workerExited(pid: pid, host: host, how: how))
    }

    /// Stops the run (Ctrl-C, say): workers are told to abort.
    package func cancel(_ reason: String) { apply(state.cancel(reason)) }

    /// Tells the workers to leave; the run is over.
    package func shutdown() { apply(state.shutdown()) }

    /// What the run did so far.
    package var outcome: RunOutcome {
        var outcome = RunOutcome(seconds: secondsAdvancing, population: state.population, workers: summaries,
                                 generations: generationsRun, rebalances: rebalances, checkpoints: checkpoints, recoveries: recoveries,
                                 snapshots: snapshots, recuts: recuts)
        if state.plan.shards != nil { (outcome.sparseTiles, outcome.shardDeals) = (state.shardTiles, shardDeals) }
        return outcome
    }

    /// Generations advanced, less those a rollback made the run step again: the run's own.
    private var generationsRun: UInt64 {
        generationsAdvanced - min(Self.recomputed(recoveries), generationsAdvanced)
    }

    static func recomputed(_ recoveries: [Recovery]) -> UInt64 {
        recoveries.reduce(0) { $0 + $1.recomputed }
    }

    /// Where a run stands, for a progress line.
    package struct Status: Sendable {
        package let workers: Int
        /// Workers that joined so far, and whether all of them built their tiles.
        package let joined: Int
        package let ready: Bool
        /// Generations run so far, counted from the plan's: inside an advance, as far as
        /// every worker's heartbeat says.
        package let done: UInt64
        package let secondsAdvancing: Double
        package let computeSeconds: Double
        package let waitSeconds: Double
    }

    package var status: Status {
        let progress = state.progress
        let inFlight = advancing.map { min(max(progress.generation, $0.from), $0.to) - $0.from } ?? 0
        return Status(workers: workerCount, joined: state.members.count,
                      ready: (try? isReady()) == true,
                      done: generationsRun + inFlight,
                      secondsAdvancing: secondsAdvancing + (advancing.map { (ContinuousClock.now - $0.since).seconds } ?? 0),
                      computeSeconds: progress.computeSeconds, waitSeconds: progress.waitSeconds)
    }

    package var generation: UInt64 { state.generation }
    package var failure: TesseraError? { state.failure }
    package var population: Int { state.population }
    package var progress: RunProgress { state.progress }

    package var summaries: [WorkerSummary] {
        // A lone hello (a stranger's, without keys) makes a member that is never proven,
        // and never a worker of the run.
        state.members.indices.filter { state.members[$0].proven }.map { i in
            let member = state.members[i]
            return WorkerSummary(index: i, pid: member.hello.pid, host: member.hello.host, tiles: member.tiles,
                                 report: member.report)
        }
    }

}
