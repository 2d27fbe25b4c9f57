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
    /// Wall time from `start` to the last worker's `done`.
    public let seconds: Double
    public let population: Int
    public let workers: [WorkerSummary]
    /// The final board, when the plan asked to collect it.
    public let board: BitGrid?
}

/// Runs a plan on workers: waits for them to connect, assigns tiles, starts them, and
/// gathers their reports and, if asked, their cells. It is not on the data path: halos
/// go from worker to worker. Every change to the run's state happens in this actor.
public actor Coordinator {
    private enum Phase { case gathering, preparing, running, collecting, finished }

    private struct Worker {
        let identity: [UInt8]
        let hello: Hello
        var lastHeard: ContinuousClock.Instant
        var tiles: [TileID] = []
        var ready = false
        var report: WorkerReport?
    }

    private let pump: MessagePump
    private let plan: RunPlan
    private let expected: Int
    private let connectDeadline: ContinuousClock.Instant
    private let silence: Duration
    private var phase = Phase.gathering
    private var workers: [Worker] = []
    private var startedAt = ContinuousClock.now
    private var seconds = 0.0
    private var collected: [TileID: BitGrid] = [:]
    private var outcome: CheckedContinuation<RunOutcome, any Error>?
    private var finalResult: Result<RunOutcome, any Error>?

    /// - Parameters:
    ///   - connectTimeout: how long to wait for all `workers` to connect.
    ///   - silence: how long a worker may go without a heartbeat before the run fails.
    public init(pump: MessagePump, workers: Int, plan: RunPlan, connectTimeout: Duration,
                silence: Duration = .seconds(5)) {
        self.pump = pump
        self.plan = plan
        expected = workers
        connectDeadline = .now + connectTimeout
        self.silence = silence
    }

    /// Runs the plan to the end, or throws a `TesseraError` naming what went wrong.
    public func run() async throws -> RunOutcome {
        let events = pump.events
        let feed = Task {
            for await event in events {
                guard case .control(let identity?) = event.source else { continue }
                self.handle(event.bytes, from: identity)
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                self.tick()
            }
        }
        defer {
            feed.cancel()
            ticker.cancel()
        }
        return try await withCheckedThrowingContinuation { continuation in
            if let finalResult { continuation.resume(with: finalResult) } else { outcome = continuation }
        }
    }

    /// A local worker process ended; the launcher says how.
    public func workerExited(pid: Int32, how: String) {
        guard phase != .finished else { return }
        if let index = workers.firstIndex(where: { $0.hello.pid == UInt32(pid) }) {
            fail("\(describe(index)) \(how)")
        } else {
            fail("worker process \(pid) \(how) before it connected")
        }
    }

    /// Stops the run (Ctrl-C, say): workers are told to abort.
    public func cancel(_ reason: String) { fail(reason) }

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

    private func fail(_ problem: String) {
        guard phase != .finished else { return }
        phase = .finished
        broadcast(.abort(reason: problem))
        complete(.failure(TesseraError(problem)))
    }

    private func complete(_ result: Result<RunOutcome, any Error>) {
        finalResult = result
        outcome?.resume(with: result)
        outcome = nil
    }

    private func tick() {
        let now = ContinuousClock.now
        switch phase {
        case .gathering, .preparing:
            if now > connectDeadline {
                let missing = phase == .gathering ? expected - workers.count : workers.filter { !$0.ready }.count
                fail(phase == .gathering
                    ? "only \(workers.count) of \(expected) workers connected in time (\(missing) missing): start them with 'tessera worker --coordinator ENDPOINT', or check the network"
                    : "\(missing) workers never got ready")
                return
            }
        case .running, .collecting:
            if let lost = workers.indices.first(where: { now - workers[$0].lastHeard > silence }) {
                fail("\(describe(lost)) stopped answering (no heartbeat for \(silence)): it died or the network is down")
                return
            }
        case .finished:
            return
        }
        broadcast(.heartbeat(generation: 0))
    }

    private func handle(_ bytes: [UInt8], from identity: [UInt8]) {
        guard let message = Wire.decodeOrLog(bytes, role: "coordinator") else { return }
        if case .hello(let hello) = message {
            welcome(hello, identity: identity)
            return
        }
        guard let index = workers.firstIndex(where: { $0.identity == identity }) else { return }
        workers[index].lastHeard = .now
        switch message {
        case .heartbeat:
            break
        case .ready:
            workers[index].ready = true
            if phase == .preparing, workers.allSatisfy(\.ready) {
                phase = .running
                startedAt = .now
                broadcast(.start(generations: plan.generations))
            }
        case .done(let report):
            workers[index].report = report
            if phase == .running, workers.allSatisfy({ $0.report != nil }) {
                seconds = (ContinuousClock.now - startedAt).seconds
                if plan.collect {
                    phase = .collecting
                    broadcast(.collect)
                } else {
                    finish(board: nil)
                }
            }
        case .tileCells(let tile, _, let cells):
            guard phase == .collecting else { return }
            collected[tile] = cells
            if collected.count == plan.tiling.columns * plan.tiling.rows { assemble() }
        case .failure(let reason):
            fail("\(describe(index)): \(reason)")
        default:
            FileHandle.standardError.write(Data("tessera coordinator: ignored an unexpected message from \(describe(index))\n".utf8))
        }
    }

    private func welcome(_ hello: Hello, identity: [UInt8]) {
        guard phase == .gathering else {
            pump.send(Wire.encode(.abort(reason: "this run already has its \(expected) workers")),
                      to: .worker(identity: identity))
            return
        }
        workers.append(Worker(identity: identity, hello: hello, lastHeard: .now))
        guard workers.count == expected else { return }
        phase = .preparing
        let owners = plan.owners(workers: expected)
        let endpoints = workers.map(\.hello.endpoint)
        for (i, tile) in plan.tiling.tiles.enumerated() { workers[owners[i]].tiles.append(tile) }
        for index in workers.indices {
            send(.assign(Assignment(worker: index, tiling: plan.tiling, rule: plan.rule, halo: plan.halo,
                                    generation: plan.generation, soup: plan.cells == nil ? plan.soup : nil,
                                    endpoints: endpoints, owners: owners)), to: index)
            if let cells = plan.cells {
                for tile in workers[index].tiles {
                    send(.tileCells(tile: tile, generation: plan.generation, cells: cells(plan.tiling.rect(of: tile))), to: index)
                }
            }
        }
    }

    private func assemble() {
        var board = BitGrid(width: plan.tiling.shape.width, height: plan.tiling.shape.height)
        for (tile, cells) in collected {
            let rect = plan.tiling.rect(of: tile)
            cells.copy(into: &board, atX: rect.x, y: rect.y)
        }
        finish(board: board)
    }

    private func finish(board: BitGrid?) {
        phase = .finished
        broadcast(.shutdown)
        let summaries = workers.indices.map { i in
            WorkerSummary(index: i, pid: workers[i].hello.pid, host: workers[i].hello.host,
                          tiles: workers[i].tiles, report: workers[i].report ?? WorkerReport())
        }
        let population = summaries.reduce(0) { $0 + $1.report.populations.values.reduce(0, +) }
        complete(.success(RunOutcome(seconds: seconds, population: population, workers: summaries, board: board)))
    }
}
