import Testing
import TesseraCluster
import TesseraCore
import TesseraTiles
import TesseraWire

/// A coordinator and its workers as tasks of this process, over `MemoryNetwork`: the
/// coordinator's and the worker's whole code (handshake, assignment, halos between
/// workers, snapshots, recovery), with no process and no socket.
@Suite struct InMemoryClusterTests {
    static let shape = BoardShape(width: 192, height: 128, topology: .torus)

    static func plan(generations: UInt64) throws -> RunPlan {
        RunPlan(tiling: try Tiling(shape: shape, columns: 3, rows: 2), rule: .life, halo: 4, generation: 0,
                generations: generations, soup: try Soup(density: 0.35, seed: 31), cells: nil)
    }

    /// The same board stepped by its tiles in one actor each, trading halos in memory.
    static func expected(after generations: UInt64) async throws -> BitGrid {
        let plan = try plan(generations: generations)
        // Painted as workers paint a soup: each tile its part.
        let start = TileStart.painted(StartingCells(soup: plan.soup, overlays: []), board: shape)
        let tiles = try await TileCluster(tiling: plan.tiling, rule: plan.rule, halo: plan.halo) { _ in start }
        try await tiles.run(generations: generations)
        return try await tiles.board()
    }

    /// Runs `body` on a coordinator of `workers` workers, each a task here. Waits for
    /// workers and for the coordinator are long: this process's other tests may hold the
    /// task pool's threads for a while, and nothing here should take that for a loss (the
    /// coordinator's 3 s of silence, which a lost worker takes to be noticed, outlast a
    /// saturated machine's late heartbeats). `doomed`
    /// names a worker (by start order) whose task ends when `lose` resolves, as if its
    /// process died: its pump leaves the network and the others never hear it again.
    static func withCluster<T: Sendable>(workers: Int, plan: RunPlan, doomed: Int? = nil, lose: Completion<Void> = .init(),
                                         _ body: @Sendable (Coordinator) async throws -> T) async throws -> T {
        try await MessagePump.with(.coordinator(listen: "memory://coordinator-*")) { pump in
            let coordinator = Coordinator(pump: pump, workers: workers, plan: plan, connectTimeout: .seconds(600),
                                          silence: .seconds(3))
            await coordinator.setRestarts(1)
            let endpoint = pump.boundEndpoint
            var services = ServiceGroup()
            services.add { await coordinator.serve() }
            for index in 0..<workers {
                services.add {
                    let serve: @Sendable () async -> Bool? = {
                        do {
                            _ = try await WorkerNode.serve(coordinator: endpoint, listen: "memory://worker-*", advertise: "",
                                                           silence: .seconds(600), hearsSignals: false)
                        } catch is CancellationError {
                        } catch {
                            // Named here: the coordinator would only say, its wait over, that one never came.
                            Issue.record(error, "worker \(index) did not start")
                        }
                        return true
                    }
                    guard index == doomed else { return _ = await serve() }
                    let lost: @Sendable () async -> Bool? = {
                        try? await lose.value()
                        return false
                    }
                    _ = await ServiceGroup.first(of: [serve, lost])
                }
            }
            return try await services.run {
                try await coordinator.start()
                let result = try await body(coordinator)
                await coordinator.shutdown()
                return result
            }
        }
    }

    @Test func twoWorkersInMemoryStepTheBoardAsOneProcessDoes() async throws {
        let generations: UInt64 = 60
        let (board, outcome) = try await Self.withCluster(workers: 2, plan: try Self.plan(generations: generations)) { coordinator in
            try await coordinator.advance(generations)
            return (try await coordinator.collect(), await coordinator.outcome)
        }
        #expect(board == (try await Self.expected(after: generations)))
        #expect(board.population > 100)
        #expect(outcome.workers.count == 2)
        #expect(outcome.workers.allSatisfy { $0.tiles.count == 3 })
        // The halos between the two workers' tiles crossed the network.
        #expect(outcome.workers.allSatisfy { $0.report.bytesSent > 0 })
    }

    @Test func aWorkerLostAfterASnapshotIsSurvivedFromItsBuddysCopy() async throws {
        let lose = Completion<Void>()
        let (board, recoveries) = try await Self.withCluster(workers: 3, plan: try Self.plan(generations: 80), doomed: 1,
                                                             lose: lose) { coordinator in
            try await coordinator.advance(30)
            try await coordinator.snapshot()
            try await coordinator.advance(10)
            lose.succeed()
            try await coordinator.advance(40)
            return (try await coordinator.collect(), await coordinator.outcome.recoveries)
        }
        #expect(board == (try await Self.expected(after: 80)))
        #expect(recoveries.count == 1)
        #expect(recoveries.first?.rolledBackTo == 30)
    }

    @Test func tilesMovedBetweenWorkersMidRunLeaveTheResultUnchanged() async throws {
        let (board, workers) = try await Self.withCluster(workers: 2, plan: try Self.plan(generations: 50)) { coordinator in
            try await coordinator.advance(17)
            // Worker 0 starts with the top row's tiles: two of them go over, and one back.
            try await coordinator.move([TileID(column: 0, row: 0): 1, TileID(column: 1, row: 0): 1])
            try await coordinator.advance(16)
            try await coordinator.move([TileID(column: 1, row: 0): 0])
            try await coordinator.advance(17)
            return (try await coordinator.collect(), await coordinator.outcome.workers)
        }
        #expect(board == (try await Self.expected(after: 50)))
        #expect(workers.map(\.tiles.count).sorted() == [2, 4])
    }

    @Test func aMixOfMemoryAndSocketEndpointsIsRefused() async throws {
        let error = await #expect(throws: TesseraError.self) {
            try await MessagePump.with(.worker(coordinator: "memory://nobody", listen: "tcp://127.0.0.1:*", advertise: "127.0.0.1")) { _ in }
        }
        #expect(error?.description.contains("mix memory:// names with others") == true)
    }
}

extension InMemoryClusterTests {
    /// A coordinator's message its worker cannot read (an assignment cut short) is not
    /// dropped in silence, which would leave the run waiting on that worker: the worker
    /// says so at once, and the coordinator fails the run with its line. (The limit is
    /// long, as this file's waits are: the whole suite's other tests may hold the task
    /// pool's threads for minutes; alone it takes milliseconds.)
    @Test(.timeLimit(.minutes(10))) func aWorkerThatCannotReadItsCoordinatorSaysSo() async throws {
        try await MessagePump.with(.coordinator(listen: "memory://unreadable-*")) { pump in
            let endpoint = pump.boundEndpoint
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try? await WorkerNode.serve(coordinator: endpoint, listen: "memory://unreadable-worker-*", advertise: "",
                                                    silence: .seconds(600), hearsSignals: false)
                }
                var incoming = pump.control.makeAsyncIterator()
                guard let hello = await incoming.next() else {
                    Issue.record("no hello came")
                    return
                }
                var cut = Wire.encode(ToWorker.shutdown.message)
                withUnsafeBytes(of: Wire.Kind.assign.rawValue.littleEndian) { cut.replaceSubrange(6..<8, with: $0) }
                pump.send(cut, to: .member(hello.from))
                var said: String?
                while said == nil, let next = await incoming.next() {
                    if case .failure(let reason)? = try? Wire.decode(next.bytes, as: ToCoordinator.self) { said = reason }
                }
                #expect(said?.contains("cannot read the coordinator's message") == true, "\(said ?? "nothing")")
                pump.send(ToWorker.shutdown.message, to: .member(hello.from))
                try await group.waitForAll()
            }
        }
    }
}

extension InMemoryClusterTests {
    /// A Generations board on workers: an edit in states (a viewer's, or a rewind's load)
    /// reaches the tiles in its states, reads back so, and steps on as the whole board does.
    @Test func statesLoadedIntoWorkersReadBackAndStepOn() async throws {
        let rule = try Rule(parsing: "345/3/6")
        let plan = RunPlan(tiling: try Tiling(shape: Self.shape, columns: 3, rows: 2), rule: rule, halo: 3, generation: 0,
                           generations: 40, soup: try Soup(density: 0.4, seed: 8), cells: nil)
        let (edited, after) = try await Self.withCluster(workers: 2, plan: plan) { coordinator in
            try await coordinator.advance(10)
            var board = try await coordinator.collectStates()
            #expect(board.planes.count == 3 && board.occupied.population > 100)
            for (x, y, state) in [(0, 0, 2), (191, 127, 1), (64, 64, 2), (100, 5, 0)] { board[x, y] = state }
            try await coordinator.load(generation: 10, states: board)
            let back = try await coordinator.collectStates()
            #expect(back == board)
            try await coordinator.advance(20)
            return (board, try await coordinator.collectStates())
        }
        let step = try #require(rule.stateStep())
        var (cells, next) = (edited, edited)
        for _ in 0..<20 {
            try step(cells, &next, true)
            swap(&cells, &next)
        }
        #expect(after == cells)
    }
}
