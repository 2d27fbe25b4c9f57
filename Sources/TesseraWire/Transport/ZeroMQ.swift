import CZeroMQ
import FoundationEssentials
import TesseraCore

#if !os(Linux)
#error("Tessera's cluster runs on Linux only: its message pump wakes through an eventfd")
#endif

/// A libzmq context. libzmq documents contexts as thread-safe, which is why this class
/// is `@unchecked Sendable`; sockets made from it are not, and stay on their thread.
package final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    package init() {
        handle = zmq_ctx_new()
    }

    /// Runs after every socket has closed, because each socket holds its context.
    deinit { zmq_ctx_term(handle) }
}

/// One libzmq socket. `~Copyable` and not `Sendable`: it is created, used and closed
/// by one thread. It holds its context so `zmq_ctx_term` never waits on a live socket.
package struct ZMQSocket: ~Copyable {
    package enum Kind {
        case router, dealer
        /// The ZAP handler's socket.
        case reply
        /// The reading end of a socket monitor.
        case pair

        var raw: Int32 {
            switch self {
            case .router: ZMQ_ROUTER
            case .dealer: ZMQ_DEALER
            case .reply: ZMQ_REP
            case .pair: ZMQ_PAIR
            }
        }
    }

    /// The libzmq socket, for `zmq_poll`.
    package let handle: UnsafeMutableRawPointer
    private let context: ZMQContext

    package init(_ context: ZMQContext, _ kind: Kind) throws {
        guard let handle = zmq_socket(context.handle, kind.raw) else { throw ZMQError.last("zmq_socket") }
        // Never block process exit on unsent messages: a peer that is gone stays gone.
        var linger: Int32 = 0
        zmq_setsockopt(handle, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        self.handle = handle
        self.context = context
    }

    deinit { zmq_close(handle) }

    package func set(_ option: Int32, _ value: Int32) throws {
        var v = value
        guard zmq_setsockopt(handle, option, &v, MemoryLayout<Int32>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt")
        }
    }

    /// For the options libzmq takes as 64-bit (ZMQ_MAXMSGSIZE).
    package func set(_ option: Int32, int64 value: Int64) throws {
        var v = value
        guard zmq_setsockopt(handle, option, &v, MemoryLayout<Int64>.size) == 0 else {
            throw ZMQError.last("zmq_setsockopt")
        }
    }

    package func set(_ option: Int32, bytes: [UInt8]) throws {
        guard bytes.withUnsafeBytes({ zmq_setsockopt(handle, option, $0.baseAddress, $0.count) }) == 0 else {
            throw ZMQError.last("zmq_setsockopt")
        }
    }

    /// Makes this socket a CURVE server (it will listen) whose peers the ZAP handler
    /// checks against the allowlist for `standing`.
    package func listenSecurely(_ credentials: Credentials, admitting standing: Standing) throws {
        try set(ZMQ_ZAP_DOMAIN, bytes: Array(Gatekeeper.domain(for: standing).utf8))
        try set(ZMQ_CURVE_SERVER, 1)
        try set(ZMQ_CURVE_SECRETKEY, bytes: Array(credentials.keys.secretKey.utf8))
    }

    /// Makes this socket a CURVE client (it will connect) of the cluster's listening sockets.
    package func connectSecurely(_ credentials: Credentials) throws {
        try set(ZMQ_CURVE_SERVERKEY, bytes: Array(credentials.clusterKey.utf8))
        try set(ZMQ_CURVE_PUBLICKEY, bytes: Array(credentials.keys.publicKey.utf8))
        try set(ZMQ_CURVE_SECRETKEY, bytes: Array(credentials.keys.secretKey.utf8))
    }

    /// Reports this socket's handshakes (`HandshakeEvent.watched`) to `reader`, a PAIR
    /// socket of the same context. Call before bind or connect, so none is missed.
    package func monitor(as name: String, into reader: borrowing ZMQSocket) throws {
        let endpoint = "inproc://tessera.monitor.\(name)"
        guard zmq_socket_monitor(handle, endpoint, HandshakeEvent.watched) == 0 else { throw ZMQError.last("zmq_socket_monitor") }
        try reader.connect(endpoint)
    }

    /// Binds `endpoint`; the common failures get a fix in their one line.
    package func bind(_ endpoint: String) throws {
        guard zmq_bind(handle, endpoint) != 0 else { return }
        let problem = "cannot listen on \(endpoint): \(String(cString: zmq_strerror(zmq_errno())))"
        switch zmq_errno() {
        case EADDRINUSE:
            throw TesseraError(problem, fix: "another process holds that port: stop it, or choose another port (or * for any free one)")
        case EADDRNOTAVAIL:
            throw TesseraError(problem, fix: "that address is not one of this machine's: give one of its addresses, or 0.0.0.0")
        default:
            throw TesseraError(problem, fix: "write tcp://ADDRESS:PORT with an address of this machine")
        }
    }

    package func connect(_ endpoint: String) throws {
        guard zmq_connect(handle, endpoint) == 0 else { throw ZMQError.last("cannot connect to \(endpoint)") }
    }

    /// The endpoint actually bound (resolves a `*` port).
    package var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(cBuffer: buffer)
    }

    /// Sends the frames of one message without blocking; returns false if it would block.
    @discardableResult
    package func send(_ frames: [[UInt8]]) throws -> Bool {
        for (i, frame) in frames.enumerated() {
            let flags = ZMQ_DONTWAIT | (i < frames.count - 1 ? ZMQ_SNDMORE : 0)
            let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
            if rc < 0 {
                if zmq_errno() == EAGAIN { return false }
                throw ZMQError.last("zmq_send")
            }
        }
        return true
    }

    /// Receives one whole message without blocking, or nil when none is waiting.
    package func receive() throws -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        while true {
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            if zmq_msg_recv(&message, handle, frames.isEmpty ? ZMQ_DONTWAIT : 0) < 0 {
                if zmq_errno() == EAGAIN && frames.isEmpty { return nil }
                if zmq_errno() == EINTR { continue }
                throw ZMQError.last("zmq_msg_recv")
            }
            let size = zmq_msg_size(&message)
            frames.append(Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: size)))
            if zmq_msg_more(&message) == 0 { return frames }
        }
    }
}

package struct ZMQError: Error, CustomStringConvertible {
    package let description: String

    static func last(_ what: String) -> ZMQError {
        ZMQError(description: "\(what): \(String(cString: zmq_strerror(zmq_errno())))")
    }
}
