import CZeroMQ
import Foundation
import Synchronization
import TesseraCore

/// Moves messages between this process and its peers on a dedicated thread that owns
/// every ZeroMQ socket, so no blocking call ever runs on Swift's cooperative pool.
///
/// Three sockets: `control` (a ROUTER the coordinator binds, or a DEALER a worker
/// connects to it), `inbox` (a ROUTER bound for halo strips from peers) and `outbox` (a
/// ROUTER that connects to each peer's inbox and addresses it by endpoint). Anything may
/// call `send` from any thread; it wakes the pump through an eventfd. What arrives comes
/// out of `events`.
public final class MessagePump: Sendable {
    public enum Role: Sendable {
        /// Binds `control` as a ROUTER on `listen`, and `inbox` for viewers on `viewers`.
        case coordinator(listen: String, viewers: String? = nil)
        /// Connects `control` as a DEALER to the coordinator and binds `inbox` here.
        case worker(coordinator: String, listen: String)
        /// Connects `control` as a DEALER to a presenter's viewer endpoint.
        case viewer(presenter: String)
        /// A presenter in its own process: connects `control` as a DEALER to the
        /// coordinator and binds `inbox` for viewers.
        case presenter(coordinator: String, viewers: String)
    }

    public enum Route: Sendable, Hashable {
        /// The coordinator's control socket to the worker with this identity.
        case worker(identity: [UInt8])
        /// A worker's control socket to its coordinator.
        case coordinator
        /// A peer worker's inbox.
        case peer(endpoint: String)
        /// A viewer attached to the presenter.
        case viewer(identity: [UInt8])
    }

    public enum Source: Sendable, Hashable {
        case control(identity: [UInt8]?)
        case peer
        case viewer(identity: [UInt8])
    }

    public struct Incoming: Sendable {
        public let source: Source
        public let bytes: [UInt8]
    }

    private struct State {
        var queue: [(Route, [UInt8])] = []
        /// When the pump thread last received on `control`, by sender identity ([] for a DEALER's peer).
        var lastHeard: [[UInt8]: ContinuousClock.Instant] = [:]
        var stopping = false
        var bytesSent = 0
    }

    public let events: AsyncStream<Incoming>
    /// The endpoint `control` (coordinator) or `inbox` (worker) is bound to, port resolved.
    public let boundEndpoint: String
    /// The coordinator's viewer endpoint, port resolved, if it has one.
    public let viewerEndpoint: String?
    private let continuation: AsyncStream<Incoming>.Continuation
    private let state: Mutex<State>
    private let wake: Int32
    /// Signalled when the pump thread has sent what was queued and closed its sockets.
    private let finished: DispatchSemaphore

    private init(events: AsyncStream<Incoming>, continuation: AsyncStream<Incoming>.Continuation,
                 boundEndpoint: String, viewerEndpoint: String?, wake: Int32, finished: DispatchSemaphore) {
        self.finished = finished
        self.events = events
        self.continuation = continuation
        self.boundEndpoint = boundEndpoint
        self.viewerEndpoint = viewerEndpoint
        self.wake = wake
        state = Mutex(State())
    }

    /// Starts the pump's thread, binds and connects its sockets, and returns once they are ready.
    ///
    /// A worker's pump sends `heartbeat()` to the coordinator every `heartbeatInterval`
    /// from its own thread, so liveness never waits for busy compute threads.
    public static func start(
        _ role: Role, heartbeatInterval: Duration = .milliseconds(250),
        heartbeat: (@Sendable () -> [UInt8])? = nil
    ) async throws -> MessagePump {
        let (events, continuation) = AsyncStream.makeStream(of: Incoming.self)
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else { throw TesseraError("cannot create an eventfd: \(String(cString: strerror(errno)))") }
        let finished = DispatchSemaphore(value: 0)
        return try await withCheckedThrowingContinuation { (ready: CheckedContinuation<MessagePump, any Error>) in
            let thread = Thread {
                // Everything ZeroMQ lives in this function, so when it returns the sockets
                // are closed and the context terminated: lingering messages have left.
                serve(role, events: events, continuation: continuation, wake: wake, finished: finished, ready: ready,
                      heartbeatInterval: heartbeatInterval, heartbeat: heartbeat)
                finished.signal()
            }
            thread.name = "tessera-zmq"
            thread.start()
        }
    }

    private static func serve(
        _ role: Role, events: AsyncStream<Incoming>, continuation: AsyncStream<Incoming>.Continuation, wake: Int32,
        finished: DispatchSemaphore, ready: CheckedContinuation<MessagePump, any Error>,
        heartbeatInterval: Duration, heartbeat: (@Sendable () -> [UInt8])?
    ) {
        let context = ZMQContext()
        do {
            let control = try ZMQSocket(context, role.isCoordinator ? .router : .dealer)
            // Last words (a shutdown, a failure report) must leave before the
            // sockets close; a peer that is gone costs at most this long.
            try control.set(ZMQ_LINGER, 2000)
            let inbox = try ZMQSocket(context, .router)
            let outbox = try ZMQSocket(context, .router)
            try outbox.set(ZMQ_ROUTER_MANDATORY, 1)
            var bound = "", viewers: String? = nil
            switch role {
            case .coordinator(let listen, let viewerListen):
                try control.bind(listen)
                bound = control.lastEndpoint
                if let viewerListen {
                    try inbox.bind(viewerListen)
                    viewers = inbox.lastEndpoint
                }
            case .worker(let coordinator, let listen):
                try inbox.bind(listen)
                bound = inbox.lastEndpoint
                try control.connect(coordinator)
            case .viewer(let presenter):
                try control.connect(presenter)
            case .presenter(let coordinator, let viewerListen):
                try inbox.bind(viewerListen)
                viewers = inbox.lastEndpoint
                try control.connect(coordinator)
            }
            let pump = MessagePump(events: events, continuation: continuation, boundEndpoint: bound,
                                   viewerEndpoint: viewers, wake: wake, finished: finished)
            ready.resume(returning: pump)
            pump.loop(control: control, inbox: inbox, outbox: outbox, isCoordinator: role.isCoordinator,
                  servesViewers: role.servesViewers,
                      heartbeat: heartbeat.map { (heartbeatInterval, $0) })
        } catch {
            close(wake)
            continuation.finish()
            ready.resume(throwing: TesseraError("\(error)"))
        }
    }

    // The eventfd lives as long as the pump, so a late `send` never writes to a reused descriptor.
    deinit { close(wake) }

    /// Queues `bytes` for `route`; never blocks.
    public func send(_ bytes: [UInt8], to route: Route) {
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append((route, bytes))
            return true
        }
        if queued { signal() }
    }

    /// When a message last arrived on `control` from `identity` (nil: the coordinator, for
    /// a worker). Stamped on the pump thread, so busy compute threads never make a live
    /// peer look silent.
    public func lastHeard(from identity: [UInt8]? = nil) -> ContinuousClock.Instant? {
        state.withLock { $0.lastHeard[identity ?? []] }
    }

    /// Halo bytes handed to ZeroMQ for peers so far.
    public var bytesSent: Int { state.withLock { $0.bytesSent } }

    /// Sends what is queued (best effort), closes the sockets and ends `events`. Waits
    /// up to three seconds for that (the control socket lingers up to two), so a last message (a shutdown) is not lost when the
    /// process exits right after.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        signal()
        _ = finished.wait(timeout: .now() + 3)
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    private func loop(control: borrowing ZMQSocket, inbox: borrowing ZMQSocket, outbox: borrowing ZMQSocket,
                      isCoordinator: Bool, servesViewers: Bool, heartbeat: (interval: Duration, message: @Sendable () -> [UInt8])?) {
        let clock = ContinuousClock()
        var nextBeat = clock.now
        var connected = Set<String>()
        // Messages a peer's inbox could not take yet (not connected, or full): retried.
        var pending: [(Route, [UInt8])] = []
        defer { continuation.finish() }
        while true {
            var items = [
                zmq_pollitem_t(socket: control.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: inbox.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: nil, fd: wake, events: Int16(ZMQ_POLLIN), revents: 0),
            ]
            var timeout = pending.isEmpty ? -1 : 1
            if let heartbeat {
                if clock.now >= nextBeat {
                    _ = try? control.send([heartbeat.message()])
                    nextBeat = clock.now + heartbeat.interval
                }
                let untilBeat = Int((nextBeat - clock.now).seconds * 1000) + 1
                timeout = timeout < 0 ? untilBeat : min(timeout, untilBeat)
            }
            let rc = zmq_poll(&items, 3, timeout)
            if rc < 0 && zmq_errno() != EINTR { return }
            if items[2].revents != 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
            let (queue, stopping) = state.withLock { state -> ([(Route, [UInt8])], Bool) in
                defer { state.queue.removeAll(keepingCapacity: true) }
                return (state.queue, state.stopping)
            }
            var retry: [(Route, [UInt8])] = []
            for (route, bytes) in pending + queue {
                let delivered: Bool
                switch route {
                case .coordinator, .worker:
                    let frames: [[UInt8]]
                    if case .worker(let identity) = route { frames = [identity, bytes] } else { frames = [bytes] }
                    delivered = (try? control.send(frames)) ?? true
                case .viewer(let identity):
                    // Latest frame wins: one that cannot go now is dropped, never queued.
                    _ = try? inbox.send([identity, bytes])
                    delivered = true
                case .peer(let endpoint):
                    if !connected.contains(endpoint) {
                        try? outbox.set(ZMQ_CONNECT_ROUTING_ID, bytes: Array(endpoint.utf8))
                        try? outbox.connect(endpoint)
                        connected.insert(endpoint)
                    }
                    // Unroutable until the connection is up: keep it and try again shortly.
                    delivered = (try? outbox.send([Array(endpoint.utf8), bytes])) ?? false
                }
                if delivered {
                    if case .peer = route { state.withLock { $0.bytesSent += bytes.count } }
                } else {
                    retry.append((route, bytes))
                }
            }
            pending = retry
            // Stopping: what was queued before stop() went out above (best effort); done.
            if stopping { return }
            if items[0].revents != 0 {
                while let frames = try? control.receive() {
                    let now = ContinuousClock.now
                    state.withLock { $0.lastHeard[isCoordinator ? frames[0] : [], default: now] = now }
                    if isCoordinator, frames.count == 2 {
                        continuation.yield(Incoming(source: .control(identity: frames[0]), bytes: frames[1]))
                    } else if !isCoordinator, frames.count == 1 {
                        continuation.yield(Incoming(source: .control(identity: nil), bytes: frames[0]))
                    }
                }
            }
            if items[1].revents != 0 {
                while let frames = try? inbox.receive() {
                    guard frames.count == 2 else { continue }
                    let source: Source = servesViewers ? .viewer(identity: frames[0]) : .peer
                    continuation.yield(Incoming(source: source, bytes: frames[1]))
                }
            }
        }
    }
}

extension MessagePump.Role {
    var isCoordinator: Bool {
        if case .coordinator = self { return true }
        return false
    }

    /// Whether `inbox` takes viewers (rather than halo strips from peers).
    var servesViewers: Bool {
        switch self {
        case .coordinator, .presenter: true
        case .worker, .viewer: false
        }
    }
}
