import CZeroMQ
import Foundation
import TesseraCore
@testable import TesseraWire

/// A raw ZeroMQ peer, scripted by a test: it says what it likes to whoever it connects
/// to (a coordinator's control port, a worker's halo port, a viewer port) and reads
/// what comes back. It lives on the test's thread, as a socket must.
final class StrangePeer {
    private let context = ZMQContext()
    private var socket: ZMQSocket

    /// - Parameter reading: false keeps (almost) nothing of what arrives unread, so the
    ///   sender's queue, not this process, holds what it sends: a viewer that stops reading.
    /// - Parameter curve: speak CURVE to a server with this public key, as this key pair
    ///   (a stranger's own, or one the cluster lists).
    init(connectingTo endpoint: String, identity: String? = nil, reading: Bool = true,
         curve: (serverKey: String, keys: CurveKeyPair)? = nil) throws {
        socket = try ZMQSocket(context, .dealer)
        if let curve {
            try socket.set(ZMQ_CURVE_SERVERKEY, bytes: Array(curve.serverKey.utf8))
            try socket.set(ZMQ_CURVE_PUBLICKEY, bytes: Array(curve.keys.publicKey.utf8))
            try socket.set(ZMQ_CURVE_SECRETKEY, bytes: Array(curve.keys.secretKey.utf8))
        }
        if let identity { try socket.set(ZMQ_ROUTING_ID, bytes: Array(identity.utf8)) }
        if !reading {
            try socket.set(ZMQ_RCVHWM, 1)
            try socket.set(ZMQ_RCVBUF, 4096)
        }
        try socket.set(ZMQ_LINGER, 2000)
        try socket.connect(endpoint)
    }

    /// Sends raw bytes, waiting up to five seconds for the connection to come up.
    func send(bytes: [UInt8], patience: Double = 5) throws {
        let deadline = Date().addingTimeInterval(patience)
        while Date() < deadline {
            if try socket.send([bytes]) { return }
            usleep(10_000)
        }
        throw TesseraError("could not send to the peer")
    }

    func send(_ message: Message, patience: Double = 5) throws { try send(bytes: Wire.encode(message), patience: patience) }

    /// Drops whatever is still queued when this peer goes: a refused peer's messages can
    /// never leave, and would hold its context open for the whole linger.
    func abandon() throws { try socket.set(ZMQ_LINGER, 0) }

    /// The next message within `timeout` seconds, decoded as arriving on `lane`, or nil.
    func receive(on lane: Lane, timeout: Double) throws -> Message? {
        var item = zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)
        guard zmq_poll(&item, 1, Int(timeout * 1000)) > 0, let frames = try socket.receive() else { return nil }
        return try Wire.decode(frames[frames.count - 1], on: lane)
    }

    /// Nonsense, an old protocol version and a cut-off message.
    func sendGarbage() throws {
        var oldVersion = Wire.encode(.ready)
        oldVersion[4] = UInt8(Wire.version - 1)
        let truncated = Array(Wire.encode(.hello(Hello(pid: 1, endpoint: "tcp://x:1", host: "x"))).dropLast(4))
        for bytes in [Array("hello there, these bytes are not a Tessera message".utf8), oldVersion, truncated] {
            try send(bytes: bytes)
        }
    }
}

/// A viewer without a terminal: attaches to a presenter, takes some frames, detaches.
enum ScriptedViewer {
    static func watch(_ endpoint: String, frames: Int, viewport: Viewport, commands: [ViewerCommand] = [],
                      curve: (serverKey: String, keys: CurveKeyPair)? = nil, patience: Double = 30) throws -> [Frame] {
        let peer = try StrangePeer(connectingTo: endpoint, curve: curve)
        for command in commands { try peer.send(.command(command)) }
        var received: [Frame] = []
        let deadline = Date().addingTimeInterval(patience)
        while received.count < frames && Date() < deadline {
            try peer.send(.view(viewport), patience: min(5, patience))
            guard case .frame(let frame)? = try? peer.receive(on: .toViewer, timeout: 1) else { continue }
            received.append(frame)
        }
        try peer.send(.detach)
        if received.isEmpty { try peer.abandon() }
        return received
    }
}
