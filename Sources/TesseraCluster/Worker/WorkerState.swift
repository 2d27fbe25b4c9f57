import Glibc
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraWire

/// What a worker knows and decides, as a plain value: which tiles it hosts and at what
/// generation (or which shard of a sparse plane, `ShardAssignment`), what it waits for before it can build them, whether a run is in progress
/// and whether it was asked to leave. Each event (a control message, a halo strip, a
/// run's end, a signal) is a pure transition that returns the effects to carry out;
/// `WorkerNode`, the actor around it, does them: it builds, runs and asks the tile
/// actors, and sends. So every decision a worker makes is tested without a process.
package struct WorkerState: Sendable {
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

    package enum Effect: Sendable, Equatable {
        /// To the coordinator.
        case send(ToCoordinator)
        /// Makes `build`'s new tiles, links every hosted tile, then `built(_:)`.
        case build(Build)
        /// Runs every hosted tile `generations` generations, as a child of the control
        /// loop (which goes on hearing `halt`, `abort`, `shutdown`); then `ran`.
        case run(op: UInt64, generations: UInt64)
        /// Fails every tile's wait for halos: the run in progress ends.
        case halt
        /// Drops these tiles: a new board replaces them.
        case drop(Set<TileID>)
        /// Makes the shard (its `ShardRunner`), in place of any before it, then `shardBuilt`.
        case hostShard(ShardAssignment)
        /// Drops the shard: tiles replace it.
        case dropShard
        /// Sends the shard's live cells to the coordinator as `parts`.
        case sendParts(op: UInt64)
        /// Hands bands to the shard, from shard `from`.
        case deliverBands(Bands, from: Int)
        /// Replaces a hosted tile's cells, then says `loaded`.
        case load(op: UInt64, TileCells)
        /// Sends each of these tiles' `tileState` to the coordinator, and drops it.
        case handOff(op: UInt64, [TileID])
        case sendFrame(op: UInt64, Viewport, clip: TileRect?)
        /// Sends the shard's dots of `viewport` as `shardFrame`.
        case sendShardFrame(op: UInt64, Viewport)
        case sendCells(op: UInt64, area: TileRect)
        case writeCheckpoint(op: UInt64, folder: String)
        /// Gathers every hosted tile's live parts, sends a copy of each to `order.buddy`,
        /// then `snapshotTaken`.
        case takeSnapshot(op: UInt64, SnapshotOrder)
        /// Hands a strip to the hosted tile it is for.
        case deliver(HaloStrip)
        /// A halo message refused: counted, not logged one by one.
        case refuseStrip(String)
        case log(String)
        /// Tells `tessera worker --drain`, if one waits.
        case answerDrain(DrainAnswer)
        /// For tests that lose a worker while the board loads: stops this process.
        case stopProcess
        case end(Ending)
    }

    /// The tiles to make, and how every hosted tile links to its neighbours.
    package struct Build: Sendable, Equatable {
        package let assignment: Assignment
        /// New tiles, each with its starting cells; the tiles hosted already stay.
        package let make: [TileID: TileStart]
        /// Each hosted tile's neighbour on each side that has one.
        package let links: [TileID: [Direction: Link]]
        /// Sides whose neighbour changed host (tiles moved): each sends its edge whole again.
        package let moved: [TileID: Set<Direction>]
    }

    package enum Link: Sendable, Equatable {
        /// A tile of this worker's: strips go in memory.
        case local(TileID)
        /// A tile of the worker at this endpoint.
        case remote(TileID, endpoint: String)
    }

    /// The last assignment taken.
    package private(set) var assignment: Assignment?
    /// The run's halo token, from the first assignment; later ones must carry the same.
    package private(set) var haloToken: HaloToken?
    /// Hosted tiles (built), and the generation each is at.
    package private(set) var tiles: [TileID: UInt64] = [:]
    /// The shard of a sparse plane hosted in place of tiles, and whether it is built.
    package private(set) var shard: ShardAssignment?
    private var shardBuilt = false
    /// Its starting cells so far, while more are to come (`shardCells`).
    private var shardParts: [Overlay]?
    /// Starting cells of tiles not built yet.
    private var waiting: [TileID: TileStart] = [:]
    /// While tiles move: the assignment they move from, to tell which neighbours changed host.
    private var owners: Assignment?
    /// The `start` in progress, and the `halt` that stops it once one came.
    package private(set) var running: UInt64?
    private var halting: UInt64?
    private var snapshots = SnapshotStore()
    /// Whether a SIGTERM asked to leave, while it stands (the coordinator may keep the worker).
    package private(set) var leaveAsked = false
    /// Whether tiles went to others since the request to leave: all of them, once none is left.
    private var handedOffSinceAsked = false
    /// For tests: stop at the first tiles given, before building them.
    private var stopsBeforeBuilding: Bool

    package init(stopsBeforeBuilding: Bool = false) {
        self.stopsBeforeBuilding = stopsBeforeBuilding
    }

    private func report(_ problem: String) -> [Effect] { [.send(.failure(reason: problem))] }

    // MARK: The control connection

    /// A message from the coordinator, in arrival order.
    package mutating func receive(_ message: ToWorker) -> [Effect] {
        switch message {
        case .heartbeat:
            return []
        case .assign(let assignment):
            return accept(assignment)
        case .shard(let assignment):
            return host(assignment)
        case .shardCells(let parts):
            guard let shard, shardParts != nil else { return report("got cells for a shard it is not waiting for") }
            shardParts! += parts
            guard shardParts!.count >= shard.partCount else { return [] }
            guard shardParts!.count == shard.partCount else {
                return report("got \(shardParts!.count) parts for its shard, which has \(shard.partCount)")
            }
            defer { shardParts = nil }
            return [.hostShard(shard.holding(shardParts!))]
        case .load(let op, let part):
            return load(op: op, part)
        case .start(let op, let generations):
            guard !tiles.isEmpty || shardBuilt, running == nil else {
                return report(running == nil ? "asked to run before its tiles were built" : "asked to run while it runs")
            }
            running = op
            return [.run(op: op, generations: generations)]
        case .handOff(let op, let given):
            return handOff(op: op, given)
        case .tileState(_, let state):
            return adopt(state)
        case .checkpoint(let op, let folder):
            guard running == nil else { return report("asked to write a checkpoint while it runs") }
            return [.writeCheckpoint(op: op, folder: folder)]
        case .snapshot(let op, let order):
            guard running == nil else { return report("asked to snapshot its tiles while it runs") }
            guard assignment != nil else { return report("cannot snapshot its tiles: asked to snapshot its tiles before it was given any") }
            if let (tile, generation) = tiles.first(where: { $0.value != order.generation }) {
                return report("cannot snapshot its tiles: tile \(tile) is at generation \(generation), the snapshot is of \(order.generation)")
            }
            return [.takeSnapshot(op: op, order)]
        case .halt(let op):
            guard running != nil else { return [.send(.halted(op: op))] }
            // The run ends with its tiles' waits failing; it then says `halted`.
            halting = op
            return [.halt]
        case .frameRequest(let op, let viewport, let clip):
            guard shard != nil else { return [.sendFrame(op: op, viewport, clip: clip)] }
            guard shardBuilt, running == nil else {
                return report(shardBuilt ? "asked for a frame of its shard while it runs" : "asked for a frame before its shard was made")
            }
            return [.sendShardFrame(op: op, viewport)]
        case .collect(let op, let area):
            return [.sendCells(op: op, area: area)]
        case .readParts(let op):
            guard shardBuilt, running == nil else {
                return report(shardBuilt ? "asked for its shard's cells while it runs" : "asked for a shard's cells, but hosts no shard")
            }
            return [.sendParts(op: op)]
        case .shutdown:
            return [.end(.shutdown)]
        case .abort(let reason):
            return [.end(.aborted(reason))]
        case .refused(let reason):
            return [.end(.refused(reason))]
        case .stays(let reason):
            // Asked again, it asks the coordinator again rather than leave at once.
            leaveAsked = false
            return [.log("the coordinator keeps this worker: \(reason) (SIGTERM asks again, SIGINT leaves at once)"),
                    .answerDrain(.stays(reason))]
        }
    }

    /// Takes tiles to build. A later assignment comes between runs, when the strips of
    /// the last run were all taken: one that goes on with the same board (tiles moved
    /// between workers) keeps the tiles this worker still hosts and waits for the
    /// `tileState` of each new one; any other replaces every tile.
    private mutating func accept(_ assignment: Assignment) -> [Effect] {
        guard running == nil else { return report("got a new assignment while it runs") }
        do {
            try assignment.tiling.validate(halo: assignment.halo, reach: assignment.rule.reach)
            try TileCluster.checkMemory(assignment.myTiles, of: assignment.tiling, halo: assignment.halo, rule: assignment.rule)
        } catch {
            return report("\(error)")
        }
        if let refused = adopt(assignment.haloToken) { return refused }
        let previous = self.assignment
        var effects: [Effect] = []
        if shard != nil {
            (shard, shardBuilt, shardParts) = (nil, false, nil)
            effects.append(.dropShard)
        }
        self.assignment = assignment
        waiting = [:]
        switch assignment.start {
        case .restored:
            // Rolled back: every tile from this worker's own snapshot, or its buddy's copy.
            effects += dropAll()
            for tile in assignment.myTiles {
                guard let parts = snapshots.parts(of: tile, at: assignment.generation) else {
                    return effects + report("has no snapshot of tile \(tile) at generation \(assignment.generation)")
                }
                waiting[tile] = .painted(StartingCells(soup: nil, overlays: parts), board: assignment.tiling.shape)
            }
        case .goesOn:
            // A worker that joined the running board has no tiles yet: each comes whole.
            guard let previous else {
                effects += dropAll()
                break
            }
            guard previous.tiling == assignment.tiling, previous.rule == assignment.rule, previous.halo == assignment.halo else {
                return report("was told to go on with a board it does not have")
            }
            let mine = Set(assignment.myTiles)
            let gone = Set(tiles.keys).subtracting(mine)
            if !gone.isEmpty {
                tiles = tiles.filter { mine.contains($0.key) }
                effects.append(.drop(gone))
            }
            if let (tile, generation) = tiles.sorted(by: { $0.key < $1.key }).first(where: { $0.value != assignment.generation }) {
                return effects + report("tile \(tile) is at generation \(generation), the run goes on from \(assignment.generation)")
            }
            owners = previous
        case .painted(let soup, let overlays):
            effects += dropAll() + stopIfAsked()
            // Painted where they lie: a huge tile costs what its pattern and soup cover.
            let start = TileStart.painted(StartingCells(soup: soup, overlays: overlays), board: assignment.tiling.shape)
            for tile in assignment.myTiles { waiting[tile] = start }
        case .loaded:
            effects += dropAll() + stopIfAsked()
        }
        return effects + buildIfReady()
    }

    /// Takes the run's halo token from its first assignment; a later one must carry the
    /// same, as the worker's halo connections already present it. The refusal, if not.
    private mutating func adopt(_ token: HaloToken) -> [Effect]? {
        if let haloToken, haloToken != token { return report("was given another halo token than its run's") }
        haloToken = token
        return nil
    }

    /// Takes a shard of a sparse plane to host, in place of tiles or another shard.
    private mutating func host(_ shard: ShardAssignment) -> [Effect] {
        guard running == nil else { return report("got a shard while it runs") }
        if let refused = adopt(shard.haloToken) { return refused }
        (assignment, owners, waiting) = (nil, nil, [:])
        (self.shard, shardBuilt, shardParts) = (shard, false, nil)
        guard shard.parts.count < shard.partCount else { return dropAll() + [.hostShard(shard)] }
        shardParts = shard.parts
        return dropAll()
    }

    /// The shard of `hostShard` is made: the worker is ready.
    package mutating func shardBuilt(_ built: ShardAssignment) -> [Effect] {
        // One made for an assignment since replaced says nothing.
        guard let shard, built.epoch == shard.epoch, built.shard == shard.shard else { return [] }
        shardBuilt = true
        return [.send(.ready)]
    }

    private mutating func dropAll() -> [Effect] {
        defer { tiles = [:] }
        return tiles.isEmpty ? [] : [.drop(Set(tiles.keys))]
    }

    private mutating func stopIfAsked() -> [Effect] {
        guard stopsBeforeBuilding else { return [] }
        stopsBeforeBuilding = false
        return [.stopProcess]
    }

    private mutating func load(op: UInt64, _ part: TileCells) -> [Effect] {
        guard let assignment, assignment.myTiles.contains(part.tile) else {
            return report("got cells for tile \(part.tile), which this worker does not host")
        }
        guard tiles[part.tile] != nil else {
            // Starting cells, sent before the tiles are built.
            waiting[part.tile] = .cells(part.cells)
            return buildIfReady()
        }
        tiles[part.tile] = part.generation
        return [.load(op: op, part)]
    }

    /// A tile this worker now hosts, moved from another (it follows the new `assign`).
    private mutating func adopt(_ state: TileState) -> [Effect] {
        guard let assignment, assignment.myTiles.contains(state.tile), tiles[state.tile] == nil else {
            return report("got tile \(state.tile), which this worker was not given")
        }
        guard state.generation == assignment.generation else {
            return report("got tile \(state.tile) at generation \(state.generation), the run is at \(assignment.generation)")
        }
        waiting[state.tile] = .moved(state)
        return buildIfReady()
    }

    /// Gives up `given` (they move to other workers): each goes to the coordinator whole.
    private mutating func handOff(op: UInt64, _ given: [TileID]) -> [Effect] {
        guard running == nil else { return report("asked to hand off tiles while it runs") }
        if let stranger = given.first(where: { tiles[$0] == nil }) {
            return report("asked to hand off tile \(stranger), which this worker does not host")
        }
        for tile in given { tiles[tile] = nil }
        if tiles.isEmpty, leaveAsked { handedOffSinceAsked = true }
        return [.handOff(op: op, given)]
    }

    /// Once every tile's cells are in: the tiles to make, and every hosted tile's links.
    private mutating func buildIfReady() -> [Effect] {
        guard let assignment else { return [] }
        let mine = assignment.myTiles
        guard mine.allSatisfy({ tiles[$0] != nil || waiting[$0] != nil }) else { return [] }
        let tiling = assignment.tiling
        var make: [TileID: TileStart] = [:]
        for tile in mine where tiles[tile] == nil {
            let rect = tiling.rect(of: tile)
            let start = waiting.removeValue(forKey: tile)!
            if case .cells(let cells) = start, cells.width != rect.width || cells.height != rect.height {
                return report("cells for tile \(tile) are \(cells.width)x\(cells.height), expected \(rect.width)x\(rect.height)")
            }
            make[tile] = start
        }
        var links: [TileID: [Direction: Link]] = [:], moved: [TileID: Set<Direction>] = [:]
        for tile in mine {
            for side in Direction.allCases {
                guard let other = tiling.neighbour(of: tile, side) else { continue }
                let owner = assignment.owner(of: other)
                links[tile, default: [:]][side] = owner == assignment.worker ? .local(other) : .remote(other, endpoint: assignment.endpoints[owner])
                if let before = owners, before.endpoints[before.owner(of: other)] != assignment.endpoints[owner] {
                    moved[tile, default: []].insert(side)
                }
            }
        }
        owners = nil
        return [.build(Build(assignment: assignment, make: make, links: links, moved: moved))]
    }

    /// `build`'s tiles are made and linked: the worker is ready.
    package mutating func built(_ build: Build) -> [Effect] {
        for tile in build.make.keys { tiles[tile] = build.assignment.generation }
        return [.send(.ready)]
    }

    /// A tile could not be made or reached: the run fails.
    package func failed(_ error: any Error) -> [Effect] { report("\(error)") }

    // MARK: Runs

    package enum RunEnd: Sendable, Equatable {
        /// Every tile ran the generations: the shell says `done` with its figures.
        case completed(generations: UInt64)
        /// A tile failed, or the run was halted: where each tile got to.
        case failed(String, reached: [TileID: UInt64])
        /// The worker is leaving.
        case cancelled
    }

    /// The run in progress ended.
    package mutating func ran(_ end: RunEnd) -> [Effect] {
        let halting = self.halting
        (running, self.halting) = (nil, nil)
        switch end {
        case .completed(let generations):
            for tile in tiles.keys { tiles[tile]! += generations }
            return []
        case .failed(let why, let reached):
            tiles.merge(reached.filter { tiles[$0.key] != nil }) { $1 }
            if let halting { return [.send(.halted(op: halting))] }
            return report(why)
        case .cancelled:
            return []
        }
    }

    // MARK: The halo inbox

    /// A strip from the worker at `sender` (its connection presented the run's token).
    package func receive(_ strip: HaloStrip, epoch: UInt64, from sender: String) -> [Effect] {
        // Sent before the tiles were rebuilt (a rollback): its round was abandoned. Not
        // worth a line: every strip in flight when a worker is lost ends here.
        if let assignment, epoch < assignment.epoch { return [] }
        guard let assignment, tiles[strip.tile] != nil else {
            return [.refuseStrip("refused a halo strip for tile \(strip.tile), which this worker does not host")]
        }
        guard epoch == assignment.epoch else {
            return [.refuseStrip("refused a halo strip from \(sender) sent under assignment \(epoch): this worker has only \(assignment.epoch)")]
        }
        let neighbour = assignment.tiling.neighbour(of: strip.tile, strip.side)
        guard neighbour.map({ assignment.endpoints[assignment.owner(of: $0)] }) == sender else {
            return [.refuseStrip("refused a halo strip for the \(strip.side) side of tile \(strip.tile) from \(sender), which does not own the tile on that side")]
        }
        return [.deliver(strip)]
    }

    /// Bands from the worker at `sender` (its connection presented the run's token), for
    /// the shard hosted here.
    package func receive(_ bands: Bands, from sender: String) -> [Effect] {
        guard let shard else {
            return [.refuseStrip("refused bands from \(sender): this worker hosts no shard of a sparse plane")]
        }
        // Sent under an earlier assignment, whose stretch was abandoned.
        if bands.epoch < shard.epoch { return [] }
        guard bands.epoch == shard.epoch else {
            return [.refuseStrip("refused bands from \(sender) sent under assignment \(bands.epoch): this worker has only \(shard.epoch)")]
        }
        guard shardBuilt else { return [.refuseStrip("refused bands from \(sender) before this worker's shard was made")] }
        guard let from = shard.endpoints.firstIndex(of: sender), from != shard.shard else {
            return [.refuseStrip("refused bands from \(sender), which hosts no other shard of this plane")]
        }
        return [.deliverBands(bands, from: from)]
    }

    /// A copy of one of the buddy's tiles, to keep for it.
    package mutating func keep(_ copy: TileParts, from sender: String) -> [Effect] {
        answer(snapshots.keep(copy, from: sender))
    }

    /// This worker's own tiles' parts for `order` are in, and their copies sent.
    package mutating func snapshotTaken(op: UInt64, _ order: SnapshotOrder, own: [TileID: [Overlay]]) -> [Effect] {
        answer(snapshots.begin(op: op, order, own: own))
    }

    private func answer(_ outcome: SnapshotStore.Outcome) -> [Effect] {
        switch outcome {
        case .complete(let op): [.send(.snapshotted(op: op))]
        case .waiting: []
        case .refused(let why): [.log(why)]
        }
    }

    // MARK: Leaving

    /// SIGTERM asks to leave: the coordinator moves this worker's tiles to others and then
    /// tells it to shut down, and the run goes on. A second signal (or SIGINT) leaves at once.
    package mutating func signalled(_ signal: Int32) -> [Effect] {
        guard signal == SIGTERM, !leaveAsked else { return [.end(.interrupted(Signals.name(signal)))] }
        leaveAsked = true
        return [.log("SIGTERM: handing this worker's tiles to the others before leaving (again to leave at once)"),
                .send(.leaving)]
    }

    /// What to tell `tessera worker --drain` as this worker ends, if it was asked to leave.
    package func drainAnswer(after ending: Ending) -> DrainAnswer? {
        guard leaveAsked else { return nil }
        switch ending {
        case .shutdown: return !tiles.isEmpty || shard != nil ? .runEnded : handedOffSinceAsked ? .handedOff : .heldNone
        case .aborted(let reason): return .ended("its run was stopped: \(reason)")
        case .refused(let reason): return .ended("its coordinator turned it away: \(reason)")
        case .coordinatorLost: return .ended("its coordinator went silent")
        case .interrupted(let signal): return .ended("\(signal) made it leave at once")
        }
    }
}
