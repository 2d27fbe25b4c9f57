import FoundationEssentials
import Glibc
import Synchronization
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraWire

/// A worker process: hosts the tile actors the coordinator assigns it, trades halos in
/// memory between its own tiles and over ZeroMQ with other workers' tiles; or hosts one
/// shard of a sparse plane (`ShardRunner`), trading bands with the other shards.
///
/// Its two connections each have one loop that takes messages in order: the control
/// connection (only the coordinator's kinds) and the halo inbox (only halo strips, each
/// only from the worker that owns the neighbouring tile, on a connection that presents
/// the run's token: `HaloToken`). A run is a child task of the
/// control loop, so the loop still hears `abort` and `shutdown` while it runs, and a
/// request that cannot be served mid-run gets a failure report, never silence.
///
/// A thin shell around `WorkerState`, which makes every decision: this actor, the one
/// place that state changes, feeds it the events in order and carries out its effects
/// on the tile actors and the pump. Each transition is synchronous, so a halo strip that
/// comes while an effect suspends sees the state before or after a message, never half.
package actor WorkerNode {
    package typealias Ending = WorkerState.Ending

    /// What the control loop does after a message.
    private enum Next {
        case next
        case run(op: UInt64, generations: UInt64)
        case end(Ending)
    }

    private let pump: MessagePump
    private let progress: WorkerProgress
    /// Every decision; this actor is the one place it changes.
    private var state: WorkerState
    /// The run's halo token, as `state` has it: the halo loop reads it for every message
    /// without a hop onto this actor.
    private let haloToken = Mutex<HaloToken?>(nil)
    /// The tiles `state` hosts.
    private var tiles: [TileID: TileActor] = [:]
    /// The shard `state` hosts, once made.
    private var shard: ShardRunner?

    private init(pump: MessagePump, progress: WorkerProgress, stopsBeforeBuilding: Bool) {
        self.pump = pump
        self.progress = progress
        state = WorkerState(stopsBeforeBuilding: stopsBeforeBuilding)
    }

    /// Connects to the coordinator, serves until told to stop, and says why it stopped.
    /// - Parameters:
    ///   - listen: where to bind the halo inbox (`tcp://ADDRESS:*` picks a free port).
    ///   - advertise: the host peers use to reach the inbox.
    ///   - silence: how long the coordinator may stay silent before this worker leaves.
    ///   - credentials: the cluster's keys, for the control link and the halo links.
    ///   - stopsBeforeBuilding: for tests that lose a worker while the board loads: the
    ///     process stops (SIGSTOP) at the first tiles it is given, before it builds them.
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
        await state.drainAnswer(after: ending)?.send()
        return ending
    }

    /// The control connection's loop; runs are its children. A discarding group, since a
    /// live run starts thousands of them and a finished one must not be kept.
    private nonisolated func readControl() async -> Ending {
        await withDiscardingTaskGroup(returning: Ending.self) { runs in
            for await incoming in pump.control {
                let message: ToWorker
                do {
                    message = try Wire.decode(incoming.bytes, as: ToWorker.self)
                } catch {
                    // Only the coordinator speaks here: a message of its that this worker
                    // cannot read leaves the run without it, so the run is told at once
                    // rather than waiting on it.
                    Wire.log("worker", "cannot read the coordinator's message: \(error)")
                    pump.send(ToCoordinator.failure(reason: "cannot read the coordinator's message: \(error)"), to: .coordinator)
                    continue
                }
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

    private func handle(_ message: ToWorker) async -> Next {
        let effects = state.receive(message)
        haloToken.withLock { $0 = state.haloToken }
        return await apply(effects)
    }

    /// The halo inbox's loop. A message from a connection without the run's token is
    /// refused before it is read.
    private nonisolated func readHalos() async {
        for await incoming in pump.inbox {
            guard let sender = haloToken.withLock({ $0 })?.endpoint(presenting: incoming.from) else {
                refuseStrip(Self.strangerLine(claiming: incoming.from))
                continue
            }
            switch Wire.decodeOrLog(incoming.bytes, as: HaloMessage.self, role: "worker") {
            case .halo(let strip, let epoch)?: await deliver(strip, epoch: epoch, from: sender)
            case .snapshotCopy(let copy)?: await keep(copy, from: sender)
            case .bands(let bands)?: await deliver(bands, from: sender)
            case nil: continue
            }
        }
    }

    private func deliver(_ strip: HaloStrip, epoch: UInt64, from sender: String) async {
        _ = await apply(state.receive(strip, epoch: epoch, from: sender), sender: sender)
    }

    private func deliver(_ bands: Bands, from sender: String) async {
        _ = await apply(state.receive(bands, from: sender), sender: sender)
    }

    private func keep(_ copy: TileParts, from sender: String) async {
        _ = await apply(state.keep(copy, from: sender))
    }

    private static func strangerLine(claiming identity: PeerID) -> String {
        // A ZeroMQ-made identity starts with a zero byte; any other is the peer's own claim.
        let claim = identity.first == 0 || identity.isEmpty
            ? "no identity"
            : "it claims to be '\(Format.shown(identity, upTo: 64))'"
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

    /// SIGTERM asks to leave (`WorkerState.signalled`); a second signal, or SIGINT, ends it.
    private nonisolated func drainOnSignal() async -> Ending? {
        for await signal in Signals.stream([SIGTERM, SIGINT]) {
            if case .end(let ending) = await signalled(signal) { return ending }
        }
        return nil
    }

    private func signalled(_ signal: Int32) async -> Next {
        await apply(state.signalled(signal))
    }

    /// A strip (or a stranger's message) refused: a peer may send those as often as it
    /// likes, so they are counted.
    private nonisolated func refuseStrip(_ line: String) {
        Wire.logRefusal(line, at: Lane.halo.rawValue, as: "worker")
    }

    private func report(_ problem: String) {
        pump.send(.failure(reason: problem), to: .coordinator)
    }

    // MARK: Effects

    /// Carries out `effects` in order; what the control loop does next. `sender`: the
    /// peer whose strip is delivered, for the line that refuses it.
    private func apply(_ effects: [WorkerState.Effect], sender: String = "") async -> Next {
        var next = Next.next
        for effect in effects {
            switch effect {
            case .send(let message):
                pump.send(message, to: .coordinator)
            case .build(let build):
                await self.build(build)
            case .run(let op, let generations):
                next = .run(op: op, generations: generations)
            case .halt:
                for tile in tiles.values { await tile.fail(TesseraError("halted: a worker was lost")) }
                await shard?.fail(TesseraError("halted: a worker was lost"))
            case .drop(let gone):
                for tile in gone { tiles[tile] = nil }
                progress.track(tiles.values.map(\.progress))
            case .load(let op, let part):
                do {
                    guard let tile = tiles[part.tile] else { throw TesseraError("tile \(part.tile) is not built") }
                    try await tile.load(part.cells, states: part.states, generation: part.generation)
                    pump.send(.loaded(op: op, tile: part.tile), to: .coordinator)
                } catch {
                    report("\(error)")
                }
            case .handOff(let op, let given):
                await handOff(op: op, given)
            case .sendFrame(let op, let viewport, let clip):
                await sendFrame(op: op, viewport, clip: clip)
            case .sendCells(let op, let area):
                await sendCells(op: op, area: area)
            case .writeCheckpoint(let op, let folder):
                await writeCheckpoint(op: op, folder: folder)
            case .takeSnapshot(let op, let order):
                await takeSnapshot(op: op, order)
            case .hostShard(let assignment):
                await host(assignment)
            case .dropShard:
                shard = nil
            case .sendShardFrame(let op, let viewport):
                guard let shard else {
                    report("asked for a frame of its shard before the shard was made")
                    break
                }
                pump.send(.shardFrame(op: op, dots: await shard.frame(viewport)), to: .coordinator)
            case .sendParts(let op):
                guard let shard else {
                    report("asked for its shard's cells before the shard was made")
                    break
                }
                let parts = await shard.liveTileParts().map(Overlay.init)
                for chunk in ShardAssignment.chunks(of: parts) {
                    pump.send(.parts(op: op, Array(chunk), last: chunk.endIndex == parts.count), to: .coordinator)
                }
            case .deliverBands(let bands, let from):
                do {
                    try await shard?.receive(bands, from: from)
                } catch {
                    refuseStrip("refused bands from \(sender): \(error)")
                }
            case .deliver(let strip):
                do {
                    guard let tile = tiles[strip.tile] else { throw TesseraError("tile \(strip.tile) is not built") }
                    try await tile.receive(strip)
                } catch {
                    refuseStrip("refused a halo strip from \(sender): \(error)")
                }
            case .refuseStrip(let line):
                refuseStrip(line)
            case .log(let line):
                Wire.log("worker", line)
            case .answerDrain(let answer):
                answer.send()
            case .stopProcess:
                raise(SIGSTOP)
            case .end(let ending):
                next = .end(ending)
            }
        }
        return next
    }

    /// Makes the new tiles, then links every hosted tile to its neighbours' hosts. After
    /// a move, a tile whose neighbour changed host sends that side whole again.
    private func build(_ build: WorkerState.Build) async {
        let assignment = build.assignment, tiling = assignment.tiling
        let mine = Set(assignment.myTiles)
        var built = tiles.filter { mine.contains($0.key) && build.make[$0.key] == nil }
        do {
            for (tile, start) in build.make {
                built[tile] = try TileActor(id: tile, rect: tiling.rect(of: tile), depth: assignment.halo, rule: assignment.rule,
                                            deadSides: TileCluster.deadSides(of: tile, in: tiling), start: start,
                                            generation: assignment.generation)
            }
        } catch {
            return _ = await apply(state.failed(error))
        }
        let identity = assignment.haloToken.identity(of: pump.boundEndpoint)
        for (tile, actor) in built {
            var links: [Direction: any HaloLink] = [:]
            for (side, link) in build.links[tile] ?? [:] {
                switch link {
                case .local(let other):
                    links[side] = LocalHaloLink(target: built[other]!)
                case .remote(let other, let endpoint):
                    links[side] = RemoteHaloLink(tile: other, pump: pump, endpoint: endpoint, identity: identity, epoch: assignment.epoch)
                }
            }
            await actor.connect(links)
            await actor.neighboursMoved(build.moved[tile] ?? [])
        }
        tiles = built
        progress.track(built.values.map(\.progress))
        _ = await apply(state.built(build))
    }

    /// Makes the shard of `assignment`, in place of any before it.
    private func host(_ assignment: ShardAssignment) async {
        shard = nil
        do {
            let made = try ShardRunner(assignment)
            shard = made
            progress.track([made.progress])
        } catch {
            return _ = await apply(state.failed(error))
        }
        _ = await apply(state.shardBuilt(assignment))
    }

    /// Runs the shard `generations` generations, sending its bands to the other shards' inboxes.
    private func runShard(_ shard: ShardRunner, op: UInt64, generations: UInt64) async {
        guard let assignment = state.shard else {
            return _ = await apply(state.ran(.failed("asked to run a shard it does not host", reached: [:])))
        }
        let (pump, endpoints) = (self.pump, assignment.endpoints)
        let identity = assignment.haloToken.identity(of: pump.boundEndpoint)
        do {
            try await shard.run(generations: generations, depth: assignment.depth) { other, bands in
                pump.send(.bands(bands), to: .peer(endpoint: endpoints[other], presenting: identity))
            }
        } catch is CancellationError {
            _ = await apply(state.ran(.cancelled))
            return
        } catch {
            _ = await apply(state.ran(.failed("\(error)", reached: [:])))
            return
        }
        _ = await apply(state.ran(.completed(generations: generations)))
        var summary = WorkerReport(bytesSent: UInt64(pump.bytesSent))
        (summary.computeSeconds, summary.waitSeconds) = (shard.progress.computeSeconds, shard.progress.waitSeconds)
        summary.shard = await shard.figures
        pump.send(.done(op: op, summary), to: .coordinator)
    }

    private func run(op: UInt64, generations: UInt64) async {
        if let shard { return await runShard(shard, op: op, generations: generations) }
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
            _ = await apply(state.ran(.cancelled))  // the worker is leaving
            return
        } catch {
            var reached: [TileID: UInt64] = [:]
            for (id, tile) in tiles { reached[id] = await tile.generation }
            _ = await apply(state.ran(.failed("\(error)", reached: reached)))
            return
        }
        _ = await apply(state.ran(.completed(generations: generations)))
        var summary = WorkerReport(bytesSent: UInt64(pump.bytesSent))
        let snapshot = progress.snapshot
        (summary.computeSeconds, summary.waitSeconds) = (snapshot.computeSeconds, snapshot.waitSeconds)
        do {
            for (id, tile) in tiles {
                summary.populations[id] = try await tile.population()
                summary.tileSeconds[id] = tile.progress.computeSeconds
            }
        } catch {
            report("\(error)")
            return
        }
        pump.send(.done(op: op, summary), to: .coordinator)
    }

    /// Gives up `given`: each goes to the coordinator whole.
    private func handOff(op: UInt64, _ given: [TileID]) async {
        do {
            for tile in given {
                guard let actor = tiles.removeValue(forKey: tile) else { continue }
                pump.send(.tileState(op: op, try await actor.state()), to: .coordinator)
            }
        } catch {
            report("\(error)")
        }
        progress.track(tiles.values.map(\.progress))
    }

    private func sendFrame(op: UInt64, _ viewport: Viewport, clip: TileRect?) async {
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                let part = try await tile.dots(in: viewport, clip: clip) ?? (0, 0, BitGrid(width: 0, height: 0))
                // States for a viewer's frame (bounds read through a clip need none).
                let states = clip != nil ? [] : try await tile.stateDots(in: viewport, x: part.x, y: part.y, width: part.dots.width,
                                                                         height: part.dots.height)
                pump.send(.frameTile(op: op, FramePart(tile: id, x: part.x, y: part.y, dots: part.dots, states: states)), to: .coordinator)
            }
        } catch {
            report("\(error)")
        }
    }

    /// Writes each hosted tile's live parts into `folder`, saying each file's checksum.
    private func writeCheckpoint(op: UInt64, folder: String) async {
        do {
            // A rule of more states writes its tiles' states (format 4).
            let planes = state.assignment?.rule.statePlanes
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                let rect = tile.rect
                let live = try await tile.liveParts()
                let parts = live.map { (x: $0.x - rect.x, y: $0.y - rect.y, cells: $0.cells) }
                let checksum = try Checkpoint.writeTile(parts, width: rect.width, height: rect.height, of: id,
                                                        generation: await tile.generation, in: folder, planes: planes,
                                                        states: live.compactMap(\.states))
                pump.send(.checkpointed(op: op, tile: id, checksum: checksum), to: .coordinator)
            }
        } catch {
            report("cannot write its checkpoint: \(error)")
        }
    }

    /// Keeps each hosted tile's cells in memory, sends a copy of each to the buddy, and
    /// says `snapshotted` once the buddy's copies are in too.
    private func takeSnapshot(op: UInt64, _ order: SnapshotOrder) async {
        guard let assignment = state.assignment else { return }
        let identity = assignment.haloToken.identity(of: pump.boundEndpoint)
        var own: [TileID: [Overlay]] = [:]
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                let parts = try await tile.liveParts()
                own[id] = parts
                pump.send(.snapshotCopy(TileParts(tile: id, generation: order.generation, parts: parts)),
                          to: .peer(endpoint: order.buddy, presenting: identity))
            }
        } catch {
            return report("cannot snapshot its tiles: \(error)")
        }
        _ = await apply(state.snapshotTaken(op: op, order, own: own))
    }

    /// Each hosted tile's part of `area` (board coordinates), tiles outside it saying nothing.
    private func sendCells(op: UInt64, area: TileRect) async {
        do {
            for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
                guard let part = try await tile.cells(in: area) else { continue }
                pump.send(.cells(op: op, TileCells(tile: id, generation: await tile.generation, cells: part.cells, states: part.states)),
                          to: .coordinator)
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
