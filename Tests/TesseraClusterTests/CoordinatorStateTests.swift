import Testing
import TesseraCore
@testable import TesseraCluster
@testable import TesseraWire

/// The coordinator's protocol as a pure state machine: messages, ticks and requests go
/// in, effects come out. No process, no socket, no clock but the one passed in.
@Suite struct CoordinatorStateTests {
    static let shape = BoardShape(width: 64, height: 32, topology: .torus)
    static let tiling = try! Tiling(shape: shape, columns: 2, rows: 2)
    static let plan = RunPlan(tiling: tiling, rule: .life, halo: 2, generation: 10, generations: 100,
                              soup: try! Soup(density: 0.3, seed: 1), cells: nil)
    static let start = ContinuousClock.now

    let a: PeerID = Array("worker-a".utf8), b: PeerID = Array("worker-b".utf8)
    let stranger: PeerID = Array("stranger".utf8), presenter: PeerID = Array("presenter".utf8)

    static func state(workers: Int = 2, presenter: Bool = false, plan: RunPlan = plan) -> CoordinatorState {
        CoordinatorState(.init(plan: plan, workers: workers, silence: .seconds(5), connectDeadline: start + .seconds(30),
                               servesPresenter: presenter))
    }

    func at(_ seconds: Double) -> ContinuousClock.Instant { Self.start + .milliseconds(Int(seconds * 1000)) }

    static func hello(_ name: String, pid: UInt32 = 1) -> ToCoordinator {
        .hello(Hello(pid: pid, endpoint: "tcp://\(name):1", host: name))
    }

    static let beat = ToCoordinator.heartbeat(RunProgress(generation: 10))

    /// Two workers join, prove themselves and build their tiles.
    func ready(plan: RunPlan = plan) -> CoordinatorState {
        var state = Self.state(plan: plan)
        _ = state.receive(Self.hello("a", pid: 1), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        _ = state.receive(Self.hello("b", pid: 2), from: b, now: at(0))
        _ = state.receive(Self.beat, from: b, now: at(0))
        _ = state.receive(.ready, from: a, now: at(0.1))
        _ = state.receive(.ready, from: b, now: at(0.1))
        return state
    }

    func sent(_ effects: [CoordinatorState.Effect]) -> [(Message, PeerID)] {
        effects.compactMap { if case .send(let message, let peer) = $0 { (message, peer) } else { nil } }
    }

    /// The lines logged, refusals (counted when many) among them.
    func logs(_ effects: [CoordinatorState.Effect]) -> [String] {
        effects.compactMap {
            switch $0 {
            case .log(let line), .refused(let line): line
            default: nil
            }
        }
    }

    func failure(_ effects: [CoordinatorState.Effect]) -> String? {
        effects.lazy.compactMap { if case .failed(let error) = $0 { error.description } else { nil } }.first
    }

    // MARK: Joining

    @Test func workersJoinProveThemselvesAndGetTheirTiles() {
        var state = Self.state()
        #expect(state.receive(Self.hello("a"), from: a, now: at(0)).isEmpty)
        #expect(state.receive(Self.beat, from: a, now: at(0)).isEmpty, "one proven worker of two: keep gathering")
        #expect(state.receive(Self.hello("b"), from: b, now: at(0)).isEmpty)
        let effects = state.receive(Self.beat, from: b, now: at(0))
        let assignments = sent(effects).compactMap { message, peer -> (Assignment, PeerID)? in
            if case .assign(let assignment) = message { (assignment, peer) } else { nil }
        }
        #expect(assignments.map(\.1) == [a, b])
        #expect(assignments.map(\.0.worker) == [0, 1])
        #expect(assignments.allSatisfy { $0.0.endpoints == ["tcp://a:1", "tcp://b:1"] && $0.0.start == .painted(soup: Self.plan.soup, overlays: []) })
        #expect(state.phase == .preparing)
        #expect(state.receive(.ready, from: a, now: at(0.1)).isEmpty)
        #expect(state.receive(.ready, from: b, now: at(0.1)) == [.prepared])
        #expect(state.phase == .idle)
    }

    /// Before: one hello from a stranger took a worker's place for good.
    @Test func aLoneHelloTakesNoPlace() {
        var state = Self.state()
        _ = state.receive(Self.hello("fake"), from: stranger, now: at(0))
        _ = state.receive(Self.hello("a"), from: a, now: at(0.1))
        _ = state.receive(Self.beat, from: a, now: at(0.1))
        _ = state.receive(Self.hello("b"), from: b, now: at(0.2))
        let effects = state.receive(Self.beat, from: b, now: at(0.2))
        #expect(state.phase == .preparing)
        #expect(state.members.map(\.peer) == [a, b])
        #expect(sent(effects).contains { $0.0 == .refused(reason: "this run already has its 2 workers") && $0.1 == stranger })
    }

    @Test func aSilentPeerGivesItsPlaceBackWhileGathering() {
        var state = Self.state()
        _ = state.receive(Self.hello("a"), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        let effects = state.tick(now: at(6)) { _ in nil }
        #expect(logs(effects).contains { $0.contains("dropped worker") && $0.contains("went silent") })
        #expect(state.members.isEmpty)
        #expect(state.phase == .gathering)
    }

    @Test func duplicateHellosAndEndpointsAreRefused() {
        var state = Self.state()
        _ = state.receive(Self.hello("a"), from: a, now: at(0))
        let again = state.receive(Self.hello("a"), from: a, now: at(0))
        #expect(logs(again).contains { $0.contains("hello") })
        let sameEndpoint = state.receive(Self.hello("a", pid: 9), from: b, now: at(0))
        #expect(sent(sameEndpoint).contains { if case .refused = $0.0 { $0.1 == b } else { false } })
        #expect(state.members.count == 1)
    }

    /// A late worker joins (see `aWorkerThatJoinsMidRunTakesTilesWhenTheyMove`), but not
    /// under an endpoint another worker has.
    @Test func aLateWorkerWithATakenEndpointIsTurnedAway() {
        var state = ready()
        let effects = state.receive(Self.hello("a", pid: 9), from: stranger, now: at(1))
        #expect(sent(effects).contains { if case .refused = $0.0 { $0.1 == stranger } else { false } })
        #expect(state.members.count == 2)
    }

    @Test func missingWorkersFailAtTheDeadline() {
        var state = Self.state()
        _ = state.receive(Self.hello("a"), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        let effects = state.tick(now: at(31)) { _ in at(31) }
        #expect(failure(effects)?.contains("only 1 of 2 workers connected in time (1 missing)") == true)
        #expect(state.phase == .finished)
    }

    // MARK: Operations

    @Test func anAdvanceCompletesWhenEveryWorkerIsDone() throws {
        var state = ready()
        let start = try state.begin(.advance(generations: 7))
        #expect(sent(start).map(\.0) == [.start(op: 1, generations: 7), .start(op: 1, generations: 7)])
        #expect(state.phase == .busy)
        let report = WorkerReport(populations: [TileID(column: 0, row: 0): 3, TileID(column: 1, row: 0): 4])
        #expect(state.receive(.done(op: 1, report), from: a, now: at(1)).isEmpty)
        #expect(state.receive(.done(op: 1, WorkerReport()), from: b, now: at(1)) == [.completed(.advanced)])
        #expect(state.generation == 17)
        #expect(state.population == 7)
    }

    /// A replan (a head start's cells, the board cut again): every worker gets the new
    /// tiles, the request completes once all have built them, and the workers' reports
    /// start afresh.
    @Test func aReplanReassignsEveryTileAndWaitsForEveryWorker() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 2))
        _ = state.receive(.done(op: 1, WorkerReport(populations: [TileID(column: 0, row: 0): 3])), from: a, now: at(1))
        _ = state.receive(.done(op: 1, WorkerReport()), from: b, now: at(1))
        #expect(state.population == 3)
        let window = BoardShape(width: 512, height: 256, topology: .plane, left: -1_000_000, top: 77)
        let tiling = try Tiling(shape: window, columns: 1, rows: 2)
        let glider = BitGrid(width: 3, height: 3, words: [0b010, 0b100, 0b111])
        // A domino whose grid reaches up into the first tile (rows 124..<128), its cells
        // only in the second (rows 130 and 131).
        var domino = BitGrid(width: 3, height: 8)
        (domino[1, 6], domino[1, 7]) = (true, true)
        let next = RunPlan(tiling: tiling, rule: .life, halo: 8, generation: 12, generations: 0, soup: nil,
                           overlays: [Overlay(cells: glider, x: 300, y: 200), Overlay(cells: domino, x: 10, y: 124)], cells: nil)
        let effects = try state.begin(.replan(next))
        let assigned = sent(effects).compactMap { if case .assign(let x) = $0.0 { x } else { nil } }
        #expect(assigned.map(\.worker) == [0, 1])
        #expect(assigned.allSatisfy { $0.tiling == tiling && $0.generation == 12 })
        // The glider and the domino's cells lie on the second tile: only its worker is sent
        // them; the other paints an empty tile.
        #expect(assigned[0].start == .painted(soup: nil, overlays: []))
        guard case .painted(nil, let overlays) = assigned[1].start else {
            Issue.record("the second worker should paint its tiles: \(assigned[1].start)")
            return
        }
        #expect(overlays.map(\.x) == [300, 10])
        #expect(state.members.map(\.tiles) == [[TileID(column: 0, row: 0)], [TileID(column: 0, row: 1)]])
        #expect(state.population == 7, "the glider's and the domino's cells, counted from the plan")
        #expect(throws: TesseraError.self) { try state.begin(.advance(generations: 1)) }
        #expect(state.receive(.ready, from: a, now: at(2)).isEmpty)
        #expect(state.receive(.ready, from: b, now: at(2)) == [.completed(.replanned)])
        #expect(state.phase == .idle)
        #expect(state.generation == 12)
        #expect(state.plan.tiling == tiling)
    }

    // MARK: Moving tiles

    static let t00 = TileID(column: 0, row: 0), t10 = TileID(column: 1, row: 0)
    static let t01 = TileID(column: 0, row: 1), t11 = TileID(column: 1, row: 1)

    func whole(_ tile: TileID, generation: UInt64 = 10) -> TileState {
        let rect = Self.tiling.rect(of: tile)
        return TileState(tile: tile, generation: generation, cells: BitGrid(width: rect.width, height: rect.height),
                         previous: BitGrid(width: rect.width, height: rect.height))
    }

    /// A move asks the giver for the tile, sends every worker the new hosts (the board
    /// goes on) and the tile to its new host, and completes once every worker relinked.
    @Test func aMoveHandsTheTileOffAndRelinksEveryWorker() throws {
        var state = ready()
        #expect(state.members.map(\.tiles) == [[Self.t00, Self.t10], [Self.t01, Self.t11]])
        let asked = try state.begin(.move([Self.t10: 1]))
        #expect(sent(asked).map(\.0) == [.handOff(op: 1, tiles: [Self.t10])])
        #expect(sent(asked).map(\.1) == [a])
        let given = state.receive(.tileState(op: 1, whole(Self.t10)), from: a, now: at(1))
        let assigned = sent(given).compactMap { if case .assign(let x) = $0.0 { x } else { nil } }
        #expect(assigned.count == 2 && assigned.allSatisfy { $0.start == .goesOn && $0.owners == [0, 1, 1, 1] && $0.generation == 10 })
        #expect(sent(given).last.map { $0.0 == .tileState(op: 0, whole(Self.t10)) && $0.1 == b } == true)
        #expect(state.members.map(\.tiles) == [[Self.t00], [Self.t10, Self.t01, Self.t11]])
        #expect(state.receive(.ready, from: b, now: at(2)).isEmpty)
        #expect(state.receive(.ready, from: a, now: at(2)) == [.completed(.moved)])
        #expect(state.owner(of: Self.t10) == 1 && state.phase == .idle)
    }

    @Test func movesThatCannotBeAreRefusedBeforeAnythingIsSent() throws {
        var state = ready()
        #expect(throws: TesseraError.self) { try state.begin(.move([Self.t00: 1, Self.t10: 1])) }  // a would have none
        #expect(throws: TesseraError.self) { try state.begin(.move([Self.t00: 5])) }
        #expect(throws: TesseraError.self) { try state.begin(.move([TileID(column: 7, row: 0): 1])) }
        #expect(state.phase == .idle)
        #expect(try state.begin(.move([:])) == [.completed(.moved)])
    }

    /// A tile from the wrong worker, or twice, is stray; one at another generation or of
    /// the wrong size fails the run rather than land on a worker.
    @Test func handedOffTilesAreChecked() throws {
        var state = ready()
        _ = try state.begin(.move([Self.t10: 1, Self.t01: 0]))
        #expect(!logs(state.receive(.tileState(op: 1, whole(Self.t10)), from: b, now: at(1))).isEmpty, "b does not host it")
        #expect(state.receive(.tileState(op: 1, whole(Self.t10)), from: a, now: at(1)).isEmpty)
        #expect(!logs(state.receive(.tileState(op: 1, whole(Self.t10)), from: a, now: at(1))).isEmpty, "already in")
        let late = state.receive(.tileState(op: 1, whole(Self.t01, generation: 9)), from: b, now: at(1))
        #expect(failure(late)?.contains("generation 9") == true)
    }

    // MARK: Workers that join and leave

    let c: PeerID = Array("worker-c".utf8)

    /// Tiles move whole, so with a tile for every worker already a newcomer is told the
    /// board will be cut again for it, rather than that it gets tiles when they move.
    @Test func aWorkerThatJoinsWhenEveryTileHasAWorkerHearsTheBoardIsCutAgain() {
        var state = ready()
        for (index, name) in ["c", "d"].enumerated() {
            let peer: PeerID = Array("worker-\(name)".utf8)
            #expect(logs(state.receive(Self.hello(name, pid: UInt32(3 + index)), from: peer, now: at(1))).contains { $0.contains("joins the run: it gets tiles") })
            _ = state.receive(Self.beat, from: peer, now: at(1))
        }
        let idle = logs(state.receive(Self.hello("e", pid: 5), from: Array("worker-e".utf8), now: at(1)))
        #expect(idle.contains { $0.contains("one per worker already") && $0.contains("cut again") }, "\(idle)")
    }

    /// A worker that says hello mid-run is a member at once, holds nothing and is not
    /// asked to run; a move gives it tiles, and it must relink like the others.
    @Test func aWorkerThatJoinsMidRunTakesTilesWhenTheyMove() throws {
        var state = ready()
        #expect(logs(state.receive(Self.hello("c", pid: 3), from: c, now: at(1))).contains { $0.contains("joins the run") })
        #expect(state.receive(Self.beat, from: c, now: at(1)).isEmpty)
        #expect(state.members.count == 3 && state.members[2].tiles.isEmpty && state.isActive(2))
        let start = try state.begin(.advance(generations: 4))
        #expect(sent(start).map(\.1) == [a, b], "only workers with tiles run")
        _ = state.receive(.done(op: 1, WorkerReport()), from: a, now: at(2))
        #expect(state.receive(.done(op: 1, WorkerReport()), from: b, now: at(2)) == [.completed(.advanced)])
        _ = try state.begin(.move([Self.t10: 2, Self.t11: 2]))
        _ = state.receive(.tileState(op: 2, whole(Self.t10, generation: 14)), from: a, now: at(3))
        let given = state.receive(.tileState(op: 2, whole(Self.t11, generation: 14)), from: b, now: at(3))
        let assigned = sent(given).compactMap { if case .assign(let x) = $0.0 { x } else { nil } }
        #expect(assigned.map(\.worker) == [0, 1, 2] && assigned.allSatisfy { $0.endpoints.count == 3 })
        #expect(sent(given).filter { $0.1 == c }.count == 3, "its assignment and both tiles")
        for peer in [a, b] { #expect(state.receive(.ready, from: peer, now: at(4)).isEmpty) }
        #expect(state.receive(.ready, from: c, now: at(4)) == [.completed(.moved)])
        #expect(state.members.map(\.tiles) == [[Self.t00], [Self.t01], [Self.t10, Self.t11]])
    }

    /// SIGTERM to a worker: its tiles go to the others at the next stop, then it is told
    /// to shut down, its number goes, and its exit fails nothing.
    @Test func aLeavingWorkerHandsOffItsTilesAndGoes() throws {
        var state = ready()
        #expect(logs(state.receive(.leaving, from: a, now: at(1))).contains { $0.contains("asked to leave") })
        #expect(state.departures == [Self.t00: 1, Self.t10: 1])
        let asked = try state.begin(.move(state.departures))
        #expect(sent(asked).map(\.0) == [.handOff(op: 1, tiles: [Self.t00, Self.t10])])
        _ = state.receive(.tileState(op: 1, whole(Self.t00)), from: a, now: at(2))
        let given = state.receive(.tileState(op: 1, whole(Self.t10)), from: a, now: at(2))
        #expect(sent(given).contains { $0.0 == .shutdown && $0.1 == a })
        #expect(state.members.count == 1 && state.members[0].peer == b)
        let assigned = sent(given).compactMap { if case .assign(let x) = $0.0 { x } else { nil } }
        #expect(assigned.count == 1 && assigned[0].worker == 0 && assigned[0].owners == [0, 0, 0, 0])
        #expect(state.receive(.ready, from: b, now: at(3)) == [.completed(.moved)])
        #expect(failure(state.workerExited(pid: 1, host: nil, how: "exited with status 0")) == nil)
        #expect(state.phase == .idle)
    }

    /// The last worker that could hold the tiles stays; one that leaves while the run
    /// gathers just goes.
    @Test func theLastWorkerStaysAndAnEarlyLeaverJustGoes() throws {
        var state = ready()
        _ = state.receive(.leaving, from: a, now: at(1))
        #expect(logs(state.receive(.leaving, from: b, now: at(1))).contains { $0.contains("it stays") })
        #expect(state.isActive(1))
        var gathering = Self.state()
        _ = gathering.receive(Self.hello("a", pid: 1), from: a, now: at(0))
        _ = gathering.receive(Self.beat, from: a, now: at(0))
        #expect(sent(gathering.receive(.leaving, from: a, now: at(0))).map(\.0) == [.shutdown])
        #expect(gathering.members.isEmpty && gathering.phase == .gathering)
    }

    // MARK: Lost workers

    /// With restarts allowed, a worker lost mid-advance is fenced, the others are told
    /// to halt, and once they stopped (a `done` that crossed the halt counts) the
    /// advance answers `interrupted` instead of failing the run.
    @Test func aLostWorkerHaltsTheOthersAndInterruptsTheAdvance() throws {
        var state = ready()
        state.restartsLeft = 1
        _ = try state.begin(.advance(generations: 10))
        let lost = state.workerExited(pid: 1, host: nil, how: "was killed by signal 9")
        #expect(failure(lost) == nil)
        #expect(sent(lost).map(\.0) == [.halt(op: 1)] && sent(lost).map(\.1) == [b])
        #expect(state.members[0].gone && state.restartsLeft == 0)
        let answer = state.receive(.done(op: 1, WorkerReport()), from: b, now: at(1))
        #expect(answer == [.completed(.interrupted("worker 0 (pid 1 on a, tiles (0,0) (1,0)) was killed by signal 9"))])
        // Fenced: whatever the lost one says now changes nothing.
        #expect(!logs(state.receive(.done(op: 1, WorkerReport()), from: a, now: at(2))).isEmpty)
        // The next loss, with no restart left, fails the run.
        #expect(failure(state.workerExited(pid: 2, host: nil, how: "exited with status 1")) != nil)
    }

    @Test func aWorkerLostBetweenAdvancesIsNotedForTheNextOne() {
        var state = ready()
        state.restartsLeft = 2
        _ = state.tick(now: at(30)) { peer in peer == Array("worker-b".utf8) ? at(30) : nil }
        #expect(state.lostWhileIdle?.contains("stopped answering") == true)
        #expect(state.failure == nil && state.members[0].gone)
        state.recovered()
        #expect(state.lostWhileIdle == nil)
    }

    @Test func withoutRestartsALostWorkerFailsTheRunAsBefore() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 10))
        #expect(failure(state.workerExited(pid: 2, host: nil, how: "was killed by signal 9"))?.contains("worker 1") == true)
    }

    /// The assignments among `effects`, by the peer each goes to.
    func assignments(_ effects: [CoordinatorState.Effect]) -> [(Assignment, PeerID)] {
        sent(effects).compactMap { message, peer in if case .assign(let assignment) = message { (assignment, peer) } else { nil } }
    }

    /// Before: a worker lost while the tiles were being built failed the run, restarts or
    /// not (they were granted only once the run had started). Now the others finish
    /// building, every request waits for the rollback, and the rollback deals every
    /// tile to the worker left.
    @Test func aWorkerLostWhileTheTilesAreBuiltIsSurvived() throws {
        var state = Self.state()
        state.restartsLeft = 1
        for (peer, name, pid) in [(a, "a", UInt32(1)), (b, "b", 2)] {
            _ = state.receive(Self.hello(name, pid: pid), from: peer, now: at(0))
            _ = state.receive(Self.beat, from: peer, now: at(0))
        }
        #expect(state.phase == .preparing)
        let lost = state.workerExited(pid: 1, host: nil, how: "was killed by signal 9")
        #expect(failure(lost) == nil)
        #expect(logs(lost).contains { $0.contains("was killed by signal 9 while the tiles were being built") }, "\(logs(lost))")
        #expect(state.members[0].gone && state.restartsLeft == 0 && state.lostWhileIdle != nil)
        #expect(state.receive(.ready, from: b, now: at(1)) == [.prepared])
        // Nothing may use the tiles until they are dealt again: worker a's answer nothing.
        let why = try #require(state.lostWhileIdle)
        #expect(try state.begin(.advance(generations: 5)) == [.completed(.interrupted(why))])
        #expect(try state.begin(.frame(Viewport(x: 0, y: 0, cellsPerDot: 8, width: 8, height: 4))) == [.completed(.interrupted(why))])
        #expect(try state.begin(.checkpoint(folder: "cp")) == [.completed(.interrupted(why))])
        // The shell's rollback (`Coordinator.recover`): the plan's start, on worker b alone.
        state.recovered()
        let dealt = assignments(try state.begin(.replan(Self.plan)))
        #expect(dealt.map(\.1) == [b] && dealt.map(\.0.worker) == [0] && dealt[0].0.owners == [0, 0, 0, 0])
        #expect(dealt[0].0.start == .painted(soup: Self.plan.soup, overlays: []) && dealt[0].0.generation == 10, "made afresh from the plan")
        #expect(state.receive(.ready, from: b, now: at(2)) == [.completed(.replanned)])
        #expect(state.failure == nil && state.members.map(\.peer) == [b])
    }

    /// Without restarts, a loss while the tiles are built fails the run as it did.
    @Test func withoutRestartsALossWhileBuildingFailsTheRun() {
        var state = Self.state()
        for (peer, name, pid) in [(a, "a", UInt32(1)), (b, "b", 2)] {
            _ = state.receive(Self.hello(name, pid: pid), from: peer, now: at(0))
            _ = state.receive(Self.beat, from: peer, now: at(0))
        }
        #expect(failure(state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")) == "worker 1 (pid 2 on b, tiles (0,1) (1,1)) was killed by signal 9")
    }

    /// Before: a worker process that ended before the tiles were dealt failed the run
    /// ("before it connected"). With a restart left, the run gathers one worker fewer.
    @Test func aWorkerLostBeforeTheTilesAreDealtLeavesThemToTheOthers() {
        var state = Self.state(workers: 3)
        state.restartsLeft = 2
        _ = state.receive(Self.hello("a", pid: 1), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        // Before its hello: a process the coordinator never heard from.
        let early = state.workerExited(pid: 3, host: nil, how: "was killed by signal 9")
        #expect(failure(early) == nil && state.phase == .gathering && state.awaitedWorkers == 2)
        #expect(logs(early) == ["worker process 3 was killed by signal 9 before the run started: it starts with 2 workers (1 more restart allowed)"])
        // After its hello, before it proved itself: its place goes with it.
        _ = state.receive(Self.hello("b", pid: 2), from: b, now: at(0.1))
        let late = state.workerExited(pid: 2, host: nil, how: "exited with status 1")
        #expect(logs(late).first == "worker pid 2 on b exited with status 1 before the run started: it starts with 1 worker (0 more restarts allowed)")
        let dealt = assignments(late)
        #expect(dealt.map(\.1) == [a] && dealt[0].0.owners == [0, 0, 0, 0], "the one left gets every tile at once")
        #expect(state.phase == .preparing && state.members.map(\.peer) == [a])
    }

    /// Out of restarts, or with no other worker to go on with, the run fails as before.
    @Test func aWorkerLostBeforeTheTilesAreDealtFailsTheRunWithoutARestart() {
        var state = Self.state()
        #expect(failure(state.workerExited(pid: 7, host: nil, how: "was killed by signal 9")) == "worker process 7 was killed by signal 9 before it connected")
        var last = Self.state(workers: 1)
        last.restartsLeft = 3
        _ = last.receive(Self.hello("a", pid: 1), from: a, now: at(0))
        #expect(failure(last.workerExited(pid: 1, host: nil, how: "was killed by signal 9")) == "worker pid 1 on a was killed by signal 9 before the run started")
    }

    /// Before: a worker lost while every tile was being loaded failed the run. Now the
    /// load answers `interrupted`, and the shell loads every tile again after the rollback.
    @Test func aWorkerLostDuringALoadInterruptsIt() throws {
        var state = ready()
        state.restartsLeft = 1
        _ = try state.begin(.load(generation: 3) { BitGrid(width: $0.width, height: $0.height) })
        let lost = state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        #expect(failure(lost) == nil)
        #expect(lost.last == .completed(.interrupted("worker 1 (pid 2 on b, tiles (0,1) (1,1)) was killed by signal 9")))
        #expect(state.phase == .idle && state.generation == 10)
    }

    @Test func oneOperationAtATime() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 1))
        #expect(throws: TesseraError.self) { try state.begin(.frame(Viewport(x: 0, y: 0, cellsPerDot: 1, width: 4, height: 4))) }
    }

    @Test func anAdvancePastTheLastGenerationIsRefused() {
        var state = ready()
        #expect(throws: TesseraError.self) { try state.begin(.advance(generations: .max)) }
        #expect(state.phase == .idle)
    }

    /// Answers count once, per sender or per tile, and only for the operation in flight.
    @Test func strayAndDuplicateAnswersChangeNothing() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 5))
        _ = state.receive(.done(op: 1, WorkerReport()), from: a, now: at(1))
        #expect(logs(state.receive(.done(op: 1, WorkerReport()), from: a, now: at(1))).count == 1, "a second done from a")
        #expect(logs(state.receive(.done(op: 9, WorkerReport()), from: b, now: at(1))).count == 1, "an answer to no operation")
        #expect(state.phase == .busy)
        #expect(state.receive(.done(op: 1, WorkerReport()), from: b, now: at(1)) == [.completed(.advanced)])
        // The same worker's answer to the finished operation, late.
        #expect(logs(state.receive(.done(op: 1, WorkerReport()), from: b, now: at(2))).count == 1)
        #expect(state.generation == 15)
    }

    /// Under a rule of more states a frame's dots come with their states, and where
    /// tiles meet under a dot it shows the lowest state but 0 of theirs.
    @Test func aFrameOfStatesKeepsEachDotsLowestState() throws {
        let generations = RunPlan(tiling: Self.tiling, rule: try Rule(parsing: "345/3/6"), halo: 2, generation: 10,
                                  generations: 100, soup: nil, cells: nil)
        var state = ready(plan: generations)
        let view = Viewport(x: 0, y: 0, cellsPerDot: 8, width: 8, height: 4)
        _ = try state.begin(.frame(view))
        let tiles = state.members.map(\.tiles)
        var lit = BitGrid(width: 2, height: 1)
        (lit[0, 0], lit[1, 0]) = (true, true)
        let empty = BitGrid(width: 0, height: 0)
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[0][0], x: 3, y: 1, dots: lit, states: [4, 2])), from: a, now: at(1))
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[0][1], x: 4, y: 1, dots: lit, states: [3, 5])), from: a, now: at(1))
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[1][0], x: 0, y: 0, dots: empty)), from: b, now: at(1))
        let effects = state.receive(.frameTile(op: 1, FramePart(tile: tiles[1][1], x: 0, y: 0, dots: empty)), from: b, now: at(1))
        guard case .completed(.frame(let dots, let states?))? = effects.first else {
            Issue.record("no frame of states: \(effects)")
            return
        }
        #expect(dots.population == 3)
        #expect(states[8 + 3] == 4 && states[8 + 4] == 2 && states[8 + 5] == 5 && states.filter { $0 != 0 }.count == 3)
    }

    @Test func aFrameIsGatheredFromEveryTileOfItsOwner() throws {
        var state = ready()
        let view = Viewport(x: 0, y: 0, cellsPerDot: 8, width: 8, height: 4)
        _ = try state.begin(.frame(view))
        let tiles = state.members.map(\.tiles)
        #expect(tiles == [[TileID(column: 0, row: 0), TileID(column: 1, row: 0)], [TileID(column: 0, row: 1), TileID(column: 1, row: 1)]])
        var lit = BitGrid(width: 1, height: 1)
        lit[0, 0] = true
        // Worker b claims a tile of worker a's: refused.
        let claim = state.receive(.frameTile(op: 1, FramePart(tile: tiles[0][0], x: 0, y: 0, dots: lit)), from: b, now: at(1))
        #expect(logs(claim).count == 1)
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[0][0], x: 0, y: 0, dots: lit)), from: a, now: at(1))
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[0][1], x: 4, y: 0, dots: BitGrid(width: 0, height: 0))), from: a, now: at(1))
        _ = state.receive(.frameTile(op: 1, FramePart(tile: tiles[1][0], x: 0, y: 2, dots: lit)), from: b, now: at(1))
        let effects = state.receive(.frameTile(op: 1, FramePart(tile: tiles[1][1], x: 7, y: 3, dots: lit)), from: b, now: at(1))
        guard case .completed(.frame(let dots, _))? = effects.first else {
            Issue.record("no frame: \(effects)")
            return
        }
        #expect(dots.population == 3 && dots[0, 0] && dots[0, 2] && dots[7, 3])
    }

    @Test func aFramePartOutsideTheViewportFailsTheRun() throws {
        var state = ready()
        _ = try state.begin(.frame(Viewport(x: 0, y: 0, cellsPerDot: 8, width: 8, height: 4)))
        let effects = state.receive(.frameTile(op: 1, FramePart(tile: TileID(column: 0, row: 0), x: 6, y: 0,
                                                                dots: BitGrid(width: 4, height: 1))), from: a, now: at(1))
        #expect(failure(effects)?.contains("for a 8x4 frame") == true)
    }

    @Test func aCollectAsksOnlyTheOwnersOfTheAreaAndChecksSizes() throws {
        var state = ready()
        let effects = try state.begin(.collect(area: TileRect(x: 4, y: 2, width: 40, height: 6)))
        #expect(sent(effects).map(\.1) == [a], "rows 2..<8 lie in worker a's tiles only")
        let tile = TileID(column: 0, row: 0)
        let wrong = state.receive(.cells(op: 1, TileCells(tile: tile, generation: 10, cells: BitGrid(width: 32, height: 6))),
                                  from: a, now: at(1))
        #expect(failure(wrong)?.contains("do not fit 40x6 cells at (4,2)") == true)
    }

    /// Each tile sends only its part of the area, and the parts are put where they lie.
    @Test func aCollectedAreaIsAssembledFromTheTilesItCrosses() throws {
        var state = ready()
        _ = try state.begin(.collect(area: TileRect(x: 30, y: 2, width: 4, height: 3)))
        var left = BitGrid(width: 2, height: 3), right = BitGrid(width: 2, height: 3)
        (left[1, 0], right[0, 2]) = (true, true)  // board cells (31, 2) and (32, 4)
        #expect(state.receive(.cells(op: 1, TileCells(tile: TileID(column: 0, row: 0), generation: 10, cells: left)),
                              from: a, now: at(1)).isEmpty)
        let done = state.receive(.cells(op: 1, TileCells(tile: TileID(column: 1, row: 0), generation: 10, cells: right)),
                                 from: a, now: at(1))
        var expected = BitGrid(width: 4, height: 3)
        (expected[1, 0], expected[2, 2]) = (true, true)
        #expect(done == [.completed(.cells(expected, states: nil))])
        #expect(throws: TesseraError.self, "past the board's east edge") {
            try state.begin(.collect(area: TileRect(x: 60, y: 0, width: 8, height: 1)))
        }
    }

    @Test func aLoadIsAcknowledgedTileByTile() throws {
        var state = ready()
        let effects = try state.begin(.load(generation: 3) { BitGrid(width: $0.width, height: $0.height) })
        #expect(sent(effects).count == 4)
        for (index, member) in state.members.enumerated() {
            for tile in member.tiles {
                let done = state.receive(.loaded(op: 1, tile: tile), from: member.peer, now: at(1))
                if index == 1 && tile == member.tiles.last { #expect(done == [.completed(.loaded)]) } else { #expect(done.isEmpty) }
            }
        }
        #expect(state.generation == 3)
    }

    // MARK: Losses and endings

    @Test func aWorkerLostMidOperationFailsTheRunAndTheRequest() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 100))
        let effects = state.tick(now: at(10)) { $0 == self.a ? at(9.9) : at(4) }
        #expect(failure(effects)?.contains("worker 1 (pid 2 on b") == true)
        #expect(failure(effects)?.contains("stopped answering") == true)
        #expect(sent(effects).filter { if case .abort = $0.0 { true } else { false } }.count == 2)
        #expect(throws: TesseraError.self) { try state.begin(.advance(generations: 1)) }
    }

    /// Before: a worker that still beat but whose tiles never came a round further (a
    /// halo strip that never came) hung the run for ever.
    @Test func aWorkerThatBeatsButComesNoFurtherIsLost() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 100))
        let limit = CoordinatorState.stallLimit.seconds
        func tick(_ seconds: Double, a reachedA: UInt64, b reachedB: UInt64) -> [CoordinatorState.Effect] {
            _ = state.receive(.heartbeat(RunProgress(generation: reachedA)), from: a, now: at(seconds))
            _ = state.receive(.heartbeat(RunProgress(generation: reachedB)), from: b, now: at(seconds))
            return state.tick(now: at(seconds)) { _ in self.at(seconds) }
        }
        // Slow rounds that move, however slowly, are no stall.
        for (i, seconds) in stride(from: 1.0, through: 3 * limit, by: limit / 2).enumerated() {
            #expect(failure(tick(seconds, a: 12 + UInt64(i), b: 20)) == nil)
        }
        _ = tick(3 * limit + 1, a: 30, b: 18)
        #expect(failure(tick(4 * limit, a: 30, b: 18)) == nil, "within the limit it waits")
        let effects = tick(4 * limit + 2, a: 30, b: 18)
        #expect(failure(effects)?.contains("worker 1 (pid 2 on b") == true, "the slowest is named: \(String(describing: failure(effects)))")
        #expect(failure(effects)?.contains("no further than generation 18") == true)
        #expect(sent(effects).contains { if case .abort = $0.0 { $0.1 == b } else { false } }, "told to go")
    }

    /// Before: a worker that still beat but never wrote its tiles of a checkpoint (a
    /// network file system whose server went away), or never sent its part of a frame,
    /// hung the run for ever.
    @Test(arguments: [true, false])
    func aWorkerThatBeatsButNeverAnswersIsLost(checkpoint: Bool) throws {
        var state = ready()
        let limit = (checkpoint ? CoordinatorState.bulkLimit : CoordinatorState.stallLimit).seconds
        if checkpoint {
            _ = try state.begin(.checkpoint(folder: "cp"))
            for tile in state.members[0].tiles {
                #expect(state.receive(.checkpointed(op: 1, tile: tile, checksum: 7), from: a, now: at(1)).isEmpty)
            }
        } else {
            _ = try state.begin(.frame(Viewport(x: 0, y: 0, cellsPerDot: 8, width: 8, height: 4)))
            for tile in state.members[0].tiles {
                _ = state.receive(.frameTile(op: 1, FramePart(tile: tile, x: 0, y: 0, dots: BitGrid(width: 0, height: 0))), from: a, now: at(1))
            }
        }
        func tick(_ seconds: Double) -> [CoordinatorState.Effect] {
            _ = state.receive(Self.beat, from: a, now: at(seconds))
            _ = state.receive(Self.beat, from: b, now: at(seconds))
            return state.tick(now: at(seconds)) { _ in self.at(seconds) }
        }
        for seconds in stride(from: 2.0, through: limit + 2, by: limit / 4) {
            #expect(failure(tick(seconds)) == nil, "within the limit it waits (\(seconds) s)")
        }
        let effects = tick(limit + 3)
        let what = checkpoint ? "its part of the checkpoint" : "its part of the frame"
        #expect(failure(effects)?.contains("worker 1 (pid 2 on b") == true && failure(effects)?.contains(what) == true,
                "the late one is named: \(String(describing: failure(effects)))")
        #expect(sent(effects).contains { if case .abort = $0.0 { $0.1 == b } else { false } }, "told to go")
    }

    @Test func aWorkerThatExitsIsNamed() throws {
        var state = ready()
        let effects = state.workerExited(pid: 2, host: nil, how: "was killed by signal 9")
        #expect(failure(effects) == "worker 1 (pid 2 on b, tiles (0,1) (1,1)) was killed by signal 9")
    }

    @Test func aWorkersFailureReportFailsTheRun() {
        var state = ready()
        #expect(failure(state.receive(.failure(reason: "out of memory"), from: a, now: at(1)))?.hasSuffix(": out of memory") == true)
    }

    @Test func shutdownWithAPendingOperationFailsIt() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 3))
        let effects = state.shutdown()
        #expect(sent(effects).map(\.0) == [.shutdown, .shutdown])
        #expect(failure(effects) == "the run was shut down")
        #expect(state.shutdown().isEmpty, "once")
        #expect(state.receive(.done(op: 1, WorkerReport()), from: a, now: at(1)).isEmpty, "a finished run takes nothing")
    }

    @Test func strangersAreRefusedWithALogLineAndChangeNothing() {
        var state = ready()
        for message: ToCoordinator in [.ready, .done(op: 1, WorkerReport()), .cells(op: 1, TileCells(tile: TileID(column: 0, row: 0), generation: 0, cells: BitGrid(width: 1, height: 1))),
                                 .failure(reason: "boo"), .presenterRequest(op: 1, .finish)] {
            let effects = state.receive(message, from: stranger, now: at(1))
            #expect(logs(effects).count == 1 && effects.count == 1, "\(message.kind)")
        }
        #expect(state.receive(Self.beat, from: stranger, now: at(1)).isEmpty, "heartbeats are not worth a line")
        #expect(state.phase == .idle)
    }

    // MARK: A presenter in its own process

    /// Before: one presenterHello to a run without a presenter failed it five seconds later.
    @Test func aPresenterIsRefusedWhereNoneIsServed() {
        var state = ready()
        let effects = state.receive(.presenterHello, from: presenter, now: at(1))
        #expect(sent(effects).contains { if case .refused = $0.0 { $0.1 == presenter } else { false } })
        #expect(failure(state.tick(now: at(20)) { _ in at(20) }) == nil)
        #expect(state.phase == .idle)
    }

    @Test func aPresenterIsWelcomedWhenTheRunIsReadyAndItsRequestsGoToTheShell() {
        var state = Self.state(presenter: true)
        _ = state.receive(.presenterHello, from: presenter, now: at(0))
        _ = state.receive(Self.hello("a"), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        _ = state.receive(Self.hello("b"), from: b, now: at(0))
        _ = state.receive(Self.beat, from: b, now: at(0))
        _ = state.receive(.ready, from: a, now: at(0))
        let effects = state.receive(.ready, from: b, now: at(0))
        #expect(effects.first == .prepared)
        #expect(sent(effects).contains { if case .presenterWelcome(let w) = $0.0 { w.workers == 2 && w.generation == 10 && $0.1 == presenter } else { false } })
        #expect(state.receive(.presenterRequest(op: 4, .advance(generations: 2)), from: presenter, now: at(1))
            == [.presenter(op: 4, .advance(generations: 2))])
        let second = state.receive(.presenterHello, from: stranger, now: at(1))
        #expect(sent(second).contains { if case .refused = $0.0 { $0.1 == stranger } else { false } })
        let lost = state.tick(now: at(7)) { $0 == presenter ? at(1) : at(7) }
        #expect(failure(lost)?.contains("the presenter stopped answering") == true)
    }

    @Test func aPresentersBoardOfTheWrongSizeFailsTheRun() {
        var state = Self.state(presenter: true)
        _ = state.receive(.presenterHello, from: presenter, now: at(0))
        for (peer, name) in [(a, "a"), (b, "b")] {
            _ = state.receive(Self.hello(name), from: peer, now: at(0))
            _ = state.receive(Self.beat, from: peer, now: at(0))
        }
        _ = state.receive(.ready, from: a, now: at(0))
        _ = state.receive(.ready, from: b, now: at(0))
        let effects = state.receive(.presenterRequest(op: 1, .load(generation: 0, board: BitGrid(width: 3, height: 3))),
                                    from: presenter, now: at(1))
        #expect(failure(effects)?.contains("3x3 board for the 64x32 board") == true)
    }

    /// A worker whose message cannot be read is lost at once (here with no restart
    /// left, so the run fails saying why), not after the stall limit; a stranger's
    /// unreadable message changes nothing.
    @Test func aWorkerThatSendsWhatCannotBeReadIsLostAtOnce() throws {
        var state = ready()
        _ = try state.begin(.advance(generations: 4))
        #expect(state.unreadable(from: Array("stranger".utf8)).isEmpty)
        let effects = state.unreadable(from: a)
        #expect(failure(effects)?.contains("sent a message that could not be read") == true, "\(effects)")
    }

    // MARK: Shards

    /// Two workers gathered for a sparse plane of a soup patch of 256 tiles and a far glider.
    func sharded() -> (CoordinatorState, [ShardAssignment]) {
        var glider = BitGrid(width: 3, height: 3)
        (glider[1, 0], glider[2, 1], glider[0, 2], glider[1, 2], glider[2, 2]) = (true, true, true, true, true)
        let soup = try! Soup(density: 0.5, seed: 3).cells(x: 0, y: 0, width: 1024, height: 1024)
        let parts = [PlacedCells(cells: soup, left: 0, top: 0), PlacedCells(cells: glider, left: 1 << 40, top: -(1 << 40))]
        let plan = RunPlan.sharded(try! ShardPlan(parts: parts, rule: .life, board: nil, depth: 16),
                                   tiling: try! Tiling(shape: BoardShape(width: 64, height: 64, topology: .infinite), columns: 1, rows: 1),
                                   rule: .life, generation: 5, generations: 10)
        var state = CoordinatorState(.init(plan: plan, workers: 2, silence: .seconds(5), connectDeadline: Self.start + .seconds(30),
                                           servesPresenter: false))
        _ = state.receive(Self.hello("a", pid: 1), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        _ = state.receive(Self.hello("b", pid: 2), from: b, now: at(0))
        let shards = sent(state.receive(Self.beat, from: b, now: at(0))).compactMap { message, _ -> ShardAssignment? in
            if case .shard(let given) = message { given } else { nil }
        }
        return (state, shards)
    }

    @Test func aSparsePlaneIsDealtAsShardsThatSplitItsCells() throws {
        let (state, shards) = sharded()
        #expect(shards.map(\.shard) == [0, 1])
        #expect(shards.allSatisfy { $0.map == shards[0].map && $0.endpoints == ["tcp://a:1", "tcp://b:1"] && $0.generation == 5 && $0.depth == 16 })
        #expect(shards.allSatisfy { $0.parts.count == $0.partCount }, "a few hundred tiles come in one message")
        #expect(state.members.map(\.shard) == [0, 1])
        // Every live cell goes to exactly one shard: the one that owns its tile.
        let planes = try shards.map { try SparsePlane(parts: $0.parts.map(PlacedCells.init), rule: .life) }
        for (index, plane) in planes.enumerated() {
            #expect(plane.liveTiles.allSatisfy { shards[index].map.owner(of: $0) == index })
        }
        let soup = try Soup(density: 0.5, seed: 3).cells(x: 0, y: 0, width: 1024, height: 1024).population
        #expect(planes.map(\.population).reduce(0, +) == soup + 5)
        #expect(planes.allSatisfy { $0.tileCount >= 64 })
    }

    @Test func aBigShardIsSentInChunks() throws {
        // 9000 lone cells a tile apart: two shards of 4500 tiles each.
        var cell = BitGrid(width: 1, height: 1)
        cell[0, 0] = true
        let parts = (0..<9000).map { PlacedCells(cells: cell, left: 64 * ($0 % 100), top: 64 * ($0 / 100)) }
        let plan = RunPlan.sharded(try ShardPlan(parts: parts, rule: .life, board: nil), tiling: Self.tiling, rule: .life,
                                   generation: 0, generations: 1)
        var state = CoordinatorState(.init(plan: plan, workers: 2, silence: .seconds(5), connectDeadline: Self.start + .seconds(30),
                                           servesPresenter: false))
        _ = state.receive(Self.hello("a"), from: a, now: at(0))
        _ = state.receive(Self.beat, from: a, now: at(0))
        _ = state.receive(Self.hello("b"), from: b, now: at(0))
        let toA = sent(state.receive(Self.beat, from: b, now: at(0))).filter { $0.1 == a }.map(\.0)
        guard case .shard(let given)? = toA.first, case .shardCells(let rest)? = toA.last, toA.count == 2 else {
            Issue.record("expected a shard and one more message of its cells: \(toA.map(\.kind))")
            return
        }
        #expect(given.parts.count == ShardAssignment.chunk && given.partCount == ShardAssignment.chunk + rest.count)
        #expect(given.partCount == 4500)
    }

    @Test func shardsAdvanceReportTheirFiguresAndAreReadAsParts() throws {
        var (state, _) = sharded()
        #expect(!state.knowsPopulation)
        _ = state.receive(.ready, from: a, now: at(0.1))
        #expect(state.receive(.ready, from: b, now: at(0.1)) == [.prepared])
        let started = try state.begin(.advance(generations: 10))
        #expect(sent(started).map(\.0) == [.start(op: 1, generations: 10), .start(op: 1, generations: 10)])
        var report = WorkerReport()
        report.shard = ShardFigures(population: 100, tiles: 70, bounds: CellBounds(left: -5, top: 0, width: 10, height: 10))
        _ = state.receive(.done(op: 1, report), from: a, now: at(0.2))
        report.shard = ShardFigures(population: 7, tiles: 9, bounds: CellBounds(left: 1 << 40, top: 0, width: 3, height: 3))
        #expect(state.receive(.done(op: 1, report), from: b, now: at(0.2)) == [.completed(.advanced)])
        #expect(state.knowsPopulation && state.population == 107 && state.shardTiles == 79)
        #expect(state.shardBounds == CellBounds(left: -5, top: 0, width: (1 << 40) + 8, height: 10))
        #expect(state.generation == 15)
        let read = try state.begin(.readParts)
        #expect(sent(read).map(\.0) == [.readParts(op: 2), .readParts(op: 2)])
        // Parts come in chunks, the last one marked; a worker's parts after its last are strays.
        let part = Overlay(cells: BitGrid(width: 1, height: 1), x: 3, y: 4)
        #expect(state.receive(.parts(op: 2, [part], last: false), from: b, now: at(0.3)).isEmpty)
        #expect(state.receive(.parts(op: 2, [part], last: true), from: b, now: at(0.3)).isEmpty)
        #expect(logs(state.receive(.parts(op: 2, [part], last: true), from: b, now: at(0.3))).first?.contains("stray") == true)
        #expect(state.receive(.parts(op: 2, [], last: true), from: a, now: at(0.3)) == [.completed(.parts([part, part]))])
        // What needs tiles is refused, with the way out.
        #expect(throws: TesseraError.self) { try state.begin(.collect(area: TileRect(x: 0, y: 0, width: 1, height: 1))) }
    }

    /// A frame of shards: every host draws the whole viewport, and the coordinator lays
    /// their dots over each other; dots of the wrong size fail the run, and a second
    /// answer from one host is a stray.
    @Test func aFrameOfShardsLaysEveryHostsDotsOverTheOthers() throws {
        var (state, _) = sharded()
        _ = state.receive(.ready, from: a, now: at(0.1))
        _ = state.receive(.ready, from: b, now: at(0.1))
        let view = Viewport(x: 1 << 40, y: -(1 << 40), cellsPerDot: 1, width: 4, height: 2)
        #expect(sent(try state.begin(.frame(view))).map(\.0) == [.frameRequest(op: 1, view, clip: nil), .frameRequest(op: 1, view, clip: nil)])
        var left = BitGrid(width: 4, height: 2), right = BitGrid(width: 4, height: 2)
        (left[0, 0], right[3, 1]) = (true, true)
        #expect(state.receive(.shardFrame(op: 1, dots: left), from: b, now: at(0.2)).isEmpty)
        #expect(logs(state.receive(.shardFrame(op: 1, dots: left), from: b, now: at(0.2))).first?.contains("stray") == true)
        var both = left
        both[3, 1] = true
        #expect(state.receive(.shardFrame(op: 1, dots: right), from: a, now: at(0.2)) == [.completed(.frame(both, states: nil))])
        _ = try state.begin(.frame(view))
        let wrong = state.receive(.shardFrame(op: 2, dots: BitGrid(width: 3, height: 2)), from: a, now: at(0.3))
        #expect(failure(wrong)?.contains("sent 3x2 dots for a 4x2 frame") == true)
    }

    /// Shards whose compute over a stretch was uneven are found, with each one's cost a
    /// tile; even loads, and a stretch a rollback cut short, are left alone.
    @Test func unevenShardLoadsAreFoundWithEachShardsCostATile() throws {
        var (state, _) = sharded()
        _ = state.receive(.ready, from: a, now: at(0.1))
        _ = state.receive(.ready, from: b, now: at(0.1))
        let before = state.shardSeconds
        #expect(before == [0: 0, 1: 0])
        _ = try state.begin(.advance(generations: 10))
        var report = WorkerReport(computeSeconds: 2)
        report.shard = ShardFigures(population: 100, tiles: 200, bounds: nil)
        _ = state.receive(.done(op: 1, report), from: a, now: at(0.2))
        report = WorkerReport(computeSeconds: 0.5)
        report.shard = ShardFigures(population: 5, tiles: 100, bounds: nil)
        _ = state.receive(.done(op: 1, report), from: b, now: at(0.2))
        let uneven = try #require(state.unevenShards(since: before))
        #expect(uneven.why == "the shards' loads were uneven (2.00, 0.50 s over the last stretch)")
        #expect(uneven.costs == [0: 0.01, 1: 0.005])
        #expect(state.unevenShards(since: [0: 1.2, 1: 0]) == nil, "0.8 and 0.5 s: within 1.25 times the mean")
        #expect(state.unevenShards(since: [0: 2.5, 1: 0]) == nil, "a host's seconds went back: not measured whole")
    }

    @Test func shardsAreDealtAgainForAWorkerThatJoinsOrAShardHostThatLeaves() throws {
        var (state, _) = sharded()
        _ = state.receive(.ready, from: a, now: at(0.1))
        _ = state.receive(.ready, from: b, now: at(0.1))
        #expect(state.shardsToDealAgain(balancing: true) == nil)
        let c: PeerID = Array("worker-c".utf8)
        #expect(logs(state.receive(Self.hello("c", pid: 3), from: c, now: at(0.2))).first?.contains("gets a shard when the shards are next dealt") == true)
        #expect(state.shardsToDealAgain(balancing: true) == nil, "not proven yet")
        _ = state.receive(Self.beat, from: c, now: at(0.2))
        #expect(state.shardsToDealAgain(balancing: true) == "worker 2 (pid 3 on c) joined")
        #expect(state.shardsToDealAgain(balancing: false) == nil, "with --no-balance it stays idle")
        // A shard host that asks to leave goes once its shard's cells are dealt to the others.
        #expect(logs(state.receive(.leaving, from: a, now: at(0.3))) == ["worker 0 (pid 1 on a, shard 0) asked to leave: its shard's cells go to the others when the workers next stop"])
        #expect(state.shardsToDealAgain(balancing: false) == "worker 0 (pid 1 on a, shard 0) asked to leave")
        let parts = try ShardPlan(parts: [], rule: .life, board: nil)
        let effects = try state.begin(.replan(RunPlan.sharded(parts, tiling: state.plan.tiling, rule: .life, generation: 5, generations: 10)))
        let told = sent(effects)
        #expect(told.first.map { $0.0 == .shutdown && $0.1 == a } == true)
        #expect(told.compactMap { if case .shard(let given) = $0.0 { given.endpoints } else { nil } }.first == ["tcp://b:1", "tcp://c:1"])
        #expect(state.shardsToDealAgain(balancing: true) == nil)
    }
}
