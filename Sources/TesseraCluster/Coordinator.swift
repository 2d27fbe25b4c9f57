import Foundation
import TesseraCore
import TesseraTiles
import TesseraWire

/// One worker as the coordinator sees it.
public struct WorkerSummary: Sendable {
    public let index: Int
    public let pid: UInt32
    public let host: String
    public let tiles: [TileID]
    public let report: WorkerReport
}

/// What a cluster run produced.
public struct RunOutcome: Sendable {
    /// Wall time spent advancing, from each `start` to the last worker's `done`.
    public let seconds: Double
    public let population: Int
    public let workers: [WorkerSummary]
    /// Generations run, when not the plan's (a live run ends when its viewer quits).
    public let generations: UInt64?

    public init(seconds: Double, population: Int, workers: [WorkerSummary], generations: UInt64? = nil) {
        self.seconds = seconds
        self.population = population
        self.workers = workers
        self.generations = generations
    }
}

/// Runs a plan on workers: waits for them to connect, assigns tiles, then advances,
/// draws frames, collects or reloads the board on request. It is not on the data path:
/// halos go from worker to worker. Every change to the run's state happens in this actor.
public actor Coordinator {
    private enum Phase { case gathering, preparing, idle, busy, finished }

    /// The one operation in flight and what it has gathered so far.
    private enum Operation {
        case advance(remaining: Int)
        /// `frame` and `collect` gather into `resultGrid`, so each answer goes in without a copy.
        case frame(remaining: Int)
        case collect(rows: Range<Int>, remaining: Set<TileID>)
        case load(remaining: Int)
    }

    private struct Worker {
        let identity: [UInt8]
        let hello: Hello
        var lastHeard: ContinuousClock.Instant
        var tiles: [TileID] = []
        var ready = false
        var report = WorkerReport()
    }

    private let pump: MessagePump
    public nonisolated let plan: RunPlan
    private let connectDeadline: ContinuousClock.Instant
    private let silence: Duration
    private var phase = Phase.gathering
    private var workers: [Worker] = []
    private var operation: Operation?
    private var waiter: CheckedContinuation<Void, any Error>?
    private var failure: TesseraError?
    /// The grid a frame or collect operation is gathering.
    private var resultGrid: BitGrid?
    private var feed: Task<Void, Never>?
    private var viewerHandler: (@Sendable ([UInt8], Message) -> Void)?
    /// A presenter in its own process that drives this coordinator, and what it asks.
    private var presenter: [UInt8]?
    /// Buffered from the start: a presenter may say hello before the run is ready for it.
    private let presenterStream: AsyncStream<Message>
    private let presenterRequests: AsyncStream<Message>.Continuation
    private var ticker: Task<Void, Never>?
    private var lastWork: (@Sendable (Coordinator) async throws -> Void)?
    /// The generation every tile has reached.
    public private(set) var generation: UInt64
    public private(set) var secondsAdvancing = 0.0

    /// How many workers the run waits for and runs on.
    public nonisolated let workerCount: Int

    /// - Parameters:
    ///   - connectTimeout: how long to wait for all `workers` to connect.
    ///   - silence: how long a worker may go without a heartbeat before the run fails.
    public init(pump: MessagePump, workers: Int, plan: RunPlan, connectTimeout: Duration,
                silence: Duration = .seconds(5)) {
        self.pump = pump
        self.plan = plan
        workerCount = workers
        (presenterStream, presenterRequests) = AsyncStream.makeStream(of: Message.self)
        connectDeadline = .now + connectTimeout
        self.silence = silence
        generation = plan.generation
    }

    /// Runs the plan to the end, or throws a `TesseraError` naming what went wrong.
    public func run() async throws -> RunOutcome {
        try await start()
        try await advance(plan.generations)
        return try await finish()
    }

    /// Ends a run however it was driven: does the `beforeShutdown` work (writing the
    /// board, say), tells the workers to leave, and says what the run did.
    public func finish() async throws -> RunOutcome {
        if let lastWork { try await lastWork(self) }
        let outcome = RunOutcome(seconds: secondsAdvancing, population: population, workers: summaries,
                                 generations: generation - plan.generation)
        shutdown()
        return outcome
    }

    /// Work for `finish()` to do while the workers still hold the final board.
    public func beforeShutdown(_ work: @escaping @Sendable (Coordinator) async throws -> Void) {
        lastWork = work
    }

    /// Waits for the workers to connect and build their tiles.
    public func start() async throws {
        let events = pump.events
        feed = Task {
            for await event in events {
                switch event.source {
                case .control(let identity?): self.handle(event.bytes, from: identity)
                case .viewer(let identity): self.forwardToPresenter(event.bytes, from: identity)
                default: continue
                }
            }
        }
        ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                self.tick()
            }
        }
        try await perform(nil)
    }

    /// Advances every tile `generations` generations.
    public func advance(_ generations: UInt64) async throws {
        guard generations > 0 else { return }
        let started = ContinuousClock.now
        try await perform(.advance(remaining: workers.count)) { broadcast(.start(generations: generations)) }
        secondsAdvancing += (ContinuousClock.now - started).seconds
        generation += generations
    }

    /// The board reduced to `viewport`, every tile at the same generation.
    public func frame(_ viewport: Viewport) async throws -> BitGrid {
        try await gather(.frame(remaining: tileCount), into: BitGrid(width: viewport.width, height: viewport.height),
                         asking: .frameRequest(viewport))
    }

    /// The whole board, gathered from every tile.
    public func collect() async throws -> BitGrid {
        try await collect(rows: 0..<plan.tiling.shape.height)
    }

    /// Board rows `rows`, full width, gathered from the tiles they cross: a band at a
    /// time, a board of any size can be written without being held whole.
    public func collect(rows: Range<Int>) async throws -> BitGrid {
        let crossed = Set(plan.tiling.tiles.filter { plan.tiling.rect(of: $0).rows(overlapping: rows) != nil })
        let band = BitGrid(width: plan.tiling.shape.width, height: rows.count)
        guard !crossed.isEmpty else { return band }
        return try await gather(.collect(rows: rows, remaining: crossed), into: band, asking: .collect(rows: rows))
    }

    /// Runs `operation`, whose answers go into `grid`, and hands the grid back.
    private func gather(_ operation: Operation, into grid: BitGrid, asking request: Message) async throws -> BitGrid {
        try await perform(operation) {
            resultGrid = grid
            broadcast(request)
        }
        defer { resultGrid = nil }
        return resultGrid ?? grid
    }

    /// Replaces every tile's cells with `cells` of its rectangle, at `generation`.
    public func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        try await perform(.load(remaining: tileCount)) {
            for index in workers.indices {
                for tile in workers[index].tiles {
                    let grid = cells(plan.tiling.rect(of: tile))
                    // The population is known here; the next report would come only with the next step.
                    workers[index].report.populations[tile] = grid.population
                    send(.tileCells(tile: tile, generation: generation, cells: grid), to: index)
                }
            }
        }
        self.generation = generation
    }

    /// Hands what viewers send to `handler` (the presenter).
    public func onViewerMessage(_ handler: @escaping @Sendable ([UInt8], Message) -> Void) {
        viewerHandler = handler
    }

    /// Sends a message to an attached viewer.
    public nonisolated func send(_ message: Message, toViewer identity: [UInt8]) {
        pump.send(Wire.encode(message), to: .viewer(identity: identity))
    }

    private func forwardToPresenter(_ bytes: [UInt8], from identity: [UInt8]) {
        guard let message = Wire.decodeOrLog(bytes, role: "presenter") else { return }
        viewerHandler?(identity, message)
    }

    /// Tells the workers to leave; the run is over.
    public func shutdown() {
        guard phase != .finished else { return }
        phase = .finished
        broadcast(.shutdown)
        stopTasks()
    }

    /// Lets a presenter in its own process (`tessera presenter`) drive the run: answers
    /// its requests with this actor's operations until it says `shutdown`.
    public func serveRemotePresenter() async throws {
        for await request in presenterStream {
            if let failure { throw failure }
            guard let identity = presenter else { continue }
            let reply: Message
            switch request {
            case .presenterHello:
                reply = .assign(Assignment(worker: 0, tiling: plan.tiling, rule: plan.rule, halo: plan.halo,
                                           generation: generation, soup: nil,
                                           endpoints: workers.map(\.hello.endpoint), owners: plan.owners(workers: workerCount)))
            case .start(let generations):
                try await advance(generations)
                reply = .done(WorkerReport(populations: [TileID(column: 0, row: 0): population]))
            case .frameRequest(let viewport):
                reply = .frameTile(tile: TileID(column: 0, row: 0), x: 0, y: 0, dots: try await frame(viewport))
            case .collect(let rows) where rows.upperBound <= plan.tiling.shape.height:
                reply = .tileCells(tile: TileID(column: 0, row: 0), generation: generation, cells: try await collect(rows: rows))
            case .tileCells(_, let at, let board):
                try await load(generation: at) { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
                reply = .ready
            case .shutdown:
                return
            default:
                continue
            }
            pump.send(Wire.encode(reply), to: .worker(identity: identity))
        }
        if let failure { throw failure }
    }

    /// A worker process this coordinator started ended: `pid` is the worker's own, or
    /// the launch command's when it runs on `host`.
    public func workerExited(pid: Int32, host: String? = nil, how: String) {
        guard phase != .finished else { return }
        if let host {
            fail("the worker launched on \(host) (launch command pid \(pid)) \(how)")
        } else if let index = workers.firstIndex(where: { $0.hello.pid == UInt32(pid) }) {
            fail("\(describe(index)) \(how)")
        } else {
            fail("worker process \(pid) \(how) before it connected")
        }
    }

    /// Stops the run (Ctrl-C, say): workers are told to abort.
    public func cancel(_ reason: String) { fail(reason) }

    public var population: Int { workers.reduce(0) { $0 + $1.report.populations.values.reduce(0, +) } }

    public var summaries: [WorkerSummary] {
        workers.indices.map { i in
            WorkerSummary(index: i, pid: workers[i].hello.pid, host: workers[i].hello.host,
                          tiles: workers[i].tiles, report: workers[i].report)
        }
    }

    private var tileCount: Int { plan.tiling.columns * plan.tiling.rows }

    /// Starts `operation` with `begin` and waits until the workers' answers complete it.
    private func perform(_ operation: Operation?, begin: () -> Void = {}) async throws {
        if let failure { throw failure }
        if let operation {
            precondition(phase == .idle, "one coordinator operation at a time")
            phase = .busy
            self.operation = operation
            begin()
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if let failure { continuation.resume(throwing: failure) } else { waiter = continuation }
        }
    }

    private func complete() {
        operation = nil
        phase = .idle
        waiter?.resume()
        waiter = nil
    }

    private func describe(_ index: Int) -> String {
        let w = workers[index]
        let tiles = w.tiles.map(\.description).joined(separator: " ")
        return "worker \(index) (pid \(w.hello.pid) on \(w.hello.host)\(tiles.isEmpty ? "" : ", tiles \(tiles)"))"
    }

    private func send(_ message: Message, to index: Int) {
        pump.send(Wire.encode(message), to: .worker(identity: workers[index].identity))
    }

    private func broadcast(_ message: Message) {
        let bytes = Wire.encode(message)
        for w in workers { pump.send(bytes, to: .worker(identity: w.identity)) }
    }

    private func stopTasks() {
        feed?.cancel()
        ticker?.cancel()
    }

    private func fail(_ problem: String) {
        guard phase != .finished else { return }
        phase = .finished
        let error = TesseraError(problem)
        failure = error
        broadcast(.abort(reason: problem))
        if let presenter { pump.send(Wire.encode(.abort(reason: problem)), to: .worker(identity: presenter)) }
        presenterRequests.finish()
        stopTasks()
        waiter?.resume(throwing: error)
        waiter = nil
    }

    private func tick() {
        let now = ContinuousClock.now
        switch phase {
        case .gathering:
            if now > connectDeadline {
                fail("only \(workers.count) of \(workerCount) workers connected in time (\(workerCount - workers.count) missing): start them with 'tessera worker --coordinator ENDPOINT', or check the network")
                return
            }
        case .preparing, .idle, .busy:
            // Building huge tiles takes as long as it takes; a worker fails the run only
            // when it stops answering (its heartbeats come from its pump thread).
            if let presenter, let heard = pump.lastHeard(from: presenter), now - heard > silence {
                fail("the presenter stopped answering (no heartbeat for \(silence))")
                return
            }
            let heard = { (i: Int) in max(self.workers[i].lastHeard, self.pump.lastHeard(from: self.workers[i].identity) ?? .now) }
            if let lost = workers.indices.first(where: { now - heard($0) > silence }) {
                fail("\(describe(lost)) stopped answering (no heartbeat for \(silence)): it died or the network is down")
                return
            }
        case .finished:
            return
        }
        broadcast(.heartbeat(generation: generation))
    }

    private func handle(_ bytes: [UInt8], from identity: [UInt8]) {
        guard let message = Wire.decodeOrLog(bytes, role: "coordinator") else { return }
        if case .hello(let hello) = message {
            welcome(hello, identity: identity)
            return
        }
        if case .presenterHello = message, presenter == nil {
            presenter = identity
        }
        if identity == presenter {
            presenterRequests.yield(message)
            return
        }
        guard let index = workers.firstIndex(where: { $0.identity == identity }) else { return }
        workers[index].lastHeard = .now
        switch (message, operation) {
        case (.heartbeat, _):
            break
        case (.ready, .load(let remaining)):
            remaining == 1 ? complete() : (operation = .load(remaining: remaining - 1))
        case (.ready, nil) where phase == .preparing:
            workers[index].ready = true
            if workers.allSatisfy(\.ready) { complete() }
        case (.done(let report), .advance(let remaining)):
            workers[index].report = report
            remaining == 1 ? complete() : (operation = .advance(remaining: remaining - 1))
        case (.frameTile(_, let x, let y, let dots), .frame(let remaining)) where resultGrid != nil:
            resultGrid!.formUnion(dots, atX: x, y: y)
            remaining == 1 ? complete() : (operation = .frame(remaining: remaining - 1))
        case (.tileCells(let tile, _, let cells), .collect(let rows, var remaining)):
            let rect = plan.tiling.rect(of: tile)
            guard remaining.remove(tile) != nil, let part = rect.rows(overlapping: rows),
                  cells.width == rect.width, cells.height == part.count, resultGrid != nil
            else {
                fail("\(describe(index)) sent cells of tile \(tile) that do not fit rows \(rows)")
                return
            }
            cells.copy(into: &resultGrid!, atX: rect.x, y: rect.y + part.lowerBound - rows.lowerBound)
            remaining.isEmpty ? complete() : (operation = .collect(rows: rows, remaining: remaining))
        case (.failure(let reason), _):
            fail("\(describe(index)): \(reason)")
        default:
            FileHandle.standardError.write(Data("tessera coordinator: ignored an unexpected message from \(describe(index))\n".utf8))
        }
    }

    private func welcome(_ hello: Hello, identity: [UInt8]) {
        guard phase == .gathering else {
            pump.send(Wire.encode(.abort(reason: "this run already has its \(workerCount) workers")),
                      to: .worker(identity: identity))
            return
        }
        workers.append(Worker(identity: identity, hello: hello, lastHeard: .now))
        guard workers.count == workerCount else { return }
        phase = .preparing
        let owners = plan.owners(workers: workerCount)
        let endpoints = workers.map(\.hello.endpoint)
        for (i, tile) in plan.tiling.tiles.enumerated() { workers[owners[i]].tiles.append(tile) }
        for index in workers.indices {
            send(.assign(Assignment(worker: index, tiling: plan.tiling, rule: plan.rule, halo: plan.halo,
                                    generation: plan.generation, soup: plan.cells == nil ? plan.soup : nil,
                                    overlay: plan.cells == nil ? plan.overlay : nil,
                                    endpoints: endpoints, owners: owners)), to: index)
            if let cells = plan.cells {
                for tile in workers[index].tiles {
                    send(.tileCells(tile: tile, generation: plan.generation, cells: cells(plan.tiling.rect(of: tile))), to: index)
                }
            }
        }
    }
}
