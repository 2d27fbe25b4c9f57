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
        /// Every tile's cells replaced by its rectangle of `cells`.
        case load(generation: UInt64, cells: @Sendable (TileRect) -> BitGrid)
        /// New tiles for every worker, built from `plan` (the unbounded plane's window
        /// moved, or the board was cut again): the run's start and its checkpoints no
        /// longer stand in for them (`rollBack`).
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
    }

    /// What a finished request yields.
    package enum Answer: Equatable, Sendable {
        case advanced
        case frame(BitGrid)
        case cells(BitGrid)
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
        package var report = WorkerReport()
        package var progress = RunProgress(generation: 0)
    }

    /// The operation in flight: what it is, the answers it still waits for, and what it
    /// has gathered so far. Answers are taken in place (`take`), so a frame's dots and a
    /// read's cells grow in one grid, never copied.
    private struct Operation {
        enum Kind {
            /// Waiting for every worker to build (or relink) its tiles; then `answer`
            /// completes the request in flight, or, with none, the run can start.
            case prepare(answer: Answer?)
            case advance(generations: UInt64)
            case frame(viewport: Viewport)
            case collect(area: TileRect)
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
    package private(set) var phase = Phase.gathering
    package private(set) var members: [Member] = []
    /// The presenter process driving the run, once it said hello, and whether it was welcomed.
    package private(set) var presenter: (peer: PeerID, lastHeard: ContinuousClock.Instant, welcomed: Bool)?
    /// The generation every tile has reached.
    package private(set) var generation: UInt64
    package private(set) var failure: TesseraError?
    private var operation: Operation?
    /// The pids of workers that left the run: their exits are no failure.
    private var departed: Set<UInt32> = []
    /// How many lost workers the run may still survive (`--max-restarts`), from the
    /// first worker started: one lost before its tiles were built costs a restart too.
    package var restartsLeft = 0
    /// How many workers the run gathers before it deals the tiles: `settings.workers`,
    /// less those started for it that were lost meanwhile.
    package private(set) var awaitedWorkers: Int
    /// A worker lost while nothing ran: the run rolls back before it goes on.
    package private(set) var lostWhileIdle: String?
    /// The newest in-memory snapshot every host completed, if the board has not been
    /// replaced since.
    package private(set) var memorySnapshot: MemorySnapshot?
    private var lastOp: UInt64 = 0

    package init(_ settings: Settings) {
        self.settings = settings
        generation = settings.plan.generation
        plan = settings.plan
        awaitedWorkers = settings.workers
    }

    /// What the workers run: the settings' plan, until the unbounded plane's window moves.
    package private(set) var plan: RunPlan
    /// The generation the slowest worker of the advance in flight had reached, and when
    /// it was first seen there (see `stallLimit`).
    private var stall: (generation: UInt64, since: ContinuousClock.Instant)?
    /// The operation in flight and the first tick that saw it waiting: how long a
    /// snapshot, a checkpoint or another gathering has waited (see `waited`).
    private var waitingSince: (op: UInt64, since: ContinuousClock.Instant)?
    /// The epoch of the latest assignments (`Assignment.epoch`): one more for each round
    /// of them, so strips sent under an earlier one are known for what they are.
    package private(set) var epoch: UInt64 = 0
    /// The run's secret for its halo links, in every assignment (`HaloToken`).
    package let haloToken = HaloToken.random()
    /// The worker that hosts each tile, in `plan.tiling.tiles` order.
    package private(set) var owners: [Int] = []

    package func owner(of tile: TileID) -> Int { owners[tile.row * plan.tiling.columns + tile.column] }

    /// Each tile's compute seconds on its present worker, as of the last advance.
    package var tileSeconds: [TileID: Double] {
        members.reduce(into: [:]) { all, member in all.merge(member.report.tileSeconds) { $1 } }
    }

    package var population: Int { members.reduce(0) { $0 + $1.report.populations.values.reduce(0, +) } }

    /// Whether `population` counts every tile: a soup's tiles are counted only by their
    /// workers, in their reports after an advance.
    package var knowsPopulation: Bool { members.allSatisfy { $0.tiles.count == $0.report.populations.count } }

    /// On the unbounded plane, as of the last advance: the smallest rectangle (board
    /// coordinates) holding every live cell; nil when none is.
    package var liveBounds: TileRect? {
        var found: TileRect? = nil
        for part in members.compactMap(\.report.liveBounds) { found = found.map { $0.union(part) } ?? part }
        return found
    }

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
        return "worker \(index) (pid \(member.hello.pid) on \(member.hello.host)\(tiles.isEmpty ? "" : ", tiles \(tiles)"))"
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
            let hosts = members.indices.filter { !members[$0].tiles.isEmpty }
            operation = Operation(op: op, kind: .advance(generations: generations), members: Set(hosts))
            (phase, stall) = (.busy, nil)
            return hosts.map { .send(.start(op: op, generations: generations), to: members[$0].peer) }
        case .frame(let viewport, let clip):
            operation = Operation(op: op, kind: .frame(viewport: viewport), tiles: Set(plan.tiling.tiles),
                                  grid: BitGrid(width: viewport.width, height: viewport.height))
            phase = .busy
            return members.filter { !$0.tiles.isEmpty }.map { .send(.frameRequest(op: op, viewport, clip: clip), to: $0.peer) }
        case .collect(let area):
            let shape = plan.tiling.shape
            guard area.x >= 0, area.y >= 0, area.x + area.width <= shape.width, area.y + area.height <= shape.height else {
                throw TesseraError("\(area.width)x\(area.height) cells at (\(area.x),\(area.y)) are outside the \(shape.width)x\(shape.height) board")
            }
            let cells = BitGrid(width: area.width, height: area.height)
            let crossed = Set(plan.tiling.tiles.filter { plan.tiling.rect(of: $0).intersection(area) != nil })
            guard !crossed.isEmpty else { return [.completed(.cells(cells))] }
            operation = Operation(op: op, kind: .collect(area: area), tiles: crossed, grid: cells)
            phase = .busy
            return members.filter { !crossed.isDisjoint(with: $0.tiles) }.map { .send(.collect(op: op, area: area), to: $0.peer) }
        case .load(let at, let cells):
            memorySnapshot = nil
            operation = Operation(op: op, kind: .load(generation: at), tiles: Set(plan.tiling.tiles))
            phase = .busy
            var effects: [Effect] = []
            for index in members.indices {
                for tile in members[index].tiles {
                    let grid = cells(plan.tiling.rect(of: tile))
                    // Known now; the next report would come only with the next step.
                    members[index].report.populations[tile] = grid.population
                    effects.append(.send(.load(op: op, TileCells(tile: tile, generation: at, cells: grid)), to: members[index].peer))
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

    // MARK: Messages

    /// Takes a message from `peer`, which arrived at `now`.
    package mutating func receive(_ message: ToCoordinator, from peer: PeerID, now: ContinuousClock.Instant) -> [Effect] {
        guard phase != .finished else { return [] }
        if let index = members.firstIndex(where: { $0.peer == peer }) {
            members[index].lastHeard = now
            return fromMember(index, message)
        }
        if let presenter, presenter.peer == peer {
            self.presenter!.lastHeard = now
            return fromPresenter(message)
        }
        return fromStranger(message, peer: peer, now: now)
    }

    private mutating func fromStranger(_ message: ToCoordinator, peer: PeerID, now: ContinuousClock.Instant) -> [Effect] {
        switch message {
        case .hello(let hello):
            guard phase != .finished else { return [] }
            guard members.filter({ !$0.proven }).count < Self.maxUnproven, members.count < maxWorkers else {
                return [.refused("refused a hello from pid \(hello.pid) on \(hello.host): too many unproven workers")]
            }
            guard !members.contains(where: { $0.hello.endpoint == hello.endpoint }) else {
                return [.send(.refused(reason: "another worker already has the endpoint \(hello.endpoint)"), to: peer),
                        .refused("refused worker pid \(hello.pid) on \(hello.host): another worker already has \(hello.endpoint)")]
            }
            let holders = members.indices.filter(isActive).count
            members.append(Member(peer: peer, hello: hello, lastHeard: now))
            guard phase != .gathering else { return [] }
            // Tiles move whole: with one each already, a newcomer has none to take until
            // the coordinator cuts the board again (`Coordinator.cutTilesForJoiners`).
            guard plan.tiling.tiles.count > holders else {
                return [.log("worker pid \(hello.pid) on \(hello.host) joins the run: its \(plan.tiling.tiles.count) tiles are one per worker already, so the board is cut again for it after this stretch (with --no-balance it stays idle)")]
            }
            return [.log("worker pid \(hello.pid) on \(hello.host) joins the run: it gets tiles when tiles next move")]
        case .presenterHello:
            guard settings.servesPresenter else {
                return [.send(.refused(reason: "this coordinator serves no presenter: start it with --external-presenter"), to: peer),
                        .refused("refused a presenter: this run was not started with --external-presenter")]
            }
            guard presenter == nil else {
                return [.send(.refused(reason: "another presenter already drives this run"), to: peer),
                        .refused("refused a second presenter")]
            }
            presenter = (peer, now, false)
            return phase == .gathering || phase == .preparing ? [] : welcomePresenter()
        case .heartbeat:
            // A worker's pump starts beating before its hello arrives: not worth a line.
            return []
        default:
            return [.refused("refused a \(message.kind) message from an unknown peer")]
        }
    }

    private mutating func fromMember(_ index: Int, _ message: ToCoordinator) -> [Effect] {
        switch message {
        case .heartbeat(let progress):
            members[index].progress = progress
            guard !members[index].proven else { return [] }
            members[index].proven = true
            return phase == .gathering ? assignIfGathered() : []
        case .ready:
            return prepared(by: index) ?? [.log("ignored an unexpected 'ready' from \(describe(index))")]
        case .done(let op, _) where { if case .halt? = operation?.kind, operation?.op == op { true } else { false } }():
            // It finished before the halt reached it: as good as stopped.
            return stopped(index)
        case .halted(let op):
            guard case .halt? = operation?.kind, operation?.op == op else { return stray(message, from: index) }
            return stopped(index)
        case .done(let op, let report):
            guard case .advance(let generations)? = operation?.kind, operation?.take(member: index, op: op) == true else {
                return stray(message, from: index)
            }
            members[index].report = report
            guard operation!.isGathered else { return [] }
            generation += generations
            return complete(.advanced)
        case .frameTile(let op, let part):
            guard case .frame(let viewport)? = operation?.kind, members[index].tiles.contains(part.tile),
                  operation?.take(tile: part.tile, op: op) == true else {
                return stray(message, from: index)
            }
            guard part.x + part.dots.width <= viewport.width, part.y + part.dots.height <= viewport.height else {
                return fail("\(describe(index)) sent \(part.dots.width)x\(part.dots.height) dots at (\(part.x),\(part.y)) for a \(viewport.width)x\(viewport.height) frame")
            }
            operation!.grid!.formUnion(part.dots, atX: part.x, y: part.y)
            guard operation!.isGathered else { return [] }
            return complete(.frame(operation!.grid!))
        case .cells(let op, let part):
            guard case .collect(let area)? = operation?.kind, members[index].tiles.contains(part.tile),
                  operation?.take(tile: part.tile, op: op) == true else {
                return stray(message, from: index)
            }
            guard let inside = plan.tiling.rect(of: part.tile).intersection(area),
                  part.cells.width == inside.width, part.cells.height == inside.height else {
                return fail("\(describe(index)) sent cells of tile \(part.tile) that do not fit \(area.width)x\(area.height) cells at (\(area.x),\(area.y))")
            }
            part.cells.copy(into: &operation!.grid!, atX: inside.x - area.x, y: inside.y - area.y)
            guard operation!.isGathered else { return [] }
            return complete(.cells(operation!.grid!))
        case .loaded(let op, let tile):
            guard case .load(let at)? = operation?.kind, members[index].tiles.contains(tile),
                  operation?.take(tile: tile, op: op) == true else {
                return stray(message, from: index)
            }
            guard operation!.isGathered else { return [] }
            generation = at
            return complete(.loaded)
        case .tileState(let op, let state):
            guard case .handOff(let moves)? = operation?.kind, owner(of: state.tile) == index,
                  operation?.take(tile: state.tile, op: op) == true else {
                return stray(message, from: index)
            }
            let rect = plan.tiling.rect(of: state.tile)
            guard state.cells.width == rect.width, state.cells.height == rect.height, state.generation == generation else {
                return fail("\(describe(index)) handed off tile \(state.tile) as \(state.cells.width)x\(state.cells.height) cells at generation \(state.generation), expected \(rect.width)x\(rect.height) at \(generation)")
            }
            operation!.states[state.tile] = state
            guard operation!.isGathered else { return [] }
            return rehome(moves, operation!.states)
        case .checkpointed(let op, let tile, let checksum):
            guard case .checkpoint? = operation?.kind, members[index].tiles.contains(tile),
                  operation?.take(tile: tile, op: op) == true else {
                return stray(message, from: index)
            }
            operation!.sums[tile] = checksum
            guard operation!.isGathered else { return [] }
            return complete(.checkpointed(operation!.sums))
        case .snapshotted(let op):
            guard case .snapshot(let taking)? = operation?.kind, operation?.take(member: index, op: op) == true else {
                return stray(message, from: index)
            }
            guard operation!.isGathered else { return [] }
            memorySnapshot = taking
            return complete(.snapshotted)
        case .leaving:
            guard !members[index].leaving, !members[index].gone else { return [] }
            if phase == .gathering {
                let gone = members.remove(at: index)
                return [.send(.shutdown, to: gone.peer), .log("worker pid \(gone.hello.pid) on \(gone.hello.host) left before the run started")]
            }
            guard members[index].tiles.isEmpty else {
                guard members.indices.contains(where: { $0 != index && isActive($0) }) else {
                    return [.send(.stays(reason: "no other worker could take its tiles"), to: members[index].peer),
                            .log("\(describe(index)) asked to leave, but no other worker could take its tiles: it stays")]
                }
                members[index].leaving = true
                return [.log("\(describe(index)) asked to leave: its tiles move to the others when the workers next stop")]
            }
            return [.send(.shutdown, to: members[index].peer), .log("\(describe(index)) left")] + forget(index)
        case .failure(let reason):
            return fail("\(describe(index)): \(reason)")
        default:
            return [.refused("refused a \(message.kind) message from \(describe(index))")]
        }
    }

    /// An answer for no operation in flight, a tile its sender does not own, or one
    /// already counted.
    private func stray(_ message: ToCoordinator, from index: Int) -> [Effect] {
        [.log("ignored a stray \(message.kind) answer from \(describe(index)) (not for the operation in flight, or already counted)")]
    }

    private mutating func fromPresenter(_ message: ToCoordinator) -> [Effect] {
        switch message {
        case .heartbeat, .presenterHello:
            return []
        case .presenterRequest(let op, let request):
            guard presenter?.welcomed == true else {
                return [.refused("refused a presenter request before the run was ready")]
            }
            let shape = plan.tiling.shape
            if case .load(_, let board) = request, board.width != shape.width || board.height != shape.height {
                return fail("the presenter sent a \(board.width)x\(board.height) board for the \(shape.width)x\(shape.height) board")
            }
            return [.presenter(op: op, request)]
        default:
            return [.refused("refused a \(message.kind) message from the presenter")]
        }
    }

    private mutating func welcomePresenter() -> [Effect] {
        guard let presenter else { return [] }
        self.presenter!.welcomed = true
        let welcome = PresenterWelcome(tiling: plan.tiling, rule: plan.rule, generation: generation,
                                       population: population, workers: members.count)
        return [.send(.presenterWelcome(welcome), to: presenter.peer)]
    }

    /// Once enough workers proved themselves: gives each its tiles.
    private mutating func assignIfGathered() -> [Effect] {
        guard members.filter(\.proven).count == awaitedWorkers else { return [] }
        var effects: [Effect] = []
        // Those still unproven are not needed.
        for stray in members where !stray.proven {
            effects.append(.send(.refused(reason: "this run already has its \(awaitedWorkers) workers"), to: stray.peer))
        }
        members.removeAll { !$0.proven }
        phase = .preparing
        return effects + assign(answer: nil)
    }

    /// Whether worker `index` may be given tiles: proven, staying, and not gone.
    package func isActive(_ index: Int) -> Bool {
        members[index].proven && !members[index].leaving && !members[index].gone
    }

    /// Whether `moves` may be made (see `checkMoves`).
    package func canMove(_ moves: [TileID: Int]) -> Bool { (try? checkMoves(moves)) != nil }

    /// Refuses moves of tiles that do not exist, to workers that may not take them, or
    /// that would leave a staying worker without a tile it had.
    private func checkMoves(_ moves: [TileID: Int]) throws {
        var counts = members.map { _ in 0 }
        for owner in owners { counts[owner] += 1 }
        for (tile, to) in moves {
            guard plan.tiling.tiles.contains(tile) else { throw TesseraError("there is no tile \(tile) to move") }
            guard members.indices.contains(to), isActive(to) else { throw TesseraError("worker \(to) cannot take tile \(tile)") }
            counts[owner(of: tile)] -= 1
            counts[to] += 1
        }
        if let idle = counts.indices.first(where: { counts[$0] == 0 && !members[$0].tiles.isEmpty && !members[$0].leaving }) {
            throw TesseraError("moving those tiles would leave \(describe(idle)) without one")
        }
    }

    /// Worker `index`, holding no tile, is out of the run: nothing waits for it any more.
    private mutating func forget(_ index: Int) -> [Effect] {
        members[index].gone = true
        return prepared(by: index) ?? []
    }

    /// Worker `index` needs no more waiting for while tiles are built (it is ready, or
    /// out of the run); nil when nothing waited for it. Once none is left, the request
    /// completes, or the run can start.
    private mutating func prepared(by index: Int) -> [Effect]? {
        guard case .prepare(let answer)? = operation?.kind, operation?.take(member: index, op: 0) == true else { return nil }
        guard operation!.isGathered else { return [] }
        if let answer { return complete(answer) }
        operation = nil
        phase = .idle
        return [.prepared] + (presenter.map { $0.welcomed } == false ? welcomePresenter() : [])
    }

    /// Drops the workers that are gone, and tells those that asked to leave and hold no
    /// tile any more to go: worker numbers close up. Only between operations.
    private mutating func compact() -> [Effect] {
        var effects: [Effect] = []
        for index in members.indices where members[index].leaving && members[index].tiles.isEmpty {
            effects += [.send(.shutdown, to: members[index].peer), .log("\(describe(index)) handed off its tiles and left")]
            members[index].gone = true
        }
        let kept = members.indices.filter { !members[$0].gone }
        guard kept.count < members.count else { return effects }
        for member in members where member.gone { departed.insert(member.hello.pid) }
        var number = Array(repeating: -1, count: members.count)
        for (new, old) in kept.enumerated() { number[old] = new }
        owners = owners.map { number[$0] }
        members = kept.map { members[$0] }
        return effects
    }

    /// The tiles of workers that asked to leave, each to the staying worker with the
    /// fewest tiles so far: what must move before anything else.
    package var departures: [TileID: Int] {
        var counts = members.map(\.tiles.count), moves: [TileID: Int] = [:]
        let staying = members.indices.filter(isActive)
        guard !staying.isEmpty else { return [:] }
        for index in members.indices where members[index].leaving {
            for tile in members[index].tiles {
                let to = staying.min { counts[$0] < counts[$1] }!
                moves[tile] = to
                counts[to] += 1
            }
        }
        return moves
    }

    /// Every moving tile is in hand: each worker learns the new hosts, and each new host
    /// gets its tiles. The run goes on once every worker linked its tiles again.
    private mutating func rehome(_ moves: [TileID: Int], _ states: [TileID: TileState]) -> [Effect] {
        for (tile, to) in moves {
            let from = owner(of: tile)
            owners[tile.row * plan.tiling.columns + tile.column] = to
            members[from].tiles.removeAll { $0 == tile }
            members[to].tiles.append(tile)
            members[to].tiles.sort()
            members[to].report.populations[tile] = members[from].report.populations.removeValue(forKey: tile)
            members[from].report.tileSeconds[tile] = nil
        }
        var effects = compact()
        let told = members.indices.filter { members[$0].proven }
        operation = Operation(op: 0, kind: .prepare(answer: .moved), members: Set(told))
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for index in told {
            effects.append(.send(.assign(assignment(of: index, start: .goesOn, endpoints: endpoints)), to: members[index].peer))
        }
        // By tile owner, not by the moves' worker numbers: those may have closed up.
        for tile in moves.keys.sorted() {
            effects.append(.send(.tileState(op: 0, states[tile]!), to: members[owner(of: tile)].peer))
        }
        return effects
    }

    /// Asks every worker that hosts tiles to snapshot them, and to send copies to the
    /// next such worker in a ring (its buddy). With fewer than two hosts there is nobody
    /// to keep a copy, and nothing is taken.
    private mutating func takeSnapshot(op: UInt64) -> [Effect] {
        let hosts = members.indices.filter { !members[$0].tiles.isEmpty && !members[$0].gone }
        guard hosts.count >= 2 else { return [.completed(.snapshotted)] }
        let endpoints = members.map(\.hello.endpoint)
        let endpoint = { (index: Int) in endpoints[index] }
        var holders: [TileID: String] = [:], buddies: [String: String] = [:]
        var effects: [Effect] = []
        for (position, index) in hosts.enumerated() {
            let buddy = hosts[(position + 1) % hosts.count], before = hosts[(position + hosts.count - 1) % hosts.count]
            for tile in members[index].tiles { holders[tile] = endpoint(index) }
            buddies[endpoint(index)] = endpoint(buddy)
            let order = SnapshotOrder(generation: generation, buddy: endpoint(buddy), keepsFor: endpoint(before),
                                      keeps: members[before].tiles, retains: memorySnapshot?.generation)
            effects.append(.send(.snapshot(op: op, order), to: members[index].peer))
        }
        operation = Operation(op: op, kind: .snapshot(taking: MemorySnapshot(generation: generation, holders: holders, buddies: buddies)),
                              members: Set(hosts))
        phase = .busy
        return effects
    }

    /// Whether the tiles are no longer the run's first (the unbounded plane's window
    /// moved, or the board was cut again).
    package private(set) var replanned = false

    /// Where a run that lost a worker rolls back to, best first.
    package enum RollBack: Sendable, Equatable {
        /// The in-memory snapshot, which every tile's holder or its buddy still has.
        case memorySnapshot(generation: UInt64)
        /// The present plan's start: the tiles are not the run's first any more, so
        /// neither the run's start nor a checkpoint of the first tiles stands in for them.
        case presentPlan
        /// The newest complete checkpoint on disk (`checkpoints`: the run writes them),
        /// else the run's start, which is as exact.
        case checkpointElseStart
        case runStart
    }

    /// Where a run that lost a worker now rolls back to.
    package func rollBack(checkpoints: Bool) -> RollBack {
        if let snapshot = memorySnapshot, restorePlan() != nil { return .memorySnapshot(generation: snapshot.generation) }
        if replanned { return .presentPlan }
        return checkpoints ? .checkpointElseStart : .runStart
    }

    /// Where each tile of the last snapshot can be rebuilt: on the worker that took it,
    /// or on its buddy if that one is gone; nil if both are.
    package func restorePlan() -> [TileID: String]? {
        guard let snapshot = memorySnapshot else { return nil }
        let present = Set(members.filter { !$0.gone && $0.proven }.map(\.hello.endpoint))
        var hosts: [TileID: String] = [:]
        for (tile, holder) in snapshot.holders {
            if present.contains(holder) {
                hosts[tile] = holder
            } else if let buddy = snapshot.buddies[holder], present.contains(buddy) {
                hosts[tile] = buddy
            } else {
                return nil
            }
        }
        return hosts
    }

    /// Rolls every tile back to the last snapshot where `restorePlan` says it can be
    /// rebuilt: each worker builds its tiles from memory, with no cells on the wire.
    private mutating func restore() throws -> [Effect] {
        guard let snapshot = memorySnapshot, let hosts = restorePlan() else {
            throw TesseraError("no in-memory snapshot survives the workers lost")
        }
        var effects = compact()
        let index = Dictionary(members.indices.map { (members[$0].hello.endpoint, $0) }, uniquingKeysWith: { a, _ in a })
        deal(plan.tiling.tiles.map { index[hosts[$0]!]! })
        generation = snapshot.generation
        let told = members.indices.filter { members[$0].proven && !members[$0].gone }
        operation = Operation(op: 0, kind: .prepare(answer: .replanned), members: Set(told))
        phase = .busy
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for member in told {
            effects.append(.send(.assign(assignment(of: member, start: .restored, endpoints: endpoints)), to: members[member].peer))
        }
        return effects
    }

    /// Makes `owners` (worker per tile, in `plan.tiling.tiles` order) the hosts, with
    /// every member's tiles and reports started afresh: what they reported was of the
    /// tiles before.
    private mutating func deal(_ owners: [Int]) {
        self.owners = owners
        for index in members.indices {
            members[index].tiles = []
            members[index].report.populations = [:]
            members[index].report.liveBounds = nil
            members[index].report.tileSeconds = [:]
        }
        for (i, tile) in plan.tiling.tiles.enumerated() { members[owners[i]].tiles.append(tile) }
    }

    /// Gives each worker its tiles of `plan`, and their cells when the plan cuts them.
    private mutating func assign(answer: Answer?) -> [Effect] {
        var effects: [Effect] = []
        let active = members.indices.filter(isActive)
        operation = Operation(op: 0, kind: .prepare(answer: answer), members: Set(active))
        deal(plan.owners(workers: active.count).map { active[$0] })
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for index in active {
            let rects = members[index].tiles.map(plan.tiling.rect(of:))
            // Each worker gets the pattern parts on its own tiles, and paints them.
            let overlays = plan.overlays.filter { o in rects.contains { !o.isEmpty(in: $0) } }
            let start = plan.cells == nil ? Assignment.Start.painted(soup: plan.soup, overlays: overlays) : .loaded
            effects.append(.send(.assign(assignment(of: index, start: start, endpoints: endpoints)), to: members[index].peer))
            for tile in members[index].tiles {
                let rect = plan.tiling.rect(of: tile)
                if let cells = plan.cells {
                    let grid = TileCells(tile: tile, generation: plan.generation, cells: cells(rect))
                    members[index].report.populations[tile] = grid.cells.population
                    effects.append(.send(.load(op: 0, grid), to: members[index].peer))
                } else if plan.soup == nil {
                    // Known now, from the pattern alone; the workers report after each advance.
                    members[index].report.populations[tile] = overlays.reduce(0) { $0 + $1.population(in: rect) }
                }
            }
        }
        return effects
    }

    /// Worker `index`'s part of the plan in force, at the generation the run is at, under
    /// the present epoch.
    private func assignment(of index: Int, start: Assignment.Start, endpoints: [String]) -> Assignment {
        Assignment(worker: index, tiling: plan.tiling, rule: plan.rule, halo: plan.halo, generation: generation, start: start,
                   endpoints: endpoints, owners: owners, epoch: epoch, haloToken: haloToken)
    }

    private mutating func complete(_ answer: Answer) -> [Effect] {
        operation = nil
        phase = .idle
        return [.completed(answer)]
    }

    // MARK: Time and events

    /// What the passing of time decides: workers that never came, peers gone silent.
    /// `lastHeard` is when the pump thread last heard a peer (it stamps every message
    /// as it arrives, so a backlog here never makes a live peer look silent).
    package mutating func tick(now: ContinuousClock.Instant, lastHeard: (PeerID) -> ContinuousClock.Instant?) -> [Effect] {
        func silent(_ peer: PeerID, since known: ContinuousClock.Instant) -> Bool {
            now - max(known, lastHeard(peer) ?? known) > settings.silence
        }
        var effects: [Effect] = []
        switch phase {
        case .finished:
            return []
        case .gathering:
            // A peer that said hello and went quiet gives its place back.
            let quiet = members.filter { silent($0.peer, since: $0.lastHeard) }
            for member in quiet {
                effects.append(.log("dropped worker pid \(member.hello.pid) on \(member.hello.host): it went silent before the run started"))
            }
            members.removeAll { member in quiet.contains { $0.peer == member.peer } }
            if now > settings.connectDeadline {
                let proven = members.filter(\.proven).count, missing = awaitedWorkers - proven
                return effects + fail("only \(proven) of \(awaitedWorkers) workers connected in time (\(missing) missing): start them with 'tessera worker --coordinator ENDPOINT', or check the network")
            }
        case .preparing, .idle, .busy:
            if let operation, case .snapshot(let taking) = operation.kind, waited(operation.op, now: now) > Self.snapshotLimit {
                // Every worker still beats, but some copy never came: the run goes on,
                // and the last whole snapshot stays the one to roll back to.
                let late = operation.members.sorted().map(describe).joined(separator: ", ")
                effects.append(.log("the in-memory snapshot of generation \(taking.generation) was not whole after \(Format.duration(Self.snapshotLimit.seconds)) (still waiting for \(late)): going on without it"))
                effects += complete(.snapshotted)
            }
            // Building huge tiles takes as long as it takes; a worker fails the run only
            // when it stops answering (its heartbeats come from its pump thread).
            // One that holds no tile (it joined, or handed its tiles off) just goes.
            for index in members.indices where members[index].tiles.isEmpty && !members[index].gone
                && silent(members[index].peer, since: members[index].lastHeard) {
                effects.append(.log("\(describe(index)) went silent holding no tile: it is out of the run"))
                effects += forget(index)
            }
            if let lost = members.indices.first(where: { !members[$0].gone && silent(members[$0].peer, since: members[$0].lastHeard) }) {
                return effects + lose(lost, "\(describe(lost)) stopped answering (no heartbeat for \(Format.duration(settings.silence.seconds))): it died or the network is down")
            }
            if let stuck = stuckWorker(now: now) {
                let why = "\(describe(stuck)) answered but came no further than generation \(members[stuck].progress.generation) for \(Format.duration(Self.stallLimit.seconds)): a tile of it is stuck"
                // Told to go, so that it leaves no process behind.
                return effects + [.send(.abort(reason: why), to: members[stuck].peer)] + lose(stuck, why)
            }
            if let late = lateWorker(now: now) {
                let why = "\(describe(late.index)) answered but did not finish its part of the \(late.what) in \(Format.duration(late.limit.seconds)): its disk or a tile of it is stuck"
                return effects + [.send(.abort(reason: why), to: members[late.index].peer)] + lose(late.index, why)
            }
        }
        if let presenter, silent(presenter.peer, since: presenter.lastHeard) {
            return effects + fail("the presenter stopped answering (no heartbeat for \(Format.duration(settings.silence.seconds)))")
        }
        let beat = Message.heartbeat(RunProgress(generation: generation))
        effects += members.map { .send(beat, to: $0.peer) }
        if let presenter { effects.append(.send(beat, to: presenter.peer)) }
        return effects
    }

    /// The worker of the advance in flight that has been the slowest, at the same
    /// generation, for longer than `stallLimit`; nil while the advance moves.
    private mutating func stuckWorker(now: ContinuousClock.Instant) -> Int? {
        guard case .advance? = operation?.kind,
              let slowest = operation?.members.filter({ !members[$0].gone }).min(by: { members[$0].progress.generation < members[$1].progress.generation })
        else {
            stall = nil
            return nil
        }
        let reached = members[slowest].progress.generation
        guard let stall, stall.generation == reached else {
            stall = (reached, now)
            return nil
        }
        guard now - stall.since > Self.stallLimit else { return nil }
        self.stall = nil
        return slowest
    }

    /// A worker that still owes its part of the checkpoint, frame, read, load or hand-off
    /// in flight after that operation's limit; nil while it is within it.
    private mutating func lateWorker(now: ContinuousClock.Instant) -> (index: Int, what: String, limit: Duration)? {
        guard let operation else { return nil }
        let owed: (what: String, limit: Duration)
        switch operation.kind {
        case .checkpoint: owed = ("checkpoint", Self.bulkLimit)
        case .frame: owed = ("frame", Self.stallLimit)
        case .collect: owed = ("read of cells", Self.stallLimit)
        case .load: owed = ("load", Self.bulkLimit)
        case .handOff: owed = ("hand-off", Self.stallLimit)
        case .prepare, .advance, .snapshot, .halt: return nil
        }
        guard waited(operation.op, now: now) > owed.limit,
              let late = members.indices.first(where: { !members[$0].gone && !operation.tiles.isDisjoint(with: members[$0].tiles) })
        else { return nil }
        return (late, owed.what, owed.limit)
    }

    /// How long operation `op` has waited: since the first tick that saw it (zero at
    /// that tick). Operations are numbered afresh, so a new one starts from zero.
    private mutating func waited(_ op: UInt64, now: ContinuousClock.Instant) -> Duration {
        guard let waitingSince, waitingSince.op == op else {
            waitingSince = (op, now)
            return .zero
        }
        return now - waitingSince.since
    }

    /// A worker process this coordinator started ended: `pid` is the worker's own, or
    /// the launch command's when it runs on `host`.
    package mutating func workerExited(pid: Int32, host: String?, how: String) -> [Effect] {
        guard phase != .finished else { return [] }
        if let host { return fail("the worker launched on \(host) (launch command pid \(pid)) \(how)") }
        if departed.contains(UInt32(bitPattern: pid)) { return [] }
        if phase == .gathering { return lostBeforeDealing(pid: UInt32(bitPattern: pid), how: how) }
        if let index = members.firstIndex(where: { $0.hello.pid == UInt32(bitPattern: pid) }) {
            guard !members[index].gone else { return [] }
            guard !members[index].tiles.isEmpty else {
                return [.log("\(describe(index)), holding no tile, \(how)")] + forget(index)
            }
            return lose(index, "\(describe(index)) \(how)")
        }
        return fail("worker process \(pid) \(how) before it connected")
    }

    /// A worker process started for the run ended before the tiles were dealt (before
    /// or after its hello): with a restart left and another worker to go on with, the
    /// run gathers one worker fewer and deals the tiles to those, made from the plan as
    /// they would have been; else the run fails.
    private mutating func lostBeforeDealing(pid: UInt32, how: String) -> [Effect] {
        let index = members.firstIndex { $0.hello.pid == pid }
        let who = index.map { "worker pid \(pid) on \(members[$0].hello.host)" } ?? "worker process \(pid)"
        guard restartsLeft > 0, awaitedWorkers > 1 else {
            return fail("\(who) \(how) \(index == nil ? "before it connected" : "before the run started")")
        }
        restartsLeft -= 1
        awaitedWorkers -= 1
        if let index { members.remove(at: index) }
        let line = Effect.log("\(who) \(how) before the run started: it starts with \(awaitedWorkers) worker\(awaitedWorkers == 1 ? "" : "s") (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
        return [line] + assignIfGathered()
    }

    /// Worker `index` is lost (`why` says how). With restarts left, it is fenced (out of
    /// the run: its messages, and its strips to the others, are refused from now on),
    /// the others stop where they are, and the request in flight answers
    /// `interrupted`, so that the tiles roll back to a snapshot; without, the run fails.
    private mutating func lose(_ index: Int, _ why: String) -> [Effect] {
        guard restartsLeft > 0 else { return fail(why) }
        restartsLeft -= 1
        members[index].gone = true
        let line = Effect.log("\(why): rolling back to the last snapshot (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
        switch operation?.kind {
        case .advance?:
            let op = operation!.op
            let others = Set(members.indices.filter { !members[$0].gone && !members[$0].tiles.isEmpty })
            operation = Operation(op: op, kind: .halt(why: why), members: others)
            guard !others.isEmpty else { return [line] + complete(.interrupted(why)) }
            return [line] + others.sorted().map { .send(.halt(op: op), to: members[$0].peer) }
        case .halt(let first)?:
            operation!.members.remove(index)
            return [line] + (operation!.isGathered ? complete(.interrupted(first)) : [])
        case .checkpoint?, .snapshot?:
            // Its folder never gets a manifest, or the snapshot never becomes the
            // newest whole one: it never counts.
            return [line] + complete(.interrupted(why))
        case .collect?, .frame?, .load?:
            // Reads, and a load of every tile: done again once the tiles are back where they were.
            return [line] + complete(.interrupted(why))
        case .handOff?:
            // Every tile is rebuilt from the snapshot anyway: the move is moot.
            lostWhileIdle = lostWhileIdle ?? why
            return [line] + complete(.interrupted(why))
        case .prepare?:
            // The others finish building (their `ready` would be taken for one to a new
            // assignment); then the tiles are dealt again to the workers left, made
            // afresh from the plan, a snapshot or a checkpoint (see `Coordinator.recover`).
            lostWhileIdle = lostWhileIdle ?? why
            let building = Effect.log("\(why) while the tiles were being built: the others finish theirs, then the tiles are dealt again to the workers left (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
            return [building] + forget(index)
        case nil:
            lostWhileIdle = lostWhileIdle ?? why
            return [line]
        }
    }

    /// Worker `index` stopped after a halt.
    private mutating func stopped(_ index: Int) -> [Effect] {
        guard case .halt(let why)? = operation?.kind, operation?.members.remove(index) != nil else { return [] }
        guard operation!.isGathered else { return [] }
        return complete(.interrupted(why))
    }

    /// The run rolled back after `lostWhileIdle`.
    package mutating func recovered() { lostWhileIdle = nil }

    /// Stops the run (Ctrl-C, say): workers are told to abort.
    package mutating func cancel(_ reason: String) -> [Effect] { fail(reason) }

    /// Ends the run: workers are told to leave; a request in flight fails.
    package mutating func shutdown() -> [Effect] {
        guard phase != .finished else { return [] }
        let pending = operation != nil
        phase = .finished
        operation = nil
        let error = TesseraError("the run was shut down")
        failure = error
        return members.map { .send(.shutdown, to: $0.peer) } + (pending ? [.failed(error)] : [])
    }

    private mutating func fail(_ problem: String) -> [Effect] {
        guard phase != .finished else { return [] }
        phase = .finished
        operation = nil
        let error = TesseraError(problem)
        failure = error
        var effects: [Effect] = members.map { .send(.abort(reason: problem), to: $0.peer) }
        if let presenter { effects.append(.send(.abort(reason: problem), to: presenter.peer)) }
        return effects + [.failed(error)]
    }
}

/// A snapshot every host completed: its generation, the worker (by inbox endpoint) that
/// snapshotted each tile, and the buddy that keeps each worker's copies.
package struct MemorySnapshot: Sendable, Equatable {
    package let generation: UInt64
    package let holders: [TileID: String]
    package let buddies: [String: String]
}
