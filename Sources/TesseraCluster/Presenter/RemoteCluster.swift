import FoundationEssentials
import Synchronization
import TesseraCore
import TesseraWire

/// A coordinator in another process, driven over its control socket: lets the
/// presenter run as a process of its own (`tessera presenter`).
package actor RemoteCluster: Universe {
    private let link: CoordinatorLink
    private let pump: MessagePump
    package nonisolated let tiling: Tiling
    package nonisolated let workerCount: Int

    package var board: (x: Int, y: Int, width: Int, height: Int) { (0, 0, tiling.shape.width, tiling.shape.height) }
    package var tiles: (columns: Int, rows: Int) { (tiling.columns, tiling.rows) }
    package nonisolated let rule: Rule
    package nonisolated var stateCount: Int { rule.states }
    package private(set) var generation: UInt64
    package private(set) var population: Int

    /// Connects to the coordinator at `coordinator`, serves viewers on `viewers`, and
    /// runs `body` with the cluster and the viewer endpoint (port resolved). The
    /// coordinator's messages are read, in order, by a child task meanwhile.
    ///
    /// - Parameter silence: how long the coordinator may stay silent, before its welcome
    ///   or after, before the presenter gives up on it.
    package static func with<T: Sendable>(coordinator: String, viewers: String, silence: Duration = .seconds(5),
                                          credentials: Credentials? = nil,
                                          _ body: @Sendable (RemoteCluster, String) async throws -> T) async throws -> T {
        // Heartbeats from the pump thread tell the coordinator this presenter is alive.
        try await MessagePump.with(.presenter(coordinator: coordinator, viewers: viewers), credentials: credentials,
                                   heartbeat: { Wire.encode(.heartbeat(RunProgress(generation: 0))) }) { pump in
            let link = CoordinatorLink()
            var services = ServiceGroup()
            services.add {
                for await incoming in pump.control {
                    guard let message = Wire.decodeOrLog(incoming.bytes, as: ToPresenter.self, role: "presenter") else { continue }
                    link.deliver(message)
                }
                link.fail(TesseraError("lost the coordinator", fix: "check that 'tessera coordinator' is still running"))
            }
            services.add {
                let started = ContinuousClock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    guard !Task.isCancelled, ContinuousClock.now - (pump.lastHeard() ?? started) > silence else { continue }
                    link.fail(link.welcome.isDone
                        ? TesseraError("coordinator \(coordinator) stopped answering (nothing for \(Format.duration(silence.seconds)))",
                                       fix: "check that it is still running and reachable")
                        : TesseraError("coordinator \(coordinator) did not answer in \(Format.duration(silence.seconds))",
                                       fix: "check the address, and that it runs with --external-presenter"))
                    return
                }
            }
            return try await services.run {
                pump.send(.presenterHello, to: .coordinator)
                let welcome = try await link.welcome.value()
                let cluster = RemoteCluster(link: link, pump: pump, welcome: welcome)
                let result = try await body(cluster, pump.viewerEndpoint ?? viewers)
                // The coordinator finishes the run once told; this goes before the pump stops.
                pump.send(.presenterRequest(op: 0, .finish), to: .coordinator)
                return result
            }
        }
    }

    private init(link: CoordinatorLink, pump: MessagePump, welcome: PresenterWelcome) {
        self.link = link
        self.pump = pump
        tiling = welcome.tiling
        workerCount = welcome.workers
        rule = welcome.rule
        generation = welcome.generation
        population = welcome.population
    }

    package func advance(_ generations: UInt64) async throws {
        guard case .advanced(let reached, let population) = try await link.request(.advance(generations: generations), pump) else {
            throw TesseraError("the coordinator answered an advance with something else")
        }
        (generation, self.population) = (reached, population)
    }

    package func frame(_ viewport: Viewport) async throws -> BitGrid {
        guard case .frame(let dots) = try await link.request(.frame(viewport), pump) else {
            throw TesseraError("the coordinator answered a frame request with something else")
        }
        return dots
    }

    package func collect() async throws -> BitGrid {
        guard case .board(let board) = try await link.request(.collect(rows: 0..<tiling.shape.height), pump) else {
            throw TesseraError("the coordinator answered a collect with something else")
        }
        return board
    }

    package func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        let board = cells(TileRect(x: 0, y: 0, width: tiling.shape.width, height: tiling.shape.height))
        try await loading(.load(generation: generation, board: board))
    }

    /// Asks for a load (of cells or of states) and takes the generation and population it reached.
    private func loading(_ request: PresenterRequest) async throws {
        guard case .loaded(let at, let population) = try await link.request(request, pump) else {
            throw TesseraError("the coordinator answered a load with something else")
        }
        (generation, self.population) = (at, population)
    }

    package func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)? {
        guard rule.states > 2 else { return nil }
        guard case .stateFrame(let dots, let states) = try await link.request(.stateFrame(viewport), pump) else {
            throw TesseraError("the coordinator answered a frame request with something else")
        }
        return dots.isEmpty ? nil : (dots, states)
    }

    package func collectStates() async throws -> StateGrid {
        guard case .states(let board) = try await link.request(.collectStates, pump) else {
            throw TesseraError("the coordinator answered a collect with something else")
        }
        return board
    }

    package func load(generation: UInt64, states: StateGrid) async throws {
        try await loading(.loadStates(generation: generation, board: states))
    }

    package var failure: TesseraError? { link.failure }

    /// The socket its presenter's viewers attach to.
    package nonisolated var viewers: MessagePump { pump }
}

/// The presenter's side of its coordinator connection: each request waits for the
/// reply with its number; an abort or a lost coordinator fails every wait. Its state
/// is behind a lock, hence `Sendable`.
private final class CoordinatorLink: Sendable {
    private struct State {
        var lastOp: UInt64 = 0
        var waiting: [UInt64: Completion<PresenterReply>] = [:]
        var failure: TesseraError?
    }

    private let state = Mutex(State())
    let welcome = Completion<PresenterWelcome>()

    /// Takes one of the coordinator's messages, in arrival order.
    func deliver(_ message: ToPresenter) {
        switch message {
        case .presenterWelcome(let welcome):
            self.welcome.succeed(welcome)
        case .presenterReply(let op, let reply):
            guard let waiter = state.withLock({ $0.waiting.removeValue(forKey: op) }) else {
                Wire.log("presenter", "ignored a stray reply from the coordinator (no request \(op) waits)")
                return
            }
            waiter.succeed(reply)
        case .abort(let reason):
            fail(TesseraError("the run ended: \(reason)"))
        case .refused(let reason):
            fail(TesseraError("the coordinator refused this presenter: \(reason)"))
        case .heartbeat:
            break
        }
    }

    var failure: TesseraError? { state.withLock { $0.failure } }

    func fail(_ error: TesseraError) {
        let waiting = state.withLock { state -> [Completion<PresenterReply>] in
            state.failure = state.failure ?? error
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        welcome.fail(error)
        waiting.forEach { $0.fail(error) }
    }

    func request(_ request: PresenterRequest, _ pump: MessagePump) async throws -> PresenterReply {
        let reply = Completion<PresenterReply>()
        let op = try state.withLock { state -> UInt64 in
            if let failure = state.failure { throw failure }
            state.lastOp += 1
            state.waiting[state.lastOp] = reply
            return state.lastOp
        }
        pump.send(.presenterRequest(op: op, request), to: .coordinator)
        return try await reply.value()
    }
}
