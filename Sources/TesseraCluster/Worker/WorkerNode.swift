import FoundationEssentials
import Glibc
import Synchronization
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraWire

/// A worker process: hosts the tile actors the coordinator assigns it, trades halos in
/// memory between its own tiles and over ZeroMQ with other workers' tiles.
///
/// Its two connections each have one loop that takes messages in order: the control
/// connection (only the coordinator's kinds) and the halo inbox (only halo strips, each
/// only from the worker that owns the neighbouring tile, on a connection that presents
/// the run's token: `HaloToken`). A run is a child task of the
/// control loop, so the loop still hears `abort` and `shutdown` while it runs, and a
/// request that cannot be served mid-run gets a failure report, never silence.
package actor WorkerNode {
    /// How a worker's life ended.
    package enum Ending: Sendable, Equatable {
        case shutdown
        case aborted(String)
        /// The coordinator turned this worker away.
        case refused(String)
        case coordinatorLost
        /// A signal ended it before its tiles could move.
        case interrupted(String)
    }

    /// What the control loop does after a message.
    private enum Next {
        case next
        case run(op: UInt64, generations: UInt64)
        case end(Ending)
    }

    private let pump: MessagePump
    private let progress: WorkerProgress
    private var assignment: Assignment?
    /// The run's halo token, from the first assignment: the halo loop reads it for every
    /// message without a hop onto this actor.
    private let haloToken = Mutex<HaloToken?>(nil)
    private var waitingCells: [TileID: TileStart] = [:]
    private var snapshots = SnapshotStore()
    private var tiles: [TileID: TileActor] = [:]
    /// While tiles move: the assignment they move from, to tell which neighbours changed host.
    private var owners: Assignment?
    /// The `start` in progress.
    private var running: UInt64?
    /// The `halt` that stops it, once one came.
    private var halting: UInt64?
    /// For tests: stop this process (SIGSTOP) at the first tiles it is given, before it
    /// builds them, so that a test can lose it while the board loads, for certain.
    private var stopsBeforeBuilding: Bool
    /// A SIGTERM's request to leave, while it stands (the coordinator may keep the
    /// worker instead): read by the signal loop, outside this actor.
    private let leaveAsked = Mutex(false)
    /// Whether tiles went to others since the request to leave: all of them, once none is left.
    private var handedOffSinceAsked = false

    private init(pump: MessagePump, progress: WorkerProgress, stopsBeforeBuilding: Bool) {
        self.pump = pump
        self.progress = progress
        self.stopsBeforeBuilding = stopsBeforeBuilding
    }

    /// Connects to the coordinator, serves until told to stop, and says why it stopped.
    /// - Parameters:
    ///   - listen: where to bind the halo inbox (`tcp://ADDRESS:*` picks a free port).
    ///   - advertise: the host peers use to reach the inbox.
    ///   - silence: how long the coordinator may stay silent before this worker leaves.
    ///   - credentials: the cluster's keys, for the control link and the halo links.
    ///   - stopsBeforeBuilding: for tests, see `stopsBeforeBuilding`.
    ///   - hearsSignals: whether SIGTERM and SIGINT end it (see `drainOnSignal`): a
    ///     worker process's, not one of several in a test process.
    package static func serve(coordinator: String, listen: String, advertise: String,
                              silence: Duration = .seconds(5), credentials: Credentials? = nil,
                              stopsBeforeBuilding: Bool = false, hearsSignals: Bool = true) async throws -> Ending {
        let progress = WorkerProgress()
        return try await MessagePump.with(.worker(coordinator: coordinator, listen: listen, advertise: advertise),
                                          credentials: credentials,
                                          heartbeat: { Wire.encode(.heartbeat(progress.snapshot)) }) { pump in
            let node = WorkerNode(pump: pump, progress: progress, stopsBeforeBuilding: stopsBeforeBuilding)
            pump.send(.hello(Hello(pid: UInt32(getpid()), endpoint: pump.boundEndpoint,
                                   host: ProcessInfo.processInfo.hostName)), to: .coordinator)
            // Proves at once that this is a live worker, not a lone hello.
            pump.send(.heartbeat(progress.snapshot), to: .coordinator)
            return await node.serve(silence: silence, hearsSignals: hearsSignals)
        }
    }

    private nonisolated func serve(silence: Duration, hearsSignals: Bool) async -> Ending {
        var contenders: [@Sendable () async -> Ending?] = [
            { await self.readControl() },
            {
                await self.readHalos()
                return nil
            },
            { await self.watchCoordinator(silence: silence) },
        ]
        if hearsSignals { contenders.append { await self.drainOnSignal() } }
        let ending = await ServiceGroup.first(of: contenders) ?? .coordinatorLost
        if let answer = await drainAnswer(after: ending) { answer.send() }
        return ending
    }

    /// What to tell `tessera worker --drain` as this worker ends, if it was asked to leave.
    private func drainAnswer(after ending: Ending) -> DrainAnswer? {
        guard leaveAsked.withLock({ $0 }) else { return nil }
        switch ending {
        case .shutdown: return !tiles.isEmpty ? .runEnded : handedOffSinceAsked ? .handedOff : .heldNone
        case .aborted(let reason): return .ended("its run was stopped: \(reason)")
        case .refused(let reason): return .ended("its coordinator turned it away: \(reason)")
        case .coordinatorLost: return .ended("its coordinator went silent")
        case .interrupted(let signal): return .ended("\(signal) made it leave at once")
        }
    }

    /// The control connection's loop; runs are its children. A discarding group, since a
    /// live run starts thousands of them and a finished one must not be kept.
    private nonisolated func readControl() async -> Ending {
        await withDiscardingTaskGroup(returning: Ending.self) { runs in
            for await incoming in pump.control {
                guard let message = Wire.decodeOrLog(incoming.bytes, on: .toWorker, role: "worker") else { continue }
                switch await handle(message) {
                case .next:
                    continue
                case .run(let op, let generations):
                    runs.addTask { await self.run(op: op, generations: generations) }
                case .end(let ending):
                    runs.cancelAll()
                    return ending
                }
            }
            runs.cancelAll()
            return .coordinatorLost
        }
    }

    /// The halo inbox's loop. A message from a connection without the run's token is
    /// refused before it is read.
    private nonisolated func readHalos() async {
        for await incoming in pump.inbox {
            guard let sender = haloToken.withLock({ $0 })?.endpoint(presenting: incoming.from) else {
                refuseStrip(Self.strangerLine(claiming: incoming.from))
                continue
            }
            switch Wire.decodeOrLog(incoming.bytes, on: .halo, role: "worker") {
            case .halo(let strip, let epoch)?: await deliver(strip, epoch: epoch, from: sender)
            case .snapshotCopy(let copy)?: await keep(copy, from: sender)
            default: continue
            }
        }
    }

    private static func strangerLine(claiming identity: PeerID) -> String {
        // A ZeroMQ-made identity starts with a zero byte; any other is the peer's own claim.
        let claim = identity.first == 0 || identity.isEmpty
            ? "no identity"
            : "it claims to be '\(String(decoding: identity.prefix(64).map { (32..<127).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self))'"
        return "refused a halo message from a peer without this run's halo token (\(claim)): only the workers the coordinator announced may send strips"
    }

    private nonisolated func watchCoordinator(silence: Duration) async -> Ending? {
        let started = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            Wire.logCountedRefusals()
            if ContinuousClock.now - (pump.lastHeard() ?? started) > silence { return .coordinatorLost }
        }
        return nil
    }

    /// SIGTERM asks to leave: the coordinator moves this worker's tiles to others and then
    /// tells it to shut down, and the run goes on. A second signal (or SIGINT) leaves at once.
    private nonisolated func drainOnSignal() async -> Ending? {
        for await signal in Signals.stream([SIGTERM, SIGINT]) {
            let asked = leaveAsked.withLock { asked in
                defer { asked = asked || signal == SIGTERM }
                return asked
            }
            guard signal == SIGTERM, !asked else { return .interrupted(Signals.name(signal)) }
            Wire.log("worker", "SIGTERM: handing this worker's tiles to the others before leaving (again to leave at once)")
            pump.send(.leaving, to: .coordinator)
        }
        return nil
    }

    private func report(_ problem: String) {
        pump.send(.failure(reason: problem), to: .coordinator)
    }

    private func handle(_ message: Message) async -> Next {
        switch message {
        case .heartbeat:
            return .next
        case .assign(let assignment):
            await accept(assignment)
        case .load(let op, let part):
            await load(op: op, part)
        case .start(let op, let generations):
            guard !tiles.isEmpty, running == nil else {
                report(running == nil ? "asked to run before its tiles were built" : "asked to run while it runs")
                return .next
            }
            running = op
            return .run(op: op, generations: generations)
        case .handOff(let op, let given):
            await handOff(op: op, given)
        case .tileState(_, let state):
            await adopt(state)
        case .checkpoint(let op, let folder):
            await writeCheckpoint(op: op, folder: folder)
        case .snapshot(let op, let order):
            await takeSnapshot(op: op, order)
        case .halt(let op):
            guard running != nil else {
                pump.send(.halted(op: op), to: .coordinator)
                return .next
            }
            // The run ends with its tiles' waits failing; it then says `halted`.
            halting = op
            for tile in tiles.values { await tile.fail(TesseraError("halted: a worker was lost")) }
        case .frameRequest(let op, let viewport, let clip):
            await sendFrame(op: op, viewport, clip: clip)
        case .collect(let op, let area):
            await sendCells(op: op, area: area)
        case .shutdown:
            return .end(.shutdown)
        case .abort(let reason):
            return .end(.aborted(reason))
        case .refused(let reason):
            return .end(.refused(reason))
        case .stays(let reason):
            // Asked again, it asks the coordinator again rather than leave at once.
            leaveAsked.withLock { $0 = false }
            Wire.log("worker", "the coordinator keeps this worker: \(reason) (SIGTERM asks again, SIGINT leaves at once)")
            DrainAnswer.stays(reason).send()
        default:
            Wire.log("worker", "refused a \(message.kind) message from the coordinator")
        }
        return .next
    }

    /// Takes tiles to build. A later assignment comes between runs, when the strips of
    /// the last run were all taken: one that goes on with the same board (tiles moved
    /// between workers) keeps the tiles this worker still hosts and waits for the
    /// `tileState` of each new one; any other (the unbounded plane's window moved)
    /// replaces every tile.
    private func accept(_ assignment: Assignment) async {
        guard running == nil else {
            report("got a new assignment while it runs")
            return
        }
        do {
            try assignment.tiling.validate(halo: assignment.halo)
            try TileCluster.checkMemory(assignment.myTiles, of: assignment.tiling, halo: assignment.halo)
        } catch {
            report("\(error)")
            return
        }
        // Its halo connections already present the first one.
        if let token = haloToken.withLock({ $0 }), token != assignment.haloToken {
            report("was given another halo token than its run's")
            return
        }
        haloToken.withLock { $0 = assignment.haloToken }
        let previous = self.assignment
        self.assignment = assignment
        waitingCells = [:]
        switch assignment.start {
        case .restored:
            // Rolled back: every tile from this worker's own snapshot, or its buddy's copy.
            tiles = [:]
            for tile in assignment.myTiles {
                guard let parts = snapshots.parts(of: tile, at: assignment.generation) else {
                    report("has no snapshot of tile \(tile) at generation \(assignment.generation)")
                    return
                }
                waitingCells[tile] = .painted(StartingCells(soup: nil, overlays: parts), board: assignment.tiling.shape)
            }
        case .goesOn:
            // A worker that joined the running board has no tiles yet: each comes whole.
            guard let previous else {
                tiles = [:]
                break
            }
            guard previous.tiling == assignment.tiling, previous.rule == assignment.rule, previous.halo == assignment.halo else {
                report("was told to go on with a board it does not have")
                return
            }
            let mine = Set(assignment.myTiles)
            tiles = tiles.filter { mine.contains($0.key) }
            for tile in tiles.values where await tile.generation != assignment.generation {
                report("tile \(tile.id) is at generation \(await tile.generation), the run goes on from \(assignment.generation)")
                return
            }
            owners = previous
        case .painted(let soup, let overlays):
            tiles = [:]
            stopIfAsked()
            // Painted where they lie: a huge tile costs what its pattern and soup cover.
            let start = TileStart.painted(StartingCells(soup: soup, overlays: overlays), board: assignment.tiling.shape)
            for tile in assignment.myTiles { waitingCells[tile] = start }
        case .loaded:
            tiles = [:]
            stopIfAsked()
        }
        await buildTilesIfReady()
    }

    /// For tests that lose a worker while the board loads: stops this process at the
    /// first tiles it is given to make.
    private func stopIfAsked() {
        guard stopsBeforeBuilding else { return }
        stopsBeforeBuilding = false
        raise(SIGSTOP)
    }

    private func load(op: UInt64, _ part: TileCells) async {
        guard let assignment, assignment.myTiles.contains(part.tile) else {
            report("got cells for tile \(part.tile), which this worker does not host")
            return
        }
        guard let tile = tiles[part.tile] else {
            // Starting cells, sent before the tiles are built.
            waitingCells[part.tile] = .cells(part.cells)
            await buildTilesIfReady()
            return
        }
        do {
            try await tile.load(part.cells, generation: part.generation)
            pump.send(.loaded(op: op, tile: part.tile), to: .coordinator)
        } catch {
            report("\(error)")
        }
    }

    /// A tile this worker now hosts, moved from another (it follows the new `assign`).
    private func adopt(_ state: TileState) async {
        guard let assignment, assignment.myTiles.contains(state.tile), tiles[state.tile] == nil else {
            report("got tile \(state.tile), which this worker was not given")
            return
        }
        guard state.generation == assignment.generation else {
            report("got tile \(state.tile) at generation \(state.generation), the run is at \(assignment.generation)")
            return
        }
        waitingCells[state.tile] = .moved(state)
        await buildTilesIfReady()
    }

    /// Gives up `given` (they move to other workers): each goes to the coordinator whole.
    private func handOff(op: UInt64, _ given: [TileID]) async {
        guard running == nil else {
            report("asked to hand off tiles while it runs")
            return
        }
        do {
            for tile in given {
                guard let actor = tiles[tile] else { throw TesseraError("asked to hand off tile \(tile), which this worker does not host") }
                pump.send(.tileState(op: op, try await actor.state()), to: .coordinator)
                tiles[tile] = nil
            }
        } catch {
            report("\(error)")
        }
        if tiles.isEmpty, leaveAsked.withLock({ $0 }) { handedOffSinceAsked = true }
        progress.track(tiles.values.map(\.progress))
    }

    /// Builds the tiles still to build once every one's cells are in, then links every
    /// tile to its neighbours' hosts. After a move, a tile whose neighbour changed host
    /// sends that side whole again.
    private func buildTilesIfReady() async {
        guard let assignment else { return }
        let mine = assignment.myTiles
        guard mine.allSatisfy({ tiles[$0] != nil || waitingCells[$0] != nil }) else { return }
        let tiling = assignment.tiling
        var built = tiles
        do {
            for tile in mine where built[tile] == nil {
                let rect = tiling.rect(of: tile)
                let start = waitingCells.removeValue(forKey: tile)!
                if case .cells(let cells) = start, cells.width != rect.width || cells.height != rect.height {
                    throw TesseraError("cells for tile \(tile) are \(cells.width)x\(cells.height), expected \(rect.width)x\(rect.height)")
                }
                built[tile] = try TileActor(id: tile, rect: rect, depth: assignment.halo, rule: assignment.rule,
                                            deadSides: TileCluster.deadSides(of: tile, in: tiling), start: start,
                                            generation: assignment.generation)
            }
        } catch {
            report("\(error)")
            return
        }
        let identity = assignment.haloToken.identity(of: pump.boundEndpoint)
        for (tile, actor) in built {
            var links: [Direction: any HaloLink] = [:]
            var moved: Set<Direction> = []
            for side in Direction.allCases {
                guard let other = tiling.neighbour(of: tile, side) else { continue }
                let owner = assignment.owner(of: other)
                links[side] = owner == assignment.worker
                    ? LocalHaloLink(target: built[other]!)
                    : RemoteHaloLink(tile: other, pump: pump, endpoint: assignment.endpoints[owner], identity: identity,
                                     epoch: assignment.epoch)
                if let before = owners, before.endpoints[before.owner(of: other)] != assignment.endpoints[owner] { moved.insert(side) }
            }
            await actor.connect(links)
            await actor.neighboursMoved(moved)
        }
        owners = nil
        tiles = built
        progress.track(built.values.map(\.progress))
        pump.send(.ready, to: .coordinator)
    }

    /// A strip from another worker, for one of this worker's tiles.
    private func deliver(_ strip: HaloStrip, epoch: UInt64, from sender: String) async {
        // Sent before the tiles were rebuilt (a rollback): its round was abandoned. Not
        // worth a line: every strip in flight when a worker is lost ends here.
        if let assignment, epoch < assignment.epoch { return }
        guard let assignment, let tile = tiles[strip.tile] else {
            refuseStrip("refused a halo strip for tile \(strip.tile), which this worker does not host")
            return
        }
        guard epoch == assignment.epoch else {
            refuseStrip("refused a halo strip from \(sender) sent under assignment \(epoch): this worker has only \(assignment.epoch)")
            return
        }
        let neighbour = assignment.tiling.neighbour(of: strip.tile, strip.side)
        let owed = neighbour.map { assignment.endpoints[assignment.owner(of: $0)] }
        guard owed == sender else {
            refuseStrip("refused a halo strip for the \(strip.side) side of tile \(strip.tile) from \(sender), which does not own the tile on that side")
            return
        }
        do {
            try await tile.receive(strip)
        } catch {
            refuseStrip("refused a halo strip from \(sender): \(error)")
        }
    }

    /// A strip (or a stranger's message) refused: a peer may send those as often as it
    /// likes, so they are counted.
    private nonisolated func refuseStrip(_ line: String) {
        Wire.logRefusal(line, at: Lane.halo.rawValue, as: "worker")
    }

    private func run(op: UInt64, generations: UInt64) async {
        defer { (running, halting) = (nil, nil) }
        let tiles = self.tiles
        do {
            // One tile's failure cancels the others: their waits for halos end at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for tile in tiles.values {
                    group.addTask { try await tile.run(generations: generations) }
                }
                for try await _ in group {}
            }
        } catch is CancellationError {
            return  // the worker is leaving
        } catch {
            if let halting {
                pump.send(.halted(op: halting), to: .coordinator)
            } else {
                report("\(error)")
            }
            return
        }
        var summary = WorkerReport(bytesSent: UInt64(pump.bytesSent))
        let snapshot = progress.snapshot
        (summary.computeSeconds, summary.waitSeconds) = (snapshot.computeSeconds, snapshot.waitSeconds)
        do {
            for (id, tile) in tiles {
                summary.populations[id] = try await tile.population()
                summary.tileSeconds[id] = tile.progress.computeSeconds
            }
            if assignment?.tiling.shape.topology == .infinite {
                for tile in tiles.values {
                    guard let part = try await tile.liveBounds() else { continue }
                    summary.liveBounds = summary.liveBounds.map { $0.union(part) } ?? part
                }
            }
        } catch {
            report("\(error)")
            return
        }
        pump.send(.done(op: op, summary), to: .coordinator)
    }

    private func sendFrame(op: UInt64, _ viewport: Viewport, clip: TileRect?) async {
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                let part = try await tile.dots(in: viewport, clip: clip) ?? (0, 0, BitGrid(width: 0, height: 0))
                pump.send(.frameTile(op: op, FramePart(tile: id, x: part.x, y: part.y, dots: part.dots)), to: .coordinator)
            }
        } catch {
            report("\(error)")
        }
    }

    /// Writes each hosted tile's live parts into `folder`, saying each file's checksum.
    private func writeCheckpoint(op: UInt64, folder: String) async {
        guard running == nil else {
            report("asked to write a checkpoint while it runs")
            return
        }
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                let rect = tile.rect
                let parts = try await tile.liveParts().map { (x: $0.x - rect.x, y: $0.y - rect.y, cells: $0.cells) }
                let checksum = try Checkpoint.writeTile(parts, width: rect.width, height: rect.height, of: id,
                                                        generation: await tile.generation, in: folder)
                pump.send(.checkpointed(op: op, tile: id, checksum: checksum), to: .coordinator)
            }
        } catch {
            report("cannot write its checkpoint: \(error)")
        }
    }

    /// Keeps each hosted tile's cells in memory, sends a copy of each to the buddy, and
    /// says `snapshotted` once the buddy's copies are in too.
    private func takeSnapshot(op: UInt64, _ order: SnapshotOrder) async {
        guard running == nil else {
            report("asked to snapshot its tiles while it runs")
            return
        }
        do {
            guard let assignment else { throw TesseraError("asked to snapshot its tiles before it was given any") }
            let identity = assignment.haloToken.identity(of: pump.boundEndpoint)
            var own: [TileID: [Overlay]] = [:]
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                guard await tile.generation == order.generation else {
                    throw TesseraError("tile \(id) is at generation \(await tile.generation), the snapshot is of \(order.generation)")
                }
                let parts = try await tile.liveParts()
                own[id] = parts
                pump.send(.snapshotCopy(TileParts(tile: id, generation: order.generation, parts: parts)), to: .peer(endpoint: order.buddy, presenting: identity))
            }
            answer(snapshots.begin(op: op, order, own: own))
        } catch {
            report("cannot snapshot its tiles: \(error)")
        }
    }

    private func keep(_ copy: TileParts, from sender: String) {
        answer(snapshots.keep(copy, from: sender))
    }

    private func answer(_ outcome: SnapshotStore.Outcome) {
        switch outcome {
        case .complete(let op): pump.send(.snapshotted(op: op), to: .coordinator)
        case .waiting: break
        case .refused(let why): Wire.log("worker", why)
        }
    }

    /// Each hosted tile's part of `area` (board coordinates), tiles outside it saying nothing.
    private func sendCells(op: UInt64, area: TileRect) async {
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                guard let part = try await tile.cells(in: area) else { continue }
                pump.send(.cells(op: op, TileCells(tile: id, generation: await tile.generation, cells: part.cells)), to: .coordinator)
            }
        } catch {
            report("\(error)")
        }
    }
}

/// How far a worker's tiles have come, for the heartbeats its pump thread sends.
/// The list is behind a lock and each tile's figures are atomics, hence `Sendable`.
final class WorkerProgress: Sendable {
    private let tiles = Mutex<[TileProgress]>([])

    func track(_ tiles: [TileProgress]) { self.tiles.withLock { $0 = tiles } }

    var snapshot: RunProgress {
        tiles.withLock { tiles in
            RunProgress(generation: tiles.map(\.generation).min() ?? 0,
                     computeSeconds: tiles.reduce(0) { $0 + $1.computeSeconds },
                     waitSeconds: tiles.reduce(0) { $0 + $1.waitSeconds })
        }
    }
}
