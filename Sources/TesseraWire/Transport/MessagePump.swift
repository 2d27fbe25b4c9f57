import CZeroMQ
import FoundationEssentials
import Glibc
import Synchronization
import TesseraCore

/// Moves messages between this process and its peers on a dedicated thread that owns
/// every ZeroMQ socket, so no blocking call ever runs on Swift's cooperative pool.
///
/// Up to three sockets: `control` (a ROUTER the coordinator binds, or a DEALER a worker,
/// presenter or viewer connects), `inbox` (a ROUTER bound for halo strips from peer
/// workers, or for viewers) and `outbox` (a ROUTER that connects to each peer's inbox
/// and addresses it by endpoint). Anything may call `send` from any thread; it wakes
/// the pump through an eventfd. What arrives comes out of `control` and `inbox`, one
/// stream per socket, in arrival order.
///
/// A role whose endpoints are all `memory://` names runs over `MemoryNetwork` instead:
/// the same surface and the same routes, in this process, with no sockets and no
/// thread but the heartbeat's, so a coordinator, its workers and viewers can run in one
/// test process over the code paths they use over ZeroMQ.
package final class MessagePump: Sendable {
    package enum Role: Sendable {
        /// Binds `control` as a ROUTER on `listen`, and `inbox` for viewers on `viewers`.
        case coordinator(listen: String, viewers: String? = nil)
        /// Connects `control` as a DEALER to the coordinator and binds `inbox` on `listen`;
        /// peers know it as `tcp://ADVERTISE:PORT`.
        case worker(coordinator: String, listen: String, advertise: String)
        /// Connects `control` as a DEALER to a presenter's viewer endpoint.
        case viewer(presenter: String)
        /// A presenter in its own process: connects `control` as a DEALER to the
        /// coordinator and binds `inbox` for viewers.
        case presenter(coordinator: String, viewers: String)
        /// A run stepped in this process, with no workers and no coordinator: binds
        /// `inbox` for viewers; `control` stays unconnected.
        case viewers(listen: String)
    }

    package enum Route: Sendable, Hashable {
        /// On the coordinator's control socket, to the worker or presenter with this identity.
        case member(PeerID)
        /// A DEALER's control socket, to the one peer it connected to.
        case coordinator
        /// A peer worker's inbox, on a connection that presents `identity` there
        /// (`HaloToken.identity(of:)`): the first message to an endpoint makes its
        /// connection, and the identity stays that connection's.
        case peer(endpoint: String, presenting: PeerID)
        /// A viewer attached to this process's viewer socket.
        case viewer(PeerID)
    }

    /// A message as it arrived, with the identity of its sender ([] on a DEALER).
    package struct Incoming: Sendable {
        package let from: PeerID
        package let bytes: [UInt8]
    }

    struct State {
        var queue: [(Route, [UInt8])] = []
        /// When the pump thread last received on `control`, by sender identity ([] for a DEALER's peer).
        var lastHeard: [PeerID: ContinuousClock.Instant] = [:]
        var stopping = false
        var bytesSent = 0
        /// Why the peer this process connected to turned it away at the handshake.
        var refusal: TesseraError?
    }

    /// What arrives on `control`.
    package let control: AsyncStream<Incoming>
    /// What arrives on `inbox`: halo strips (a worker) or viewers' messages. Viewers'
    /// messages beyond the newest 256 unread are dropped: the latest view request wins.
    package let inbox: AsyncStream<Incoming>
    /// The endpoint `control` (coordinator) or `inbox` (worker: as peers reach it) is at, port resolved.
    package let boundEndpoint: String
    /// The viewer endpoint, port resolved, if this process serves viewers.
    package let viewerEndpoint: String?
    let state: Mutex<State>
    /// Where messages go: the pump thread's ZeroMQ sockets, or the in-memory network.
    let backend: Backend
    /// Resolved by the pump thread when it has sent what was queued and closed its
    /// sockets, or by the in-memory heartbeat's thread when it has stopped.
    let finished: Completion<Void>

    enum Backend: Sendable {
        /// The pump thread's wake-up eventfd.
        case zeroMQ(wake: Int32)
        case memory(MemoryNetwork.Station)
    }

    init(control: AsyncStream<Incoming>, inbox: AsyncStream<Incoming>, boundEndpoint: String,
         viewerEndpoint: String?, backend: Backend, finished: Completion<Void>) {
        self.control = control
        self.inbox = inbox
        self.boundEndpoint = boundEndpoint
        self.viewerEndpoint = viewerEndpoint
        self.backend = backend
        self.finished = finished
        state = Mutex(State())
    }

    /// Starts a pump, runs `body` with it, and stops it, whatever `body` does.
    ///
    /// A pump with `heartbeat` sends it on `control` every `heartbeatInterval` from its
    /// own thread, so liveness never waits for busy compute threads.
    ///
    /// With `credentials` every socket speaks CURVE: those that listen admit only the
    /// keys in the allowlist, those that connect prove the process's own key. A process
    /// whose peer refuses its handshake sees `control` end, and this throws why.
    package static func with<T>(
        _ role: Role, credentials: Credentials? = nil, heartbeatInterval: Duration = .milliseconds(250),
        heartbeat: (@Sendable () -> [UInt8])? = nil, _ body: (MessagePump) async throws -> T
    ) async throws -> T {
        let pump = try await start(role, credentials: credentials, heartbeatInterval: heartbeatInterval, heartbeat: heartbeat)
        let result: Result<T, any Error>
        do { result = .success(try await body(pump)) } catch { result = .failure(error) }
        await pump.stop()
        Wire.logCountedRefusals(final: true)
        if let refusal = pump.refusal { throw refusal }
        return try result.get()
    }

    /// Why the peer this process connected to refused its handshake, if it did.
    package var refusal: TesseraError? { state.withLock { $0.refusal } }

    /// Starts the pump's thread, binds and connects its sockets, and returns once they are ready.
    private static func start(_ role: Role, credentials: Credentials?, heartbeatInterval: Duration,
                              heartbeat: (@Sendable () -> [UInt8])?) async throws -> MessagePump {
        if try MemoryNetwork.carries(role) {
            guard credentials == nil else {
                throw TesseraError("memory:// endpoints have no CURVE handshake", fix: "run without keys in one process, or use tcp:// endpoints")
            }
            return try MemoryNetwork.start(role, heartbeat: heartbeat.map { (heartbeatInterval, $0) })
        }
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else { throw TesseraError("cannot create an eventfd: \(Files.systemReason())") }
        return try await withCheckedThrowingContinuation { (ready: CheckedContinuation<MessagePump, any Error>) in
            OwnThread.start(named: "tessera-zmq") {
                serve(role, credentials: credentials, wake: wake, ready: ready,
                      heartbeat: heartbeat.map { (heartbeatInterval, $0) })
            }
        }
    }

    /// The pump thread's whole life. Everything ZeroMQ lives in this function, so when it
    /// returns the sockets are closed and the context terminated: lingering messages have left.
    private static func serve(_ role: Role, credentials: Credentials?, wake: Int32,
                              ready: CheckedContinuation<MessagePump, any Error>,
                              heartbeat: (interval: Duration, message: @Sendable () -> [UInt8])?) {
        let (control, controlIn) = AsyncStream.makeStream(of: Incoming.self)
        let servesViewers = role.servesViewers
        let (inbox, inboxIn) = AsyncStream.makeStream(of: Incoming.self,
                                                      bufferingPolicy: servesViewers ? .bufferingNewest(256) : .unbounded)
        let finished = Completion<Void>()
        defer {
            controlIn.finish()
            inboxIn.finish()
        }
        let pump: MessagePump
        do {
            let context = ZMQContext()
            // The ZAP handler, bound before anything listens: see `Gatekeeper`.
            let gate = try ZMQSocket(context, .reply)
            let gatekeeper = credentials?.allowlist.map { Gatekeeper(allowlist: $0) }
            if gatekeeper != nil, role.listens { try gate.bind(Gatekeeper.endpoint) }
            let largest = Int64(Wire.headerSize + Wire.maxPayload)
            let controlSocket = try ZMQSocket(context, role.isCoordinator ? .router : .dealer)
            // Last words (a shutdown, a failure report) must leave before the sockets
            // close; a peer that is gone costs at most this long.
            try controlSocket.set(ZMQ_LINGER, 2000)
            try controlSocket.set(ZMQ_MAXMSGSIZE, int64: largest)
            if role.isCoordinator {
                // Never drop a control message silently: one the pipe cannot take yet is retried.
                try controlSocket.set(ZMQ_ROUTER_MANDATORY, 1)
            }
            // Handshakes that fail: a connecting process learns why it was refused, a
            // listening one logs whom it refused.
            let controlWatch = try ZMQSocket(context, .pair)
            try controlSocket.monitor(as: "control", into: controlWatch)
            let inboxSocket = try ZMQSocket(context, .router)
            let inboxWatch = try ZMQSocket(context, .pair)
            if role.bindsInbox { try inboxSocket.monitor(as: "inbox", into: inboxWatch) }
            if servesViewers {
                // A viewer that stops reading holds at most a few frames: the rest are
                // dropped, never queued. What viewers send is tiny.
                try inboxSocket.set(ZMQ_SNDHWM, 4)
                try inboxSocket.set(ZMQ_MAXMSGSIZE, int64: 1 << 16)
            } else {
                try inboxSocket.set(ZMQ_MAXMSGSIZE, int64: largest)
            }
            let outbox = try ZMQSocket(context, .router)
            try outbox.set(ZMQ_ROUTER_MANDATORY, 1)
            if let credentials {
                if role.isCoordinator {
                    try controlSocket.listenSecurely(credentials, admitting: .member)
                } else {
                    try controlSocket.connectSecurely(credentials)
                }
                if role.bindsInbox { try inboxSocket.listenSecurely(credentials, admitting: servesViewers ? .viewer : .member) }
                try outbox.connectSecurely(credentials)
            }
            var bound = "", viewers: String? = nil
            switch role {
            case .coordinator(let listen, let viewerListen):
                try controlSocket.bind(listen)
                bound = controlSocket.lastEndpoint
                if let viewerListen {
                    try inboxSocket.bind(viewerListen)
                    viewers = inboxSocket.lastEndpoint
                }
            case .worker(let coordinator, let listen, let advertise):
                try inboxSocket.bind(listen)
                bound = "tcp://\(advertise):\(try Endpoint.split(inboxSocket.lastEndpoint).port)"
                // Peers' inboxes know this worker's connections by the run's token and this
                // endpoint (`HaloToken`), which must fit in a ZeroMQ identity.
                guard bound.utf8.count <= HaloToken.longestEndpoint else {
                    throw TesseraError("this worker's halo endpoint \(bound) is longer than the \(HaloToken.longestEndpoint) bytes a halo link can name",
                                       fix: "give --advertise a shorter host name or address")
                }
                try controlSocket.connect(coordinator)
            case .viewer(let presenter):
                try controlSocket.connect(presenter)
            case .presenter(let coordinator, let viewerListen):
                try inboxSocket.bind(viewerListen)
                viewers = inboxSocket.lastEndpoint
                try controlSocket.connect(coordinator)
            case .viewers(let listen):
                try inboxSocket.bind(listen)
                viewers = inboxSocket.lastEndpoint
            }
            pump = MessagePump(control: control, inbox: inbox, boundEndpoint: bound, viewerEndpoint: viewers,
                               backend: .zeroMQ(wake: wake), finished: finished)
            ready.resume(returning: pump)
            let sockets = Sockets(control: controlSocket, inbox: inboxSocket, outbox: outbox, gate: gate,
                                  controlWatch: controlWatch, inboxWatch: inboxWatch)
            pump.loop(sockets, wake: wake, role: role, credentials: credentials, gatekeeper: gatekeeper,
                      controlIn: controlIn, inboxIn: inboxIn, heartbeat: heartbeat)
        } catch {
            close(wake)
            ready.resume(throwing: error as? TesseraError ?? TesseraError("\(error)"))
            return
        }
        // The sockets and the context are gone by now (they were this function's locals
        // in the `do` block), so whatever lingered has been sent.
        finished.succeed()
    }

    // The eventfd lives as long as the pump, so a late `send` never writes to a reused descriptor.
    deinit {
        if case .zeroMQ(let wake) = backend { close(wake) }
    }

    /// Queues `bytes` for `route`; never blocks.
    package func send(_ bytes: [UInt8], to route: Route) {
        if case .memory(let station) = backend {
            guard !state.withLock({ $0.stopping }) else { return }
            station.deliver(bytes, to: route, from: self)
            return
        }
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.queue.append((route, bytes))
            return true
        }
        if queued { signal() }
    }

    package func send(_ message: Message, to route: Route) { send(Wire.encode(message), to: route) }

    package func send(_ message: some LaneMessage, to route: Route) { send(message.message, to: route) }

    /// When a message last arrived on `control` from `identity` ([]: the one peer of a
    /// DEALER). Stamped on the pump thread, so busy compute threads never make a live
    /// peer look silent.
    package func lastHeard(from identity: PeerID = []) -> ContinuousClock.Instant? {
        state.withLock { $0.lastHeard[identity] }
    }

    /// Halo bytes handed to ZeroMQ for peers so far.
    package var bytesSent: Int { state.withLock { $0.bytesSent } }

    /// Sends what is queued (best effort), closes the sockets and ends the streams;
    /// returns when the pump thread is done, which takes at most the control socket's
    /// two-second linger. The wait suspends; it never blocks a thread.
    package func stop() async {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first {
            if case .memory(let station) = backend { station.close() }
            signal()
        }
        try? await finished.value()
    }

    private func signal() {
        guard case .zeroMQ(let wake) = backend else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// Every socket of the pump thread.
    private struct Sockets: ~Copyable {
        let control: ZMQSocket, inbox: ZMQSocket, outbox: ZMQSocket
        /// The ZAP handler (bound only with keys, in a process that listens).
        let gate: ZMQSocket
        /// Handshake events of `control` and `inbox`.
        let controlWatch: ZMQSocket, inboxWatch: ZMQSocket
    }

    private func loop(_ sockets: borrowing Sockets, wake: Int32, role: Role, credentials: Credentials?, gatekeeper: Gatekeeper?,
                      controlIn: AsyncStream<Incoming>.Continuation, inboxIn: AsyncStream<Incoming>.Continuation,
                      heartbeat: (interval: Duration, message: @Sendable () -> [UInt8])?) {
        let isCoordinator = role.isCoordinator
        var handshakes = HandshakeLog(keyed: credentials != nil)
        let clock = ContinuousClock()
        var nextBeat = clock.now
        var connected = Set<String>()
        // Messages a pipe could not take yet (a peer not connected yet, or full): retried.
        var pending: [(Route, [UInt8])] = []
        while true {
            var items = [
                zmq_pollitem_t(socket: sockets.control.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: sockets.inbox.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: nil, fd: wake, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: sockets.gate.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: sockets.controlWatch.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
                zmq_pollitem_t(socket: sockets.inboxWatch.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0),
            ]
            var timeout = pending.isEmpty ? -1 : 1
            if let heartbeat {
                if clock.now >= nextBeat {
                    _ = try? sockets.control.send([heartbeat.message()])
                    nextBeat = clock.now + heartbeat.interval
                }
                let untilBeat = Int((nextBeat - clock.now).seconds * 1000) + 1
                timeout = timeout < 0 ? untilBeat : min(timeout, untilBeat)
            }
            let rc = zmq_poll(&items, Int32(items.count), timeout)
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
                case .coordinator:
                    delivered = (try? sockets.control.send([bytes])) ?? true
                case .member(let identity):
                    // Not yet (a full pipe): false, retried. A peer that is gone: thrown, dropped.
                    delivered = (try? sockets.control.send([identity, bytes])) ?? true
                case .viewer(let identity):
                    // Latest frame wins: one that cannot go now is dropped, never queued.
                    _ = try? sockets.inbox.send([identity, bytes])
                    delivered = true
                case .peer(let endpoint, _) where !endpoint.hasPrefix("tcp://"):
                    // A name of the in-memory network: no socket reaches it.
                    delivered = true
                case .peer(let endpoint, let identity):
                    if !connected.contains(endpoint) {
                        try? sockets.outbox.set(ZMQ_ROUTING_ID, bytes: identity)
                        try? sockets.outbox.set(ZMQ_CONNECT_ROUTING_ID, bytes: Array(endpoint.utf8))
                        try? sockets.outbox.connect(endpoint)
                        connected.insert(endpoint)
                    }
                    // Unroutable until the connection is up: keep it and try again shortly.
                    delivered = (try? sockets.outbox.send([Array(endpoint.utf8), bytes])) ?? false
                    if delivered { state.withLock { $0.bytesSent += bytes.count } }
                }
                if !delivered { retry.append((route, bytes)) }
            }
            pending = retry
            // Stopping: what was queued before stop() went out above (best effort); done.
            if stopping { return }
            if items[0].revents != 0 {
                while let frames = try? sockets.control.receive() {
                    let now = ContinuousClock.now
                    let from: PeerID = isCoordinator ? frames[0] : []
                    state.withLock { $0.lastHeard[from] = now }
                    if frames.count == (isCoordinator ? 2 : 1) {
                        controlIn.yield(Incoming(from: from, bytes: frames[frames.count - 1]))
                    }
                }
            }
            if items[3].revents != 0, let gatekeeper {
                while let request = try? sockets.gate.receive() {
                    let (reply, refusal) = gatekeeper.answer(request)
                    if let refusal { handshakes.say(refusal, as: role.logName) }
                    _ = try? sockets.gate.send(reply)
                }
            }
            if items[4].revents != 0 {
                while let frames = try? sockets.controlWatch.receive(), let event = HandshakeEvent(frames: frames) {
                    if !isCoordinator, let refusal = event.refusal(by: role.controlPeer, credentials: credentials) {
                        // Refused at the handshake: nothing will ever arrive; whoever reads `control` stops.
                        let first = state.withLock { state in
                            defer { state.refusal = state.refusal ?? refusal }
                            return state.refusal == nil
                        }
                        if first {
                            // No more attempts: each would be refused, and logged, again.
                            // No linger either: it would keep reconnecting to deliver what is queued.
                            try? sockets.control.set(ZMQ_LINGER, 0)
                            zmq_disconnect(sockets.control.handle, event.endpoint)
                            controlIn.finish()
                        }
                    } else if let line = handshakes.note(event) {
                        handshakes.say(line, as: role.logName)
                    }
                }
            }
            if items[5].revents != 0 {
                while let frames = try? sockets.inboxWatch.receive(), let event = HandshakeEvent(frames: frames) {
                    if let line = handshakes.note(event) { handshakes.say(line, as: role.logName) }
                }
            }
            if items[1].revents != 0 {
                while let frames = try? sockets.inbox.receive() {
                    guard frames.count == 2 else { continue }
                    inboxIn.yield(Incoming(from: frames[0], bytes: frames[1]))
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

    /// Whether any socket of this process listens (and so needs a ZAP handler with keys).
    var listens: Bool {
        if case .viewer = self { return false }
        return true
    }

    /// Whether `inbox` is bound (halo strips or viewers) rather than unused.
    var bindsInbox: Bool {
        switch self {
        case .coordinator(_, let viewers): viewers != nil
        case .worker, .presenter, .viewers: true
        case .viewer: false
        }
    }

    /// Who this process is, in its log lines (`tessera ROLE: …`).
    var logName: String {
        switch self {
        case .coordinator: "coordinator"
        case .worker: "worker"
        case .presenter: "presenter"
        case .viewer: "view"
        case .viewers: "run"
        }
    }

    /// The peer `control` connects to, in messages.
    var controlPeer: String {
        switch self {
        case .coordinator(let listen, _): "the workers' port \(listen)"
        case .worker(let coordinator, _, _), .presenter(let coordinator, _): "coordinator \(coordinator)"
        case .viewer(let presenter): "the viewer port \(presenter)"
        case .viewers: "no one"
        }
    }

    /// Whether `inbox` takes viewers (rather than halo strips from peers).
    var servesViewers: Bool {
        switch self {
        case .coordinator, .presenter, .viewers: true
        case .worker, .viewer: false
        }
    }
}
