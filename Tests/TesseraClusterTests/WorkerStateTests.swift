import Glibc
import Testing
import TesseraCluster
import TesseraCore
import TesseraTiles
import TesseraWire

/// A worker's decisions, event by event, with no tile actor, socket or process.
@Suite struct WorkerStateTests {
    /// A 96x32 torus in three 32x32 tiles, in one row: worker 0 hosts the first two.
    static let tiling = try! Tiling(shape: BoardShape(width: 96, height: 32, topology: .torus), columns: 3, rows: 1)
    static let token = HaloToken(high: 1, low: 2)
    static let endpoints = ["memory://w0", "memory://w1"]
    static let (a, b, c) = (TileID(column: 0, row: 0), TileID(column: 1, row: 0), TileID(column: 2, row: 0))

    static func assignment(_ start: Assignment.Start, owners: [Int] = [0, 0, 1], generation: UInt64 = 0, epoch: UInt64 = 0,
                           token: HaloToken = token) -> Assignment {
        Assignment(worker: 0, tiling: tiling, rule: .life, halo: 4, generation: generation, start: start,
                   endpoints: endpoints, owners: owners, epoch: epoch, haloToken: token)
    }

    static func failure(_ why: String) -> [WorkerState.Effect] { [.send(.failure(reason: why))] }

    /// The one build among `effects`.
    static func build(in effects: [WorkerState.Effect]) -> WorkerState.Build? {
        effects.compactMap { if case .build(let build) = $0 { build } else { nil } }.first
    }

    /// A worker that built its two painted tiles.
    static func ready() throws -> WorkerState {
        var state = WorkerState()
        let effects = state.receive(.assign(assignment(.painted(soup: nil, overlays: []))))
        let build = try #require(Self.build(in: effects))
        #expect(state.built(build) == [.send(.ready)])
        return state
    }

    @Test func aPaintedAssignmentBuildsEveryTileLinkedByItsNeighboursOwners() throws {
        var state = WorkerState()
        let effects = state.receive(.assign(Self.assignment(.painted(soup: nil, overlays: []))))
        let build = try #require(Self.build(in: effects))
        #expect(effects.count == 1)
        #expect(Set(build.make.keys) == [Self.a, Self.b])
        #expect(build.links[Self.a]?[.east] == .local(Self.b))
        #expect(build.links[Self.a]?[.west] == .remote(Self.c, endpoint: "memory://w1"))
        #expect(build.links[Self.b]?[.east] == .remote(Self.c, endpoint: "memory://w1"))
        // One row on a torus: a tile is its own neighbour above and below.
        #expect(build.links[Self.a]?[.north] == .local(Self.a))
        #expect(build.moved.isEmpty)
        #expect(state.tiles.isEmpty)
        #expect(state.built(build) == [.send(.ready)])
        #expect(state.tiles == [Self.a: 0, Self.b: 0])
    }

    @Test func aRunStartsOnlyOnceTheTilesAreBuiltAndOneAtATime() throws {
        var idle = WorkerState()
        #expect(idle.receive(.start(op: 1, generations: 8)) == Self.failure("asked to run before its tiles were built"))
        var state = try Self.ready()
        #expect(state.receive(.start(op: 2, generations: 8)) == [.run(op: 2, generations: 8)])
        #expect(state.receive(.start(op: 3, generations: 8)) == Self.failure("asked to run while it runs"))
        #expect(state.receive(.assign(Self.assignment(.goesOn))) == Self.failure("got a new assignment while it runs"))
        #expect(state.receive(.checkpoint(op: 4, folder: "/tmp/x")) == Self.failure("asked to write a checkpoint while it runs"))
        #expect(state.ran(.completed(generations: 8)) == [])
        #expect(state.tiles == [Self.a: 8, Self.b: 8])
        #expect(state.running == nil)
    }

    @Test func loadedCellsWaitForEveryTileAndMustFitIt() throws {
        var state = WorkerState()
        #expect(state.receive(.assign(Self.assignment(.loaded))) == [])
        let fits = BitGrid(width: 32, height: 32), wrong = BitGrid(width: 31, height: 32)
        #expect(state.receive(.load(op: 1, TileCells(tile: Self.a, generation: 0, cells: fits))) == [])
        #expect(state.receive(.load(op: 2, TileCells(tile: Self.c, generation: 0, cells: fits)))
            == Self.failure("got cells for tile \(Self.c), which this worker does not host"))
        #expect(state.receive(.load(op: 3, TileCells(tile: Self.b, generation: 0, cells: wrong)))
            == Self.failure("cells for tile \(Self.b) are 31x32, expected 32x32"))
    }

    @Test func aLoadIntoABuiltTileSetsItsGeneration() throws {
        var state = try Self.ready()
        let part = TileCells(tile: Self.b, generation: 40, cells: BitGrid(width: 32, height: 32))
        #expect(state.receive(.load(op: 5, part)) == [.load(op: 5, part)])
        #expect(state.tiles[Self.b] == 40)
    }

    @Test func tilesThatMoveAwayAreHandedOffAndTheSidesWhoseHostChangedAreSentWhole() throws {
        var state = try Self.ready()
        #expect(state.receive(.handOff(op: 1, tiles: [Self.c])) == Self.failure("asked to hand off tile \(Self.c), which this worker does not host"))
        #expect(state.receive(.handOff(op: 2, tiles: [Self.b])) == [.handOff(op: 2, [Self.b])])
        let effects = state.receive(.assign(Self.assignment(.goesOn, owners: [0, 1, 1], epoch: 1)))
        let build = try #require(Self.build(in: effects))
        #expect(build.make.isEmpty)
        #expect(build.links[Self.a]?[.east] == .remote(Self.b, endpoint: "memory://w1"))
        // The hosts east changed (this worker to w1); west's did not (w1 all along).
        #expect(build.moved[Self.a] == [.northEast, .east, .southEast])
    }

    @Test func aTileMovedHereIsBuiltFromItsStateOnceItComes() throws {
        var state = try Self.ready()
        #expect(state.receive(.assign(Self.assignment(.goesOn, owners: [0, 0, 0], epoch: 1))) == [])
        let cells = BitGrid(width: 32, height: 32)
        let early = TileState(tile: Self.c, generation: 3, cells: cells, previous: cells)
        #expect(state.receive(.tileState(op: 1, early)) == Self.failure("got tile \(Self.c) at generation 3, the run is at 0"))
        let moved = TileState(tile: Self.c, generation: 0, cells: cells, previous: cells)
        let build = try #require(Self.build(in: state.receive(.tileState(op: 1, moved))))
        #expect(build.make == [Self.c: .moved(moved)])
        #expect(build.moved[Self.b] == [.northEast, .east, .southEast])
        #expect(state.built(build) == [.send(.ready)])
        #expect(state.receive(.tileState(op: 1, moved)) == Self.failure("got tile \(Self.c), which this worker was not given"))
    }

    @Test func goingOnFromAnotherGenerationThanItsTilesIsReported() throws {
        var state = try Self.ready()
        #expect(state.receive(.assign(Self.assignment(.goesOn, generation: 5)))
            == Self.failure("tile \(Self.a) is at generation 0, the run goes on from 5"))
        var other = try Self.ready()
        #expect(other.receive(.assign(Self.assignment(.goesOn, token: HaloToken(high: 9, low: 9))))
            == Self.failure("was given another halo token than its run's"))
    }

    @Test func aRollbackRebuildsEachTileFromItsSnapshotOrReportsTheOneMissing() throws {
        var state = try Self.ready()
        let part = Overlay(cells: BitGrid(width: 1, height: 1), x: 3, y: 4)
        let order = SnapshotOrder(generation: 0, buddy: "memory://w1", keepsFor: "memory://w1", keeps: [Self.c], retains: nil)
        #expect(state.receive(.snapshot(op: 7, order)) == [.takeSnapshot(op: 7, order)])
        #expect(state.snapshotTaken(op: 7, order, own: [Self.a: [part], Self.b: []]) == [])
        #expect(state.keep(TileParts(tile: Self.c, generation: 0, parts: [part]), from: "memory://w1") == [.send(.snapshotted(op: 7))])
        // Rolled back with the whole row: its own two tiles and its buddy's.
        let effects = state.receive(.assign(Self.assignment(.restored, owners: [0, 0, 0], epoch: 2)))
        #expect(effects.first == .drop([Self.a, Self.b]))
        let build = try #require(Self.build(in: effects))
        #expect(build.make[Self.c] == .painted(StartingCells(soup: nil, overlays: [part]), board: Self.tiling.shape))
        var unsnapshotted = try Self.ready()
        #expect(unsnapshotted.receive(.assign(Self.assignment(.restored, generation: 0, epoch: 2)))
            == [.drop([Self.a, Self.b])] + Self.failure("has no snapshot of tile \(Self.a) at generation 0"))
    }

    @Test func aSnapshotOfTilesAtAnotherGenerationIsRefused() throws {
        var state = try Self.ready()
        let order = SnapshotOrder(generation: 9, buddy: "memory://w1", keepsFor: "memory://w1", keeps: [], retains: nil)
        #expect(state.receive(.snapshot(op: 1, order)).first == .send(.failure(reason: "cannot snapshot its tiles: tile \(state.tiles.first!.key) is at generation 0, the snapshot is of 9")))
    }

    @Test func haltAnswersAtOnceWhenIdleAndAfterTheRunWhenBusy() throws {
        var state = try Self.ready()
        #expect(state.receive(.halt(op: 1)) == [.send(.halted(op: 1))])
        _ = state.receive(.start(op: 2, generations: 100))
        #expect(state.receive(.halt(op: 3)) == [.halt])
        #expect(state.ran(.failed("halted", reached: [Self.a: 12, Self.b: 11])) == [.send(.halted(op: 3))])
        #expect(state.tiles == [Self.a: 12, Self.b: 11])
        // Not halted: a tile's failure is the run's.
        _ = state.receive(.start(op: 4, generations: 100))
        #expect(state.ran(.failed("boom", reached: [:])) == Self.failure("boom"))
    }

    @Test func stripsAreTakenOnlyFromTheNeighboursHostUnderTheCurrentAssignment() throws {
        var state = try Self.ready()
        _ = state.receive(.assign(Self.assignment(.goesOn, epoch: 3)))
        let strip = HaloStrip(tile: Self.a, side: .west, generation: 0, cells: BitGrid(width: 4, height: 32),
                              previous: BitGrid(width: 4, height: 32))
        #expect(state.receive(strip, epoch: 3, from: "memory://w1") == [.deliver(strip)])
        // From a round abandoned by a rollback: dropped without a word.
        #expect(state.receive(strip, epoch: 2, from: "memory://w1") == [])
        #expect(state.receive(strip, epoch: 4, from: "memory://w1")
            == [.refuseStrip("refused a halo strip from memory://w1 sent under assignment 4: this worker has only 3")])
        #expect(state.receive(strip, epoch: 3, from: "memory://w0")
            == [.refuseStrip("refused a halo strip for the west side of tile \(Self.a) from memory://w0, which does not own the tile on that side")])
        let stranger = HaloStrip(tile: Self.c, side: .west, generation: 0, cells: BitGrid(width: 4, height: 32),
                                 previous: BitGrid(width: 4, height: 32))
        #expect(state.receive(stranger, epoch: 3, from: "memory://w1")
            == [.refuseStrip("refused a halo strip for tile \(Self.c), which this worker does not host")])
    }

    @Test func sigtermAsksToLeaveOnceAndTheDrainHearsHowItEnded() throws {
        var state = try Self.ready()
        #expect(state.drainAnswer(after: .shutdown) == nil)
        #expect(state.signalled(SIGTERM).last == .send(.leaving))
        #expect(state.drainAnswer(after: .shutdown) == .runEnded)
        #expect(state.signalled(SIGTERM) == [.end(.interrupted("SIGTERM"))])
        // Kept by the coordinator: a later SIGTERM asks again.
        #expect(state.receive(.stays(reason: "no other worker")).last == .answerDrain(.stays("no other worker")))
        #expect(state.signalled(SIGTERM).last == .send(.leaving))
        _ = state.receive(.handOff(op: 1, tiles: [Self.a, Self.b]))
        #expect(state.drainAnswer(after: .shutdown) == .handedOff)
        #expect(state.drainAnswer(after: .coordinatorLost) == .ended("its coordinator went silent"))
        var empty = WorkerState()
        _ = empty.signalled(SIGTERM)
        #expect(empty.drainAnswer(after: .shutdown) == .heldNone)
        #expect(empty.signalled(SIGINT) == [.end(.interrupted("SIGINT"))])
    }

    // MARK: Shards

    static func shard(epoch: UInt64 = 1, token: HaloToken = token) -> ShardAssignment {
        ShardAssignment(shard: 0, map: ShardMap(starts: [0, 1 << 64]), rule: .life, board: nil, depth: 8, generation: 0,
                        endpoints: endpoints, epoch: epoch, haloToken: token, parts: [])
    }

    @Test func aShardReplacesTheTilesAndRunsOnceMade() throws {
        var state = try Self.ready()
        let given = Self.shard()
        #expect(state.receive(.start(op: 1, generations: 1)) == [.run(op: 1, generations: 1)])
        #expect(state.receive(.shard(given)) == Self.failure("got a shard while it runs"))
        _ = state.ran(.completed(generations: 1))
        #expect(state.receive(.shard(given)) == [.drop([Self.a, Self.b]), .hostShard(given)])
        #expect(state.tiles.isEmpty)
        #expect(state.receive(.start(op: 2, generations: 8)) == Self.failure("asked to run before its tiles were built"))
        #expect(state.receive(.readParts(op: 3)) == Self.failure("asked for a shard's cells, but hosts no shard"))
        let view = Viewport(x: -10, y: -10, cellsPerDot: 2, width: 8, height: 8)
        #expect(state.receive(.frameRequest(op: 3, view, clip: nil)) == Self.failure("asked for a frame before its shard was made"))
        #expect(state.shardBuilt(given) == [.send(.ready)])
        #expect(state.receive(.start(op: 4, generations: 8)) == [.run(op: 4, generations: 8)])
        #expect(state.receive(.readParts(op: 5)) == Self.failure("asked for its shard's cells while it runs"))
        #expect(state.receive(.frameRequest(op: 5, view, clip: nil)) == Self.failure("asked for a frame of its shard while it runs"))
        _ = state.ran(.completed(generations: 8))
        #expect(state.receive(.readParts(op: 6)) == [.sendParts(op: 6)])
        #expect(state.receive(.frameRequest(op: 7, view, clip: nil)) == [.sendShardFrame(op: 7, view)])
        // Tiles again: the shard goes.
        let effects = state.receive(.assign(Self.assignment(.painted(soup: nil, overlays: []), token: Self.token)))
        #expect(effects.first == .dropShard)
        #expect(state.shard == nil)
        #expect(Self.build(in: effects) != nil)
    }

    @Test func aBigShardIsMadeOnceAllItsCellsAreIn() {
        var state = WorkerState()
        let part = Overlay(cells: BitGrid(width: 1, height: 1), x: 0, y: 0)
        let first = ShardAssignment(shard: 0, map: ShardMap(starts: [0]), rule: .life, board: nil, depth: 8, generation: 0,
                                    endpoints: ["memory://w0"], epoch: 1, haloToken: Self.token, parts: [part], partCount: 3)
        #expect(state.receive(.shardCells([part])) == Self.failure("got cells for a shard it is not waiting for"))
        #expect(state.receive(.shard(first)).isEmpty)
        #expect(state.receive(.shardCells([part])).isEmpty)
        let whole = first.holding([part, part, part])
        #expect(state.receive(.shardCells([part])) == [.hostShard(whole)])
        #expect(state.receive(.shardCells([part])) == Self.failure("got cells for a shard it is not waiting for"))
        #expect(state.shardBuilt(whole) == [.send(.ready)])
        var over = WorkerState()
        _ = over.receive(.shard(first))
        #expect(over.receive(.shardCells([part, part, part])) == Self.failure("got 4 parts for its shard, which has 3"))
    }

    @Test func bandsAreTakenOnlyFromAnotherShardUnderTheCurrentAssignment() throws {
        var state = WorkerState()
        let bands = Bands(generation: 0, epoch: 2, parts: [])
        #expect(state.receive(bands, from: "memory://w1") == [.refuseStrip("refused bands from memory://w1: this worker hosts no shard of a sparse plane")])
        let given = Self.shard(epoch: 2)
        _ = state.receive(.shard(given))
        #expect(state.receive(bands, from: "memory://w1") == [.refuseStrip("refused bands from memory://w1 before this worker's shard was made")])
        _ = state.shardBuilt(given)
        #expect(state.receive(bands, from: "memory://w1") == [.deliverBands(bands, from: 1)])
        // An abandoned stretch's bands go quietly; a later epoch's, or our own, are refused.
        #expect(state.receive(Bands(generation: 0, epoch: 1, parts: []), from: "memory://w1").isEmpty)
        #expect(state.receive(Bands(generation: 0, epoch: 3, parts: []), from: "memory://w1")
            == [.refuseStrip("refused bands from memory://w1 sent under assignment 3: this worker has only 2")])
        #expect(state.receive(bands, from: "memory://w0") == [.refuseStrip("refused bands from memory://w0, which hosts no other shard of this plane")])
        #expect(state.receive(.shard(Self.shard(epoch: 3, token: HaloToken(high: 9, low: 9))))
            == Self.failure("was given another halo token than its run's"))
    }
}
