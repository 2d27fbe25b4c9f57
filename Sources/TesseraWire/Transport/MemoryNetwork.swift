import Glibc
import Synchronization
import TesseraCore

/// ZeroMQ's routes between the processes of a cluster, in this process's memory: what
/// a `MessagePump` runs over when every endpoint of its role is a `memory://` name
/// (`memory://coordinator-*` binds a fresh one, as `tcp://host:*` picks a free port).
/// A coordinator, its workers, a presenter and viewers then run as tasks of one test
/// process, through the same pumps, routes, streams and liveness stamps as over sockets.
///
/// What differs from ZeroMQ: a message goes at once or never. One sent to a name nobody
/// binds (yet), or to a connection whose pump has stopped, is dropped, as a peer that
/// is gone drops it; so a listener binds before others connect. There is no CURVE.
package enum MemoryNetwork {
    static let scheme = "memory://"

    /// Which of a pump's streams a name it binds feeds.
    enum Socket { case control, inbox }

    private struct Link: Hashable {
        let endpoint: String
        let identity: PeerID
    }

    private struct Registry {
        /// Names bound: the pump that bound each, and the stream it feeds.
        var bound: [String: (pump: MessagePump, socket: Socket)] = [:]
        /// Control connections, by the name connected to and the connecting pump's identity.
        var connected: [Link: MessagePump] = [:]
        var made = 0
    }

    private static let registry = Mutex(Registry())

    /// Whether `role` runs in memory: all its endpoints are memory:// names. One that
    /// mixes them with others is refused.
    static func carries(_ role: MessagePump.Role) throws -> Bool {
        let names = role.endpoints
        let inMemory = names.filter { $0.hasPrefix(scheme) }.count
        guard inMemory == 0 || inMemory == names.count else {
            throw TesseraError("the \(role.logName)'s endpoints mix memory:// names with others: \(names.joined(separator: ", "))",
                               fix: "give all of a process's endpoints as memory:// names, or none")
        }
        return inMemory > 0
    }

    /// A pump for `role`, its names bound and its control connection made.
    static func start(_ role: MessagePump.Role, heartbeat: (interval: Duration, message: @Sendable () -> [UInt8])?) throws -> MessagePump {
        let (control, controlIn) = AsyncStream.makeStream(of: MessagePump.Incoming.self)
        let (inbox, inboxIn) = AsyncStream.makeStream(of: MessagePump.Incoming.self,
                                                      bufferingPolicy: role.servesViewers ? .bufferingNewest(256) : .unbounded)
        let finished = Completion<Void>()
        let pump = try registry.withLock { registry -> MessagePump in
            func fresh(_ name: String) throws -> String {
                registry.made += 1
                let resolved = name.hasSuffix("*") ? "\(name.dropLast())\(registry.made)" : name
                guard registry.bound[resolved] == nil else {
                    throw TesseraError("\(resolved) is bound already in this process", fix: "give another memory:// name, or end it with * for a fresh one")
                }
                return resolved
            }
            var controlName: String? = nil, inboxName: String? = nil, connectsTo: String? = nil
            switch role {
            case .coordinator(let listen, let viewers):
                controlName = try fresh(listen)
                inboxName = try viewers.map(fresh)
            case .worker(let coordinator, let listen, _):
                (inboxName, connectsTo) = (try fresh(listen), coordinator)
            case .viewer(let presenter):
                connectsTo = presenter
            case .presenter(let coordinator, let viewers):
                (inboxName, connectsTo) = (try fresh(viewers), coordinator)
            case .viewers(let listen):
                inboxName = try fresh(listen)
            }
            registry.made += 1
            // As ZeroMQ makes a DEALER's identity: a zero byte, then a number.
            let identity: PeerID = [0] + withUnsafeBytes(of: UInt32(registry.made).bigEndian, Array.init)
            let station = Station(identity: identity, controlIn: controlIn, inboxIn: inboxIn, connectsTo: connectsTo,
                                  controlName: controlName, inboxName: inboxName, heartbeats: heartbeat != nil,
                                  finished: finished)
            let bound = role.isCoordinator ? controlName! : inboxName ?? ""
            let viewers = role.servesViewers ? inboxName : nil
            let pump = MessagePump(control: control, inbox: inbox, boundEndpoint: bound, viewerEndpoint: viewers,
                                   backend: .memory(station), finished: finished)
            if let controlName { registry.bound[controlName] = (pump, .control) }
            if let inboxName { registry.bound[inboxName] = (pump, .inbox) }
            if let connectsTo { registry.connected[Link(endpoint: connectsTo, identity: identity)] = pump }
            return pump
        }
        if let heartbeat {
            // On a thread of its own, as the pump thread beats over ZeroMQ: liveness
            // never waits for the task pool.
            OwnThread.start(named: "tessera-beat") {
                let clock = ContinuousClock()
                var next = clock.now
                while !pump.state.withLock({ $0.stopping }) {
                    if clock.now >= next {
                        pump.send(heartbeat.message(), to: .coordinator)
                        next = clock.now + heartbeat.interval
                    }
                    // Short naps, so that stopping the pump waits for at most one.
                    var nap = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                    nanosleep(&nap, nil)
                }
                finished.succeed()
            }
        }
        return pump
    }

    /// One pump's place on the network: its identity, streams and names.
    final class Station: Sendable {
        let identity: PeerID
        let controlIn: AsyncStream<MessagePump.Incoming>.Continuation
        let inboxIn: AsyncStream<MessagePump.Incoming>.Continuation
        /// The name the control connection goes to, for a process that connects.
        let connectsTo: String?
        /// The names bound: the coordinator's control port; a halo or viewer port.
        let controlName: String?
        let inboxName: String?
        let heartbeats: Bool
        let finished: Completion<Void>

        init(identity: PeerID, controlIn: AsyncStream<MessagePump.Incoming>.Continuation,
             inboxIn: AsyncStream<MessagePump.Incoming>.Continuation, connectsTo: String?, controlName: String?,
             inboxName: String?, heartbeats: Bool, finished: Completion<Void>) {
            (self.identity, self.controlIn, self.inboxIn) = (identity, controlIn, inboxIn)
            (self.connectsTo, self.controlName, self.inboxName) = (connectsTo, controlName, inboxName)
            (self.heartbeats, self.finished) = (heartbeats, finished)
        }

        /// Hands `bytes` to the pump `route` reaches, if one does. Under the registry's
        /// lock, so what one sender sends arrives in the order sent.
        func deliver(_ bytes: [UInt8], to route: MessagePump.Route, from sender: MessagePump) {
            registry.withLock { registry in
                switch route {
                case .coordinator:
                    guard let name = connectsTo, let (target, socket) = registry.bound[name] else { return }
                    target.receive(MessagePump.Incoming(from: identity, bytes: bytes), on: socket)
                case .member(let peer):
                    guard let name = controlName, let target = registry.connected[Link(endpoint: name, identity: peer)] else { return }
                    target.receive(MessagePump.Incoming(from: [], bytes: bytes), on: .control)
                case .viewer(let peer):
                    guard let name = inboxName, let target = registry.connected[Link(endpoint: name, identity: peer)] else { return }
                    target.receive(MessagePump.Incoming(from: [], bytes: bytes), on: .control)
                case .peer(let endpoint, let presenting):
                    guard let (target, socket) = registry.bound[endpoint], socket == .inbox else { return }
                    target.receive(MessagePump.Incoming(from: presenting, bytes: bytes), on: .inbox)
                    sender.state.withLock { $0.bytesSent += bytes.count }
                }
            }
        }

        /// Takes the pump off the network and ends its streams.
        func close() {
            registry.withLock { registry in
                for name in [controlName, inboxName].compactMap({ $0 }) { registry.bound[name] = nil }
                if let connectsTo { registry.connected[Link(endpoint: connectsTo, identity: identity)] = nil }
            }
            controlIn.finish()
            inboxIn.finish()
            if !heartbeats { finished.succeed() }
        }
    }
}

extension MessagePump {
    /// A message off the in-memory network, into the stream `socket` feeds, stamped as
    /// the pump thread stamps what `control` receives.
    fileprivate func receive(_ incoming: Incoming, on socket: MemoryNetwork.Socket) {
        guard case .memory(let station) = backend else { return }
        switch socket {
        case .control:
            state.withLock { $0.lastHeard[incoming.from] = .now }
            station.controlIn.yield(incoming)
        case .inbox:
            station.inboxIn.yield(incoming)
        }
    }
}

extension MessagePump.Role {
    /// Every endpoint the role binds or connects to.
    var endpoints: [String] {
        switch self {
        case .coordinator(let listen, let viewers): [listen] + (viewers.map { [$0] } ?? [])
        case .worker(let coordinator, let listen, _): [coordinator, listen]
        case .viewer(let presenter): [presenter]
        case .presenter(let coordinator, let viewers): [coordinator, viewers]
        case .viewers(let listen): [listen]
        }
    }
}
