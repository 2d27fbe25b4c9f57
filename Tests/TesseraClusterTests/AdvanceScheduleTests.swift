import Testing
import TesseraCore
import TesseraWire
@testable import TesseraCluster

/// How a long advance goes, without a process: stretches, checkpoint stops, snapshots,
/// loads and moved tiles (`AdvanceSchedule`), and where a loss rolls back to
/// (`CoordinatorState.rollBack`).
@Suite struct AdvanceScheduleTests {
    let start = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }
    let a = TileID(column: 0, row: 0), b = TileID(column: 1, row: 0)

    func schedule(halo: Int = 8, generations: UInt64 = 1_000_000, checkpoints: CheckpointSchedule.Interval? = nil) -> AdvanceSchedule {
        AdvanceSchedule(halo: halo, from: 100, generations: generations, checkpoints: checkpoints, tileSeconds: [a: 1, b: 2], now: start)
    }

    @Test func stretchesAimAtAQuarterSecondInWholeRoundsGrowingAtMostFourfold() {
        var plan = schedule()
        #expect(plan.nextCount(at: 100) == 8, "the first stretch is one halo round")
        // Fast: four times as long, no more.
        plan.stretched(count: 8, seconds: 0.001)
        #expect(plan.nextCount(at: 108) == 32)
        // 32 generations took a second: a quarter second's worth, rounded down to rounds.
        plan.stretched(count: 32, seconds: 1)
        #expect(plan.nextCount(at: 140) == 8)
        // Never below one round, however slow.
        plan.stretched(count: 8, seconds: 100)
        #expect(plan.nextCount(at: 148) == 8)
        // 17.5 rounds' worth rounds down to 17 rounds.
        plan.stretched(count: 40, seconds: 0.25 * 40 / 140)
        #expect(plan.nextCount(at: 156) == 136)
        #expect(plan.stretches == 5)
    }

    @Test func aStretchStopsAtTheEndAndAtEachCheckpoint() {
        var plan = schedule(generations: 50, checkpoints: .generations(64))
        plan.stretched(count: 8, seconds: 1e-6)
        plan.stretched(count: 32, seconds: 1e-6)
        // From 100: the checkpoint at 128 first, then the run's end at 150.
        #expect(plan.nextCount(at: 100) == 28)
        #expect(plan.due(at: 128, now: at(0.1), restartsLeft: 0) == (checkpoint: true, snapshot: false))
        #expect(plan.nextCount(at: 128) == 22)
        #expect(plan.due(at: 150, now: at(0.2), restartsLeft: 0) == (checkpoint: false, snapshot: false))
    }

    @Test func checkpointsByTimeComeWhenTheirIntervalHasPassed() {
        var plan = schedule(checkpoints: .seconds(60))
        #expect(plan.due(at: 200, now: at(59), restartsLeft: 0).checkpoint == false)
        #expect(plan.due(at: 200, now: at(60), restartsLeft: 0).checkpoint == true)
        plan.checkpointed(at: at(60))
        #expect(plan.due(at: 300, now: at(119), restartsLeft: 0).checkpoint == false)
    }

    @Test func snapshotsComeEveryTwoSecondsOrLessOftenWhereSlowAndWithEveryCheckpoint() {
        var plan = schedule(checkpoints: .generations(1000))
        #expect(plan.due(at: 200, now: at(1.9), restartsLeft: 1).snapshot == false)
        #expect(plan.due(at: 200, now: at(2), restartsLeft: 1).snapshot == true)
        #expect(plan.due(at: 200, now: at(2), restartsLeft: 0).snapshot == false, "no restarts: nothing to roll back for")
        // A checkpoint brings one, so memory never rolls back further than disk.
        #expect(plan.due(at: 1000, now: at(0.5), restartsLeft: 1) == (checkpoint: true, snapshot: true))
        // None at the run's end.
        #expect(plan.due(at: 1_000_100, now: at(10), restartsLeft: 1).snapshot == false)
        // One that took 0.1 s: every 4 s (40 times as long).
        plan.snapshotted(started: at(2), ended: at(2.1))
        #expect(plan.snapshotInterval == .seconds(4))
        #expect(plan.due(at: 300, now: at(6.0), restartsLeft: 1).snapshot == false)
        #expect(plan.due(at: 300, now: at(6.1), restartsLeft: 1).snapshot == true)
        // A quick one goes back to every two seconds.
        plan.snapshotted(started: at(7), ended: at(7.001))
        #expect(plan.snapshotInterval == AdvanceSchedule.defaultSnapshotInterval)
    }

    @Test func loadsAreTheComputeSinceTheLastLookAndMovedTilesStayAWhile() {
        var plan = schedule()
        #expect(plan.loads(measured: [a: 1.5, b: 2.25]) == [a: 0.5, b: 0.25])
        #expect(plan.loads(measured: [a: 2, b: 2.25]) == [a: 0.5, b: 0])
        // A moved tile's running total starts again on its new worker.
        for count in 0..<3 { _ = plan.nextCount(at: 100 + UInt64(count) * 8) }
        plan.moved([b])
        #expect(plan.loads(measured: [a: 2, b: 0.125]) == [a: 0, b: 0.125])
        #expect(plan.staying == [b])
        for count in 0..<AdvanceSchedule.stayAfterMove { _ = plan.nextCount(at: 200 + UInt64(count) * 8) }
        #expect(plan.staying == [b], "four stretches after its move, it still stays")
        _ = plan.nextCount(at: 300)
        #expect(plan.staying.isEmpty)
        // Dealt afresh: no tile stays, and the totals count from nothing.
        plan.moved([a])
        plan.startOver()
        #expect(plan.staying.isEmpty && plan.loads(measured: [a: 0.5]) == [a: 0.5])
    }

    // MARK: where a loss rolls back to

    @Test func aLossRollsBackToTheBestPlaceThereIs() throws {
        let peers: [PeerID] = ["a", "b", "c"].map { Array("worker-\($0)".utf8) }
        var state = SnapshotTests().ready(3)
        state.restartsLeft = 2
        #expect(state.rollBack(checkpoints: false) == .runStart)
        #expect(state.rollBack(checkpoints: true) == .checkpointElseStart)
        _ = try state.begin(.snapshot)
        for peer in peers { _ = state.receive(.snapshotted(op: 1), from: peer, now: start) }
        #expect(state.rollBack(checkpoints: true) == .memorySnapshot(generation: 10))
        // A worker and its buddy both gone: the snapshot cannot be rebuilt.
        var bothLost = state
        _ = bothLost.workerExited(pid: 1, host: nil, how: "was killed by signal 9")
        _ = bothLost.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        #expect(bothLost.rollBack(checkpoints: true) == .checkpointElseStart)
        // Dealt afresh after a loss, the tiles are still the run's own.
        var rolledBack = state
        _ = try rolledBack.begin(.rollBack(CoordinatorStateTests.plan))
        #expect(rolledBack.rollBack(checkpoints: true) == .checkpointElseStart)
        // New tiles (the window moved): neither the run's start nor a checkpoint stands in.
        _ = try state.begin(.replan(CoordinatorStateTests.plan))
        #expect(state.rollBack(checkpoints: true) == .presentPlan)
        #expect(state.rollBack(checkpoints: false) == .presentPlan)
    }

    // MARK: between stretches: moves and re-cuts

    @Test func balancingMovesTilesOnlyAsItsPolicySaysAndLeaversAlways() throws {
        var state = CoordinatorStateTests().ready()
        var generator = SplitMix64(seed: 0)
        let loads = Dictionary(uniqueKeysWithValues: state.plan.tiling.tiles.map { ($0, 1.0) })
        #expect(state.moves(.off, loads: loads, seconds: 1, staying: [], random: &generator).isEmpty)
        // Loads over a few milliseconds are noise: the policy is not asked.
        #expect(state.moves(.standard, loads: loads, seconds: 0.01, staying: [], random: &generator).isEmpty)
        // Random moves (for tests) are the seed's, and leave every worker a tile.
        var first = SplitMix64(seed: 5), again = SplitMix64(seed: 5)
        let random = state.moves(.random(seed: 5), loads: loads, seconds: 1, staying: [], random: &first)
        #expect(!random.isEmpty && random == state.moves(.random(seed: 5), loads: loads, seconds: 1, staying: [], random: &again))
        var owners = Dictionary(uniqueKeysWithValues: state.plan.tiling.tiles.map { ($0, state.owner(of: $0)) })
        owners.merge(random) { $1 }
        #expect(Set(owners.values) == [0, 1])
        // A worker that asked to leave: its tiles go, balancing or not.
        _ = state.receive(.leaving, from: CoordinatorStateTests().b, now: start)
        let leaving = state.moves(.off, loads: loads, seconds: 1, staying: [], random: &generator)
        #expect(Set(leaving.keys) == Set(state.members[1].tiles) && leaving.values.allSatisfy { $0 == 0 })
    }

    /// Two workers with a tile each, and `joiners` more that said hello mid-run.
    func joined(_ joiners: Int, width: Int = 64, height: Int = 32) throws -> CoordinatorState {
        let tiling = try Tiling(shape: BoardShape(width: width, height: height, topology: .torus), columns: 1, rows: 2)
        let plan = RunPlan(tiling: tiling, rule: .life, halo: 2, generation: 0, generations: 100,
                           soup: try Soup(density: 0.3, seed: 1), cells: nil)
        var state = CoordinatorState(.init(plan: plan, workers: 2, silence: .seconds(5), connectDeadline: start + .seconds(30),
                                           servesPresenter: false))
        let names = ["a", "b", "c", "d"]
        for (index, name) in names.prefix(2).enumerated() {
            _ = state.receive(CoordinatorStateTests.hello(name, pid: UInt32(index + 1)), from: Array("worker-\(name)".utf8), now: start)
            _ = state.receive(CoordinatorStateTests.beat, from: Array("worker-\(name)".utf8), now: start)
        }
        for name in names.prefix(2) { _ = state.receive(.ready, from: Array("worker-\(name)".utf8), now: start) }
        for (index, name) in names.dropFirst(2).prefix(joiners).enumerated() {
            _ = state.receive(CoordinatorStateTests.hello(name, pid: UInt32(index + 3)), from: Array("worker-\(name)".utf8), now: start)
            _ = state.receive(CoordinatorStateTests.beat, from: Array("worker-\(name)".utf8), now: start)
        }
        return state
    }

    @Test func aJoinerWhenEveryTileHasAWorkerGetsTheBoardCutAgain() throws {
        #expect(try joined(0).recutForJoiners() == .none)
        guard case .cut(let tiling, idle: 1) = try joined(1).recutForJoiners() else {
            Issue.record("one joiner beside two one-tile workers: the board is cut in three")
            return
        }
        let shape = try joined(0).plan.tiling.shape
        #expect(tiling.tiles.count == 3 && tiling.shape == shape)
        guard case .cut(let four, idle: 2) = try joined(2).recutForJoiners() else {
            Issue.record("two joiners: cut in four")
            return
        }
        #expect(four.tiles.count == 4)
        // A board too large to gather in the coordinator: joiners wait, and say why.
        guard case .refused(let why) = try joined(1, width: 65536, height: 65536).recutForJoiners() else {
            Issue.record("a 65536² board is not gathered to be cut again")
            return
        }
        #expect(why.contains("the worker that joined stays idle") && why.contains("too large to gather"), "\(why)")
    }
}
