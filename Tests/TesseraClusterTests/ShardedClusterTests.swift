import Testing
import TesseraCluster
import TesseraCore
import TesseraWire

/// A sparse plane spread over workers as shards (`ShardPlan`), with the coordinator and
/// its workers as tasks of this process over `MemoryNetwork`: the assignment, the bands
/// between workers, the reports and the read of live parts, against one `SparsePlane`.
@Suite struct ShardedClusterTests {
    /// A soup patch of 160 tiles, big enough to be cut in two shards, and a glider far
    /// away to the upper left, whose tiles fall to the first shard.
    static let parts: [PlacedCells] = {
        let soup = try! Soup(density: 0.4, seed: 7)
        var glider = BitGrid(width: 3, height: 3)
        (glider[1, 0], glider[2, 1], glider[0, 2], glider[1, 2], glider[2, 2]) = (true, true, true, true, true)
        return [PlacedCells(cells: soup.cells(x: 0, y: 0, width: 1024, height: 640), left: -300, top: 200),
                PlacedCells(cells: glider, left: -90_000, top: -70_000)]
    }()

    static func plan(generations: UInt64, board: BoardShape? = nil) throws -> RunPlan {
        let tiling = try Tiling(shape: board ?? BoardShape(width: 64, height: 64, topology: .infinite), columns: 1, rows: 1)
        return RunPlan.sharded(try ShardPlan(parts: parts, rule: .life, board: board, depth: 16), tiling: tiling, rule: .life, generation: 0,
                               generations: generations)
    }

    /// The same cells stepped in one sparse plane.
    static func expected(after generations: UInt64, board: BoardShape? = nil) throws -> [PlacedCells] {
        let plane = try SparsePlane(parts: parts, rule: .life, board: board)
        plane.advance(generations)
        return plane.liveParts()
    }

    /// `parts` drawn on one sparse plane, so that two ways of cutting the same cells compare equal.
    static func normalised(_ parts: [PlacedCells], board: BoardShape? = nil) throws -> [PlacedCells] {
        try SparsePlane(parts: parts, rule: .life, board: board).liveParts()
    }

    @Test func threeWorkersStepASparsePlaneAsOnePlaneDoes() async throws {
        let (parts, outcome, tiles) = try await InMemoryClusterTests.withCluster(workers: 3, plan: try Self.plan(generations: 100)) { coordinator in
            try await coordinator.advance(37)
            try await coordinator.advance(63)
            let outcome = await coordinator.outcome
            return (try await coordinator.liveParts(), outcome, outcome.sparseTiles ?? .max)
        }
        let expected = try Self.expected(after: 100)
        #expect(try Self.normalised(parts) == expected)
        #expect(outcome.population == expected.reduce(0) { $0 + $1.cells.population })
        // The soup was cut in two; the third worker's shard owns no tile but trades bands.
        #expect(outcome.workers.count == 3)
        #expect(outcome.workers.filter { ($0.report.shard?.tiles ?? 0) > 0 }.count == 2)
        #expect(outcome.workers.filter { $0.report.bytesSent > 0 }.count == 3)
        // Memory follows the live cells: the glider 90000 cells away costs its few tiles.
        #expect(tiles < 400)
    }

    @Test func aSparsePlaneOnABoundedTorusWrapsAcrossShards() async throws {
        let board = BoardShape(width: 1024, height: 1024, topology: .torus, left: -512, top: -512)
        let (parts, population) = try await InMemoryClusterTests.withCluster(workers: 2, plan: try Self.plan(generations: 80, board: board)) { coordinator in
            try await coordinator.advance(80)
            return (try await coordinator.liveParts(), await coordinator.outcome.population)
        }
        let expected = try Self.expected(after: 80, board: board)
        #expect(try Self.normalised(parts, board: board) == expected)
        #expect(population == expected.reduce(0) { $0 + $1.cells.population })
    }

    /// A shard host lost mid-run: the shards are dealt again to the others from the last
    /// snapshot of shards (the live cells the coordinator read and kept), or, with none
    /// taken, from the run's start; either way the result is one plane's.
    @Test(arguments: [(Duration.seconds(3600), UInt64(0)), (.zero, 40)])
    func aShardLostMidRunIsDealtAgainFromTheLastSnapshot(interval: Duration, rolledBackTo: UInt64) async throws {
        let lose = Completion<Void>()
        let (parts, outcome) = try await InMemoryClusterTests.withCluster(workers: 3, plan: try Self.plan(generations: 90), doomed: 0,
                                                                          lose: lose) { coordinator in
            await coordinator.setShardSnapshotInterval(interval)
            try await coordinator.advance(40, balancing: .off)
            lose.succeed()
            try await coordinator.advance(50, balancing: .off)
            return (try await coordinator.liveParts(), await coordinator.outcome)
        }
        #expect(try Self.normalised(parts) == (try Self.expected(after: 90)))
        #expect(outcome.recoveries.count == 1)
        #expect(outcome.recoveries.first?.rolledBackTo == rolledBackTo)
        #expect(outcome.snapshots.isEmpty == (interval > .zero))
    }

    /// Frames of shards are one plane's frames: close up on the far glider, zoomed out
    /// over the soup cut in two, and on a bounded torus in its own coordinates.
    @Test func framesOfShardsAreThoseOfOnePlane() async throws {
        let views = [Viewport(x: -90_010, y: -70_010, cellsPerDot: 1, width: 40, height: 40),
                     Viewport(x: -400, y: 100, cellsPerDot: 8, width: 160, height: 100),
                     Viewport(x: -400, y: 100, cellsPerDot: 1, width: 1200, height: 800)]
        let frames = try await InMemoryClusterTests.withCluster(workers: 3, plan: try Self.plan(generations: 50)) { coordinator in
            try await coordinator.advance(50)
            var frames: [BitGrid] = []
            for view in views { frames.append(try await coordinator.frame(view)) }
            return frames
        }
        let plane = try SparsePlane(parts: Self.parts, rule: .life)
        plane.advance(50)
        #expect(frames == views.map(plane.dots(in:)))
        #expect(frames.allSatisfy { $0.population > 0 })
        let board = BoardShape(width: 1024, height: 1024, topology: .torus, left: -512, top: -512)
        let view = Viewport(x: 0, y: 0, cellsPerDot: 4, width: 256, height: 256)
        let torus = try await InMemoryClusterTests.withCluster(workers: 2, plan: try Self.plan(generations: 20, board: board)) { coordinator in
            try await coordinator.advance(20)
            return try await coordinator.frame(view)
        }
        let wrapped = try SparsePlane(parts: Self.parts, rule: .life, board: board)
        wrapped.advance(20)
        // The board's own coordinates: its corner is Golly's (-512, -512).
        #expect(torus == wrapped.dots(in: view.moved(dx: -512, dy: -512)) && torus.population > 0)
    }

    /// A soup patch and 200 quiet blocks far off, cut in equal counts: one shard holds
    /// nearly all the soup. Its measured compute makes the coordinator deal the shards
    /// again by cost, the soup cut between them, and the result is one plane's.
    @Test func unevenShardsAreDealtAgainByTheirMeasuredCost() async throws {
        var block = BitGrid(width: 2, height: 2)
        (block[0, 0], block[1, 0], block[0, 1], block[1, 1]) = (true, true, true, true)
        let parts = [Self.parts[0]] + (0..<200).map { PlacedCells(cells: block, left: 1_000_000 + 64 * $0, top: 1000) }
        let tiling = try Tiling(shape: BoardShape(width: 64, height: 64, topology: .infinite), columns: 1, rows: 1)
        let plan = RunPlan.sharded(try ShardPlan(parts: parts, rule: .life, board: nil, depth: 16), tiling: tiling, rule: .life,
                                   generation: 0, generations: 1200)
        let (live, outcome) = try await InMemoryClusterTests.withCluster(workers: 2, plan: plan) { coordinator in
            await coordinator.balanceShardsOnAnyStretch()
            try await coordinator.advance(1200, balancing: .standard)
            return (try await coordinator.liveParts(), await coordinator.outcome)
        }
        let one = try SparsePlane(parts: parts, rule: .life)
        one.advance(1200)
        #expect(try Self.normalised(live) == one.liveParts())
        #expect(!outcome.shardDeals.isEmpty, "the shards' loads were uneven")
        // Both shards hold soup now: the blocks alone are 800 cells.
        #expect(outcome.workers.allSatisfy { ($0.report.shard?.population ?? 0) > 2000 }, "\(outcome.workers.map(\.report.shard))")
    }

    @Test func requestsThatNeedTilesAreRefusedOnShards() async throws {
        _ = try await InMemoryClusterTests.withCluster(workers: 2, plan: try Self.plan(generations: 1)) { coordinator in
            await #expect(throws: TesseraError.self) { try await coordinator.collect() }
        }
    }
}
