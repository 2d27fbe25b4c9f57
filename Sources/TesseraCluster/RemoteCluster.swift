import Foundation
import TesseraCore
import TesseraTiles
import TesseraWire

/// A coordinator in another process, driven over its control socket: lets the
/// presenter run as a process of its own (`tessera presenter`).
public actor RemoteCluster: ClusterDriver {
    /// Replies from the coordinator, in order, and what viewers send.
    private actor Mailbox {
        private var queue: [Message] = []
        private var waiter: CheckedContinuation<Message?, Never>?
        private var closed = false
        var viewerHandler: (@Sendable ([UInt8], Message) -> Void)?

        func put(_ message: Message) {
            if let waiter {
                self.waiter = nil
                waiter.resume(returning: message)
            } else {
                queue.append(message)
            }
        }

        func close() {
            closed = true
            waiter?.resume(returning: nil)
            waiter = nil
        }

        func take() async -> Message? {
            if !queue.isEmpty { return queue.removeFirst() }
            if closed { return nil }
            return await withCheckedContinuation { waiter = $0 }
        }

        func setViewerHandler(_ handler: @escaping @Sendable ([UInt8], Message) -> Void) { viewerHandler = handler }
    }

    private let pump: MessagePump
    private let mailbox: Mailbox
    public nonisolated let tiling: Tiling
    public nonisolated let workerCount: Int
    public nonisolated let rule: Rule
    public private(set) var generation: UInt64
    public private(set) var population = 0

    /// Connects to the coordinator at `coordinator` and serves viewers on `viewers`;
    /// returns the cluster and the viewer endpoint, port resolved.
    public static func connect(coordinator: String, viewers: String) async throws -> (RemoteCluster, String) {
        // Heartbeats from the pump thread tell the coordinator this presenter is alive.
        let pump = try await MessagePump.start(.presenter(coordinator: coordinator, viewers: viewers)) {
            Wire.encode(.heartbeat(generation: 0))
        }
        let mailbox = Mailbox()
        Task {
            for await incoming in pump.events {
                guard let message = Wire.decodeOrLog(incoming.bytes, role: "presenter") else { continue }
                if case .viewer(let identity) = incoming.source {
                    await mailbox.viewerHandler?(identity, message)
                } else {
                    await mailbox.put(message)
                }
            }
            await mailbox.close()
        }
        pump.send(Wire.encode(.presenterHello), to: .coordinator)
        guard case .assign(let welcome)? = await mailbox.take() else {
            throw TesseraError("coordinator \(coordinator) did not welcome the presenter",
                               fix: "start it with 'tessera coordinator --external-presenter'")
        }
        return (RemoteCluster(pump: pump, mailbox: mailbox, welcome: welcome), pump.viewerEndpoint ?? viewers)
    }

    private init(pump: MessagePump, mailbox: Mailbox, welcome: Assignment) {
        self.pump = pump
        self.mailbox = mailbox
        tiling = welcome.tiling
        workerCount = welcome.endpoints.count
        rule = welcome.rule
        generation = welcome.generation
    }

    private func request(_ message: Message) async throws -> Message {
        pump.send(Wire.encode(message), to: .coordinator)
        while let reply = await mailbox.take() {
            if case .abort(let reason) = reply { throw TesseraError("the run ended: \(reason)") }
            if case .heartbeat = reply { continue }
            return reply
        }
        throw TesseraError("lost the coordinator", fix: "check that 'tessera coordinator' is still running")
    }
    public func advance(_ generations: UInt64) async throws {
        guard case .done(let report) = try await request(.start(generations: generations)) else {
            throw TesseraError("unexpected reply from the coordinator")
        }
        generation += generations
        population = report.populations.values.reduce(0, +)
    }

    public func frame(_ viewport: Viewport) async throws -> BitGrid {
        guard case .frameTile(_, _, _, let dots) = try await request(.frameRequest(viewport)) else {
            throw TesseraError("unexpected reply from the coordinator")
        }
        return dots
    }

    public func collect() async throws -> BitGrid {
        guard case .tileCells(_, _, let board) = try await request(.collect(rows: 0..<tiling.shape.height)) else {
            throw TesseraError("unexpected reply from the coordinator")
        }
        return board
    }

    public func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        let board = cells(TileRect(x: 0, y: 0, width: tiling.shape.width, height: tiling.shape.height))
        guard case .ready = try await request(.tileCells(tile: TileID(column: 0, row: 0), generation: generation, cells: board))
        else { throw TesseraError("unexpected reply from the coordinator") }
        self.generation = generation
    }

    public func onViewerMessage(_ handler: @escaping @Sendable ([UInt8], Message) -> Void) async {
        await mailbox.setViewerHandler(handler)
    }

    public nonisolated func send(_ message: Message, toViewer identity: [UInt8]) {
        pump.send(Wire.encode(message), to: .viewer(identity: identity))
    }

    /// Tells the coordinator the presenter is done; it finishes the run.
    public func finish() {
        pump.send(Wire.encode(.shutdown), to: .coordinator)
        pump.stop()
    }
}
