import Testing
import TesseraCore
@testable import TesseraCluster
@testable import TesseraWire

/// Double in-memory snapshots: the coordinator's ring of buddies and its roll back, as a
/// pure state machine, and a worker's store of its own and its buddy's cells.
@Suite struct SnapshotTests {
    typealias Base = CoordinatorStateTests
    let peers: [PeerID] = ["a", "b", "c"].map { Array("worker-\($0)".utf8) }
    let now = ContinuousClock.now

    /// `count` workers joined and built their tiles of the 2×2 tiling.
    func ready(_ count: Int) -> CoordinatorState {
        var state = Base.state(workers: count)
        for (i, name) in ["a", "b", "c"].prefix(count).enumerated() {
            _ = state.receive(Base.hello(name, pid: UInt32(i + 1)), from: peers[i], now: now)
            _ = state.receive(Base.beat, from: peers[i], now: now)
        }
        for i in 0..<count { _ = state.receive(.ready, from: peers[i], now: now) }
        return state
    }

    func orders(_ effects: [CoordinatorState.Effect]) -> [(op: UInt64, order: SnapshotOrder, to: PeerID)] {
        effects.compactMap {
            if case .send(.snapshot(let op, let order), let peer) = $0 { (op, order, peer) } else { nil }
        }
    }

    @Test func everyHostCopiesToTheNextInARing() throws {
        var state = ready(3)
        let sent = orders(try state.begin(.snapshot))
        #expect(sent.count == 3)
        for (i, (_, order, peer)) in sent.enumerated() {
            #expect(peer == peers[i])
            #expect(order.generation == 10 && order.retains == nil)
            #expect(order.buddy == "tcp://\(["a", "b", "c"][(i + 1) % 3]):1")
            #expect(order.keepsFor == "tcp://\(["a", "b", "c"][(i + 2) % 3]):1")
            #expect(order.keeps == state.members[(i + 2) % 3].tiles)
        }
        // Whole only once every host has its copies.
        #expect(state.receive(.snapshotted(op: 1), from: peers[0], now: now).isEmpty)
        #expect(state.receive(.snapshotted(op: 1), from: peers[1], now: now).isEmpty)
        #expect(state.memorySnapshot == nil)
        #expect(state.receive(.snapshotted(op: 1), from: peers[2], now: now) == [.completed(.snapshotted)])
        #expect(state.memorySnapshot?.generation == 10)
        // The next snapshot keeps this one until it is whole itself.
        #expect(orders(try state.begin(.snapshot)).allSatisfy { $0.order.retains == 10 })
    }

    @Test func aLostWorkersTilesComeBackOnItsBuddy() throws {
        var state = ready(3)
        state.restartsLeft = 1
        _ = try state.begin(.snapshot)
        for peer in peers { _ = state.receive(.snapshotted(op: 1), from: peer, now: now) }
        let tilesOfB = state.members[1].tiles
        _ = try state.begin(.advance(generations: 10))
        _ = state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        _ = state.receive(.done(op: 2, WorkerReport()), from: peers[0], now: now)
        _ = state.receive(.done(op: 2, WorkerReport()), from: peers[2], now: now)
        let plan = try #require(state.restorePlan())
        for tile in tilesOfB { #expect(plan[tile] == "tcp://c:1", "b's buddy is c") }
        let before = state.epoch
        let effects = try state.begin(.restore)
        let assignments = effects.compactMap { if case .send(.assign(let a), _) = $0 { a } else { nil } }
        #expect(assignments.count == 2 && assignments.allSatisfy { $0.start == .restored && $0.generation == 10 })
        // A new epoch: strips of the abandoned round, still on their way, are not taken.
        #expect(before > 0 && state.epoch > before && assignments.allSatisfy { $0.epoch == state.epoch })
        #expect(state.generation == 10 && state.members.count == 2)
        #expect(Set(state.members[1].tiles).isSuperset(of: tilesOfB))
        // Built from memory, the request completes like any replan.
        _ = state.receive(.ready, from: peers[0], now: now)
        #expect(state.receive(.ready, from: peers[2], now: now) == [.completed(.replanned)])
    }

    /// Three workers with a whole snapshot at generation 10, advanced to 20, and a second
    /// snapshot (op 3) that only worker a has answered.
    func secondSnapshotUnderway(restarts: Int = 0) throws -> CoordinatorState {
        var state = ready(3)
        state.restartsLeft = restarts
        _ = try state.begin(.snapshot)
        for peer in peers { _ = state.receive(.snapshotted(op: 1), from: peer, now: now) }
        _ = try state.begin(.advance(generations: 10))
        for peer in peers { _ = state.receive(.done(op: 2, WorkerReport()), from: peer, now: now) }
        _ = try state.begin(.snapshot)
        _ = state.receive(.snapshotted(op: 3), from: peers[0], now: now)
        return state
    }

    @Test func aSnapshotCutShortLeavesTheLastWholeOne() throws {
        var state = try secondSnapshotUnderway(restarts: 2)
        let cut = state.workerExited(pid: 3, host: nil, how: "was killed by signal 9")
        #expect(cut.contains(.completed(.interrupted("worker 2 (pid 3 on c, tiles \(state.members[2].tiles.map(\.description).joined(separator: " "))) was killed by signal 9"))))
        #expect(state.memorySnapshot?.generation == 10)
        #expect(state.restorePlan() != nil)
    }

    /// A snapshot that never becomes whole while every worker still beats (a copy lost
    /// on the way) is given up after `snapshotLimit`: the run goes on, and the last whole
    /// one stays the one to roll back to, instead of the run hanging.
    @Test func aSnapshotThatNeverCompletesIsGivenUp() throws {
        var state = try secondSnapshotUnderway()
        func tick(after seconds: Int) -> [CoordinatorState.Effect] {
            let at = now + .seconds(seconds)
            return state.tick(now: at) { _ in at }
        }
        let limit = Int(CoordinatorState.snapshotLimit.seconds)
        #expect(!tick(after: 1).contains(.completed(.snapshotted)))
        #expect(!tick(after: limit).contains(.completed(.snapshotted)), "within the limit it waits")
        let given = tick(after: limit + 2)
        #expect(given.contains(.completed(.snapshotted)))
        #expect(given.contains { if case .log(let line) = $0 { line.contains("was not whole") } else { false } }, "\(given)")
        #expect(state.memorySnapshot?.generation == 10, "the last whole snapshot stays")
        #expect(state.failure == nil)
        // An answer that comes after all is a stray, not a second completion.
        #expect(!state.receive(.snapshotted(op: 3), from: peers[1], now: now).contains(.completed(.snapshotted)))
    }

    /// A second loss soon after a roll back to a snapshot can find a checkpoint on disk
    /// newer than that snapshot (written just before the snapshot after it, which the
    /// first loss cut short): the run goes on from it. Counting the generations computed
    /// again as `at - restored` overflowed there, and a chaos run's coordinator died of
    /// SIGILL without a word.
    @Test func aRecoveryAheadOfWhereTheTilesStoodComputesNothingAgain() {
        let ahead = Coordinator.Recovery(lost: "worker 1 froze", at: 1750, rolledBackTo: 2000, seconds: 0.01, fromMemory: false)
        let back = Coordinator.Recovery(lost: "worker 2 froze", at: 2000, rolledBackTo: 1750, seconds: 0.01, fromMemory: true)
        #expect(ahead.recomputed == 0 && back.recomputed == 250)
        #expect(ahead.wentAhead && !back.wentAhead, "the summary says \"went on from\" only for the first")
        #expect(Coordinator.recomputed([back, ahead]) == 250)
        let line = Coordinator.Recovery.line("the checkpoint on disk", at: 1750, restored: 2000)
        #expect(line.contains("went on from the checkpoint on disk at generation 2000") && line.contains("nothing to compute again"), "\(line)")
        #expect(Coordinator.Recovery.line("the in-memory snapshot", at: 2000, restored: 1750)
                == "rolled back to the in-memory snapshot at generation 1750: 250 generations to compute again")
    }

    @Test func withAWorkerAndItsBuddyBothLostMemoryCannotHelp() throws {
        var state = ready(3)
        state.restartsLeft = 2
        _ = try state.begin(.snapshot)
        for peer in peers { _ = state.receive(.snapshotted(op: 1), from: peer, now: now) }
        _ = state.workerExited(pid: 1, host: nil, how: "was killed by signal 9")
        #expect(state.restorePlan() != nil)
        _ = state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        #expect(state.restorePlan() == nil, "a's copies were on b")
        #expect(throws: TesseraError.self) { try state.begin(.restore) }
    }

    @Test func aLoneHostHasNobodyToKeepACopy() throws {
        var state = ready(1)
        #expect(try state.begin(.snapshot) == [.completed(.snapshotted)])
        #expect(state.memorySnapshot == nil)
    }

    @Test func newCellsMakeTheSnapshotStale() throws {
        var state = ready(2)
        _ = try state.begin(.snapshot)
        for peer in peers.prefix(2) { _ = state.receive(.snapshotted(op: 1), from: peer, now: now) }
        #expect(state.memorySnapshot != nil)
        _ = try state.begin(.load(generation: 10) { BitGrid(width: $0.width, height: $0.height) })
        #expect(state.memorySnapshot == nil)
    }

    /// A read (rows for the unbounded plane's next window, a frame) is asked again once
    /// the tiles roll back: a loss during one no longer fails the run.
    @Test func aWorkerLostDuringAReadInterruptsIt() throws {
        var state = ready(2)
        state.restartsLeft = 1
        _ = try state.begin(.collect(area: TileRect(x: 0, y: 0, width: 64, height: 8)))
        let lost = state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        #expect(lost.contains { if case .completed(.interrupted) = $0 { true } else { false } }, "\(lost)")
        #expect(state.failure == nil)
    }

    // MARK: A worker's store

    static let t0 = TileID(column: 0, row: 0), t1 = TileID(column: 1, row: 0)
    static let parts = [Overlay(cells: try! Soup(density: 0.5, seed: 3).cells(x: 0, y: 0, width: 32, height: 16), x: 32, y: 0)]

    func order(_ generation: UInt64, retains: UInt64? = nil) -> SnapshotOrder {
        SnapshotOrder(generation: generation, buddy: "tcp://next:1", keepsFor: "tcp://before:1", keeps: [Self.t1], retains: retains)
    }

    @Test func aStoreCompletesWithItsBuddysCopies() {
        var store = SnapshotStore()
        #expect(store.begin(op: 7, order(20), own: [Self.t0: Self.parts]) == .waiting)
        let copy = TileParts(tile: Self.t1, generation: 20, parts: Self.parts)
        let other = TileParts(tile: Self.t1, generation: 20, parts: [])
        #expect(store.keep(other, from: "tcp://stranger:1") == .waiting, "a stranger's copy does not complete it")
        #expect(store.parts(of: Self.t1, at: 20) == nil)
        #expect(store.keep(copy, from: "tcp://before:1") == .complete(op: 7))
        #expect(store.parts(of: Self.t0, at: 20) == Self.parts && store.parts(of: Self.t1, at: 20) == Self.parts)
    }

    /// A snapshot cut short by a lost worker, and the same generation ordered again
    /// after the roll back with a new buddy, whose copy comes before the order: it must
    /// count for the new order (refused, it was lost, and a chaos run hung there).
    @Test func copiesForTheOrderAfterOneCutShortAreKept() {
        var store = SnapshotStore()
        #expect(store.begin(op: 1, order(20), own: [Self.t0: Self.parts]) == .waiting)
        let copy = TileParts(tile: Self.t1, generation: 20, parts: Self.parts)
        #expect(store.keep(copy, from: "tcp://new:1") == .waiting)
        let again = SnapshotOrder(generation: 20, buddy: "tcp://next:1", keepsFor: "tcp://new:1", keeps: [Self.t1], retains: nil)
        #expect(store.begin(op: 2, again, own: [Self.t0: Self.parts]) == .complete(op: 2))
        #expect(store.parts(of: Self.t1, at: 20) == Self.parts)
    }

    @Test func copiesBeforeTheirOrderCountOnceItComes() {
        var store = SnapshotStore()
        #expect(store.keep(TileParts(tile: Self.t1, generation: 20, parts: Self.parts), from: "tcp://before:1") == .waiting)
        #expect(store.begin(op: 8, order(20), own: [Self.t0: Self.parts]) == .complete(op: 8))
    }

    @Test func aStoreKeepsTheRetainedGenerationAndTheNewOneOnly() {
        var store = SnapshotStore()
        let copy = { (generation: UInt64) in TileParts(tile: Self.t1, generation: generation, parts: Self.parts) }
        _ = store.begin(op: 1, order(10), own: [Self.t0: Self.parts])
        _ = store.keep(copy(10), from: "tcp://before:1")
        _ = store.begin(op: 2, order(20, retains: 10), own: [Self.t0: Self.parts])
        #expect(store.generations == [10, 20])
        _ = store.begin(op: 3, order(30, retains: 20), own: [Self.t0: Self.parts])
        #expect(store.generations == [20, 30])
        #expect(store.parts(of: Self.t0, at: 10) == nil)
    }
}
