import TesseraCore
import TesseraWire

/// Everything the coordinator knows and decides, as a value: who the workers are, where
/// the tiles live, the one operation in flight and what its answers have gathered.
///
/// Its transitions are pure: a message, a tick or a request goes in, the state changes
/// and the effects to carry out come back (messages to send, an operation finished, a
/// line to log). `Coordinator` is the thin actor that feeds it from sockets and timers
/// and carries out its effects; this type is tested without either
/// (TesseraClusterTests), as swift-distributed-actors tests its ClusterShellState.
///
/// Trust: a worker's answer counts only for an operation in flight (by its number),
/// from the worker that owns the tile it names, once. A peer becomes a worker only by
/// saying hello and then proving it is alive with a heartbeat, while the run gathers
/// workers; a silent one loses its place. Anything else is refused with a log line and
/// changes nothing.
package struct CoordinatorState {
    package struct Settings: Sendable {
        package let plan: RunPlan
        package let workers: Int
        /// How long a worker (or the presenter) may go unheard before it counts as lost.
        package let silence: Duration
        /// When gathering gives up.
        package let connectDeadline: ContinuousClock.Instant
        /// Whether a presenter in its own process may drive the run.
        package let servesPresenter: Bool

        package init(plan: RunPlan, workers: Int, silence: Duration, connectDeadline: ContinuousClock.Instant,
                     servesPresenter: Bool) {
            (self.plan, self.workers, self.silence) = (plan, workers, silence)
            (self.connectDeadline, self.servesPresenter) = (connectDeadline, servesPresenter)
        }
    }

    package enum Phase: Equatable, Sendable {
        /// Waiting for workers to say hello.
        case gathering
        /// Tiles assigned; waiting for every worker to build them.
        case preparing
        case idle
        /// An operation is in flight.
        case busy
        case finished
    }

    /// What the shell asks of the cluster.
    package enum Request {
        case advance(generations: UInt64)
        /// The dots of a viewport, of the cells within `clip` only when given.
        case frame(Viewport, clip: TileRect? = nil)
        case collect(area: TileRect)
        /// Every shard's live cells, on a sparse plane spread over the workers.
        case readParts
        /// Every tile's cells replaced by its rectangle of `cells`.
        /// Each tile's cells, and their states where the rule has more than two.
        case load(generation: UInt64, cells: @Sendable (TileRect) -> BitGrid, states: (@Sendable (TileRect) -> StateGrid)? = nil)
        /// New tiles (or shards) for every worker, built from `plan` (a head start's
        /// cells, the board cut again, the shards dealt again): the run's start and its
        /// checkpoints no longer stand in for them (`rollBack`).
        case replan(RunPlan)
        /// Every tile dealt afresh from `plan` after a loss (`rollBack`'s choice): the
        /// tiles are the ones they were.
        case rollBack(RunPlan)
        /// Tiles move to other workers (by index), cells, generation and all.
        case move([TileID: Int])
        /// Every worker writes its tiles' cells into `folder`.
        case checkpoint(folder: String)
        /// Every worker keeps its tiles' cells in memory, and its buddy a copy.
        case snapshot
        /// Every tile rolls back to the last in-memory snapshot, built by the worker that
        /// snapshotted it, or by its buddy if that one is gone.
        case restore

        /// Whether it deals every tile afresh (a rollback, or new tiles): the one kind of
        /// request that may begin while a worker lost between requests still holds tiles.
        var rollsBack: Bool {
            switch self {
            case .replan, .rollBack, .restore: true
            default: false
            }
        }

        /// Whether it can be asked of a sparse plane spread over the workers as shards,
        /// which are read as parts, not rectangles, and do not move yet.
        var suitsShards: Bool {
            switch self {
            case .advance, .frame, .readParts, .replan, .rollBack: true
            case .collect, .load, .move, .checkpoint, .snapshot, .restore: false
            }
        }
    }

    /// What a finished request yields.
    package enum Answer: Equatable, Sendable {
        case advanced
        /// A frame's dots, and each dot's lowest state but 0 where the rule has more than two.
        case frame(BitGrid, states: [UInt8]?)
        /// Cells in any state but 0, and their states where the rule has more than two.
        case cells(BitGrid, states: StateGrid?)
        /// The shards' live cells, in Golly's coordinates.
        case parts([Overlay])
        case loaded
        case replanned
        case moved
        /// Each tile file's checksum.
        case checkpointed([TileID: UInt64])
        case snapshotted
        /// A worker was lost (`why`): the others stopped where they were, and the tiles
        /// must be rolled back to a snapshot before the run goes on.
        case interrupted(String)
    }

    package enum Effect: Equatable, Sendable {
        case send(Message, to: PeerID)
        /// Every worker built its tiles: the run can start.
        case prepared
        /// The request in flight finished.
        case completed(Answer)
        /// The run failed (or was stopped): whatever waits fails with this.
        case failed(TesseraError)
        /// A presenter process asks for something; the shell serves it and replies.
        case presenter(op: UInt64, PresenterRequest)
        case log(String)
        /// A line about a refused message: a peer may send those as often as it likes,
        /// so they are counted rather than each logged (`Wire.logRefusal`).
        case refused(String)
    }

    /// A worker in the run; its index in `members` is its worker number.
    package struct Member: Sendable {
        package let peer: PeerID
        package let hello: Hello
        package var lastHeard: ContinuousClock.Instant
        /// Heard since its hello: a live worker, not a lone stray message.
        package var proven = false
        /// It asked to leave (SIGTERM): its tiles move to others, then it is told to go.
        package var leaving = false
        /// It left, or went silent holding no tile: it takes no part any more, and its
        /// place goes at the next rehoming (worker numbers change only then).
        package var gone = false
        package var tiles: [TileID] = []
        /// Its shard of a sparse plane (its index in the `ShardMap`), in place of tiles.
        package var shard: Int?
        package var report = WorkerReport()
        package var progress = RunProgress(generation: 0)
    }

    /// The operation in flight: what it is, the answers it still waits for, and what it
    /// has gathered so far. Answers are taken in place (`take`), so a frame's dots and a
    /// read's cells grow in one grid, never copied.
    struct Operation {
        enum Kind {
            /// Waiting for every worker to build (or relink) its tiles; then `answer`
            /// completes the request in flight, or, with none, the run can start.
            case prepare(answer: Answer?)
            case advance(generations: UInt64)
            case frame(viewport: Viewport)
            case collect(area: TileRect)
            case readParts
            case load(generation: UInt64)
            /// Gathering the moving tiles from the workers that give them up.
            case handOff(moves: [TileID: Int])
            case checkpoint
            /// Waiting for every host to have its snapshot and its buddy's copies (see `snapshotLimit`).
            case snapshot(taking: MemorySnapshot)
            /// A worker was lost mid-advance: waiting for the others to stop.
            case halt(why: String)
        }

        /// The request's number, which every answer echoes (0 while tiles are built).
        let op: UInt64
        var kind: Kind
        /// The workers (by index) that owe an answer.
        var members: Set<Int> = []
        /// The tiles that owe an answer.
        var tiles: Set<TileID> = []
        /// A frame's dots, or the cells of a read.
        var grid: BitGrid?
        /// The states of a read, for a rule of more than two.
        var cellStates: StateGrid?
        /// A frame's dots in states (lowest but 0), for a rule of more than two.
        var frameStates: [UInt8]?
        /// The shards' parts read so far.
        var parts: [Overlay] = []
        /// The tiles handed off so far.
        var states: [TileID: TileState] = [:]
        /// Each tile file's checksum so far.
        var sums: [TileID: UInt64] = [:]

        var isGathered: Bool { members.isEmpty && tiles.isEmpty }

        /// Takes worker `index`'s answer to `op`: false where none is owed (a stray).
        mutating func take(member index: Int, op: UInt64) -> Bool { self.op == op && members.remove(index) != nil }

        /// Takes `tile`'s answer to `op`: false where none is owed.
        mutating func take(tile: TileID, op: UInt64) -> Bool { self.op == op && tiles.remove(tile) != nil }
    }

    /// How many peers may wait to prove themselves while the run gathers.
    static let maxUnproven = 64

    /// How long an in-memory snapshot may wait for its copies before the run gives up on
    /// it and goes on: far longer than one takes (63 ms for a 16384² torus on two
    /// workers), so only one that can never complete is cut short, rather than hanging
    /// the run.
    package static let snapshotLimit = Duration.seconds(60)

    /// How long an advance may wait for its slowest worker to come a round further,
    /// while that worker still beats, before it counts as lost: far longer than a round
    /// takes (a 16384² tile steps 16 generations in about 0.2 s), so only a stuck one (a
    /// halo strip that never comes, a bug) is cut off, rather than hanging the run.
    package static let stallLimit = Duration.seconds(60)

    /// How long a checkpoint or a load, which move whole boards, may wait for a worker
    /// that still beats to do its part: far longer than that takes (a 16384² torus, 32
    /// MiB, is written in about 0.1 s), so only a disk that hangs (a network file system
    /// whose server is gone) or a bug is cut off, rather than hanging the run. A frame, a
    /// read of cells or a hand-off waits `stallLimit`.
    package static let bulkLimit = Duration.seconds(600)

    package let settings: Settings
    package internal(set) var phase = Phase.gathering
    package internal(set) var members: [Member] = []
    /// The presenter process driving the run, once it said hello, and whether it was welcomed.
    package internal(set) var presenter: (peer: PeerID, lastHeard: ContinuousClock.Instant, welcomed: Bool)?
    /// The generation every tile has reached.
    package internal(set) var generation: UInt64
    package internal(set) var failure: TesseraError?
    var operation: Operation?
    /// The pids of workers that left the run: their exits are no failure.
    var departed: Set<UInt32> = []
    /// How many lost workers the run may still survive (`--max-restarts`), from the
    /// first worker started: one lost before its tiles were built costs a restart too.
    package var restartsLeft = 0
    /// How many workers the run gathers before it deals the tiles: `settings.workers`,
    /// less those started for it that were lost meanwhile.
    package internal(set) var awaitedWorkers: Int
    /// A worker lost while nothing ran: the run rolls back before it goes on.
    package internal(set) var lostWhileIdle: String?
    /// The newest in-memory snapshot every host completed, if the board has not been
    /// replaced since.
    package internal(set) var memorySnapshot: MemorySnapshot?
    var lastOp: UInt64 = 0

    package init(_ settings: Settings) {
        self.settings = settings
        generation = settings.plan.generation
        plan = settings.plan
        awaitedWorkers = settings.workers
    }

    /// What the workers run: the settings' plan, until a `replan`.
    package internal(set) var plan: RunPlan
    /// On shards: the map they were last dealt by.
    package internal(set) var shardMap: ShardMap?
    /// The generation the slowest worker of the advance in flight had reached, and when
    /// it was first seen there (see `stallLimit`).
    var stall: (generation: UInt64, since: ContinuousClock.Instant)?
    /// The operation in flight and the first tick that saw it waiting: how long a
    /// snapshot, a checkpoint or another gathering has waited (see `waited`).
    var waitingSince: (op: UInt64, since: ContinuousClock.Instant)?
    /// The epoch of the latest assignments (`Assignment.epoch`): one more for each round
    /// of them, so strips sent under an earlier one are known for what they are.
    package internal(set) var epoch: UInt64 = 0
    /// Whether the tiles are no longer the run's first (a head start handed over, or the
    /// board was cut or the shards dealt again).
    package internal(set) var replanned = false
    /// The run's secret for its halo links, in every assignment (`HaloToken`).
    package let haloToken = HaloToken.random()
    /// The worker that hosts each tile, in `plan.tiling.tiles` order.
    package internal(set) var owners: [Int] = []

    package func owner(of tile: TileID) -> Int { owners[tile.row * plan.tiling.columns + tile.column] }

    /// Each tile's compute seconds on its present worker, as of the last advance.
    package var tileSeconds: [TileID: Double] {
        members.reduce(into: [:]) { all, member in all.merge(member.report.tileSeconds) { $1 } }
    }

    package var population: Int {
        members.reduce(0) { $0 + $1.report.populations.values.reduce(0, +) + ($1.report.shard?.population ?? 0) }
    }

    /// Whether `population` counts every tile: a soup's tiles are counted only by their
    /// workers, in their reports after an advance, and so are shards.
    package var knowsPopulation: Bool {
        members.allSatisfy { $0.tiles.count == $0.report.populations.count && ($0.shard == nil || $0.report.shard != nil) }
    }

    /// The workers (by index) that host a shard and are still in the run.
    package var shardHosts: [Int] { members.indices.filter { members[$0].shard != nil && !members[$0].gone } }

    /// Whether worker `index` holds part of the board: tiles, or a shard.
    package func holdsBoard(_ index: Int) -> Bool { !members[index].tiles.isEmpty || members[index].shard != nil }

    /// On a sparse plane spread over the workers, as of the last advance: the live
    /// cells' bounds in Golly's coordinates; nil when none is alive.
    package var shardBounds: CellBounds? {
        CellBounds.enclosing(members.compactMap(\.report.shard?.bounds))
    }

    /// Tiles present on the shards, as of the last advance.
    package var shardTiles: Int { members.reduce(0) { $0 + ($1.report.shard?.tiles ?? 0) } }


    /// How far the workers have come inside the advance in flight (their heartbeats say).
    package var progress: RunProgress {
        let proven = members.filter(\.proven)
        return RunProgress(generation: proven.map(\.progress.generation).min() ?? generation,
                        computeSeconds: proven.reduce(0) { $0 + $1.progress.computeSeconds },
                        waitSeconds: proven.reduce(0) { $0 + $1.progress.waitSeconds })
    }

    package func describe(_ index: Int) -> String {
        let member = members[index]
        let tiles = member.tiles.map(\.description).joined(separator: " ")
        let holds = member.shard.map { ", shard \($0)" } ?? (tiles.isEmpty ? "" : ", tiles \(tiles)")
        return "worker \(index) (pid \(member.hello.pid) on \(member.hello.host)\(holds))"
    }

    // MARK: Requests

    /// Starts `request`. Throws if the run is over or another request is in flight.
    package mutating func begin(_ request: Request) throws -> [Effect] {
        if let failure { throw failure }
        switch phase {
        case .idle: break
        case .busy: throw TesseraError("the coordinator is busy: one operation at a time")
        case .finished: throw TesseraError("the run is over")
        case .gathering, .preparing: throw TesseraError("the workers are not ready yet")
        }
        if plan.shards != nil, !request.suitsShards {
            throw TesseraError("a sparse plane spread over workers is read as parts and does not move yet",
                               fix: "give --workers 0 to run it in this process")
        }
        if let lostWhileIdle, !request.rollsBack {
            // The lost worker's tiles answer nothing: the tiles roll back first.
            return [.completed(.interrupted(lostWhileIdle))]
        }
        lastOp += 1
        let op = lastOp
        switch request {
        case .advance(let generations):
            guard generation.addingReportingOverflow(generations).overflow == false else {
                throw TesseraError("generation \(generation) + \(generations) is past the last generation Tessera counts (2^64 - 1)",
                                   fix: "run fewer generations")
            }
            let hosts = members.indices.filter(holdsBoard)
            operation = Operation(op: op, kind: .advance(generations: generations), members: Set(hosts))
            (phase, stall) = (.busy, nil)
            return hosts.map { .send(.start(op: op, generations: generations), to: members[$0].peer) }
        case .frame(let viewport, let clip):
            let dots = BitGrid(width: viewport.width, height: viewport.height)
            if plan.shards != nil {
                // Each shard draws the whole viewport from its tiles in view.
                let hosts = shardHosts
                guard !hosts.isEmpty else { return [.completed(.frame(dots, states: nil))] }
                operation = Operation(op: op, kind: .frame(viewport: viewport), members: Set(hosts), grid: dots)
                phase = .busy
                return hosts.map { .send(.frameRequest(op: op, viewport, clip: nil), to: members[$0].peer) }
            }
            operation = Operation(op: op, kind: .frame(viewport: viewport), tiles: Set(plan.tiling.tiles), grid: dots)
            if plan.rule.states > 2, clip == nil { operation!.frameStates = [UInt8](repeating: 0, count: viewport.width * viewport.height) }
            phase = .busy
            return members.filter { !$0.tiles.isEmpty }.map { .send(.frameRequest(op: op, viewport, clip: clip), to: $0.peer) }
        case .collect(let area):
            let shape = plan.tiling.shape
            guard area.x >= 0, area.y >= 0, area.x + area.width <= shape.width, area.y + area.height <= shape.height else {
                throw TesseraError("\(area.width)x\(area.height) cells at (\(area.x),\(area.y)) are outside the \(shape.width)x\(shape.height) board")
            }
            let cells = BitGrid(width: area.width, height: area.height)
            let states = plan.rule.steppedAsStates ? StateGrid(width: area.width, height: area.height, states: plan.rule.states) : nil
            let crossed = Set(plan.tiling.tiles.filter { plan.tiling.rect(of: $0).intersection(area) != nil })
            guard !crossed.isEmpty else { return [.completed(.cells(cells, states: states))] }
            operation = Operation(op: op, kind: .collect(area: area), tiles: crossed, grid: cells)
            operation!.cellStates = states
            phase = .busy
            return members.filter { !crossed.isDisjoint(with: $0.tiles) }.map { .send(.collect(op: op, area: area), to: $0.peer) }
        case .readParts:
            let hosts = shardHosts
            guard !hosts.isEmpty else { return [.completed(.parts([]))] }
            operation = Operation(op: op, kind: .readParts, members: Set(hosts))
            phase = .busy
            return hosts.map { .send(.readParts(op: op), to: members[$0].peer) }
        case .load(let at, let cells, let states):
            memorySnapshot = nil
            operation = Operation(op: op, kind: .load(generation: at), tiles: Set(plan.tiling.tiles))
            phase = .busy
            var effects: [Effect] = []
            for index in members.indices {
                for tile in members[index].tiles {
                    let grid = cells(plan.tiling.rect(of: tile))
                    // Known now; the next report would come only with the next step.
                    members[index].report.populations[tile] = grid.population
                    let tileStates = states?(plan.tiling.rect(of: tile))
                    effects.append(.send(.load(op: op, TileCells(tile: tile, generation: at, cells: grid, states: tileStates)),
                                         to: members[index].peer))
                }
            }
            return effects
        case .replan(let next), .rollBack(let next):
            let departing = compact()
            let active = members.indices.filter(isActive).count
            guard active > 0 else { throw TesseraError("no worker is left to run the tiles") }
            // More workers than tiles (one joined and the tiles were not cut again for
            // it, or --tiles chose them): the extra ones stay idle, as a joiner waits.
            if case .replan = request { replanned = true }
            plan = next
            generation = next.generation
            memorySnapshot = nil
            phase = .busy
            return departing + assign(answer: .replanned)
        case .checkpoint(let folder):
            operation = Operation(op: op, kind: .checkpoint, tiles: Set(plan.tiling.tiles))
            phase = .busy
            return members.filter { !$0.tiles.isEmpty }.map { .send(.checkpoint(op: op, folder: folder), to: $0.peer) }
        case .snapshot:
            return takeSnapshot(op: op)
        case .restore:
            return try restore()
        case .move(let moves):
            try checkMoves(moves)
            guard !moves.isEmpty else { return [.completed(.moved)] }
            operation = Operation(op: op, kind: .handOff(moves: moves), tiles: Set(moves.keys))
            phase = .busy
            return Dictionary(grouping: moves.keys, by: owner(of:)).sorted { $0.key < $1.key }.map { from, tiles in
                .send(.handOff(op: op, tiles: tiles.sorted()), to: members[from].peer)
            }
        }
    }
}

/// A snapshot every host completed: its generation, the worker (by inbox endpoint) that
/// snapshotted each tile, and the buddy that keeps each worker's copies.
package struct MemorySnapshot: Sendable, Equatable {
    package let generation: UInt64
    package let holders: [TileID: String]
    package let buddies: [String: String]
}
