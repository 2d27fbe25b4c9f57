import CZeroMQ
import FoundationEssentials
import Glibc
import TesseraCore

/// Answers libzmq's ZAP requests (RFC 27) for the sockets that listen: a CURVE peer
/// gets in if its public key is in the allowlist for the socket's domain.
///
/// libzmq asks only when a handler is bound at `inproc://zeromq.zap.01` in the socket's
/// context; with none, and no ZMQ_ZAP_ENFORCE_DOMAIN (a draft option Debian's libzmq
/// lacks), CURVE lets every key in. The message pump therefore binds this handler before
/// any socket listens, and a test proves that a stranger's key is refused.
package struct Gatekeeper: Sendable {
    package static let endpoint = "inproc://zeromq.zap.01"

    /// The domain of a socket for members (control, halos) and of a viewer port.
    package static func domain(for standing: Standing) -> String { standing == .member ? "members" : "viewers" }

    package let allowlist: String

    /// The reply frames for `request`, and a log line when someone is turned away.
    package func answer(_ request: [[UInt8]]) -> (reply: [[UInt8]], refusal: String?) {
        func reply(_ code: String, _ text: String) -> [[UInt8]] {
            [Array("1.0".utf8), request.count > 1 ? request[1] : [], Array(code.utf8), Array(text.utf8), [], []]
        }
        guard request.count >= 6, String(decoding: request[0], as: UTF8.self) == "1.0" else {
            return (reply("500", "bad ZAP request"), "refused a malformed ZAP request")
        }
        let domain = String(decoding: request[2], as: UTF8.self)
        let address = String(decoding: request[3], as: UTF8.self)
        let mechanism = String(decoding: request[5], as: UTF8.self)
        let standing: Standing = domain == Self.domain(for: .viewer) ? .viewer : .member
        guard mechanism == "CURVE", request.count >= 7, let key = CurveKey.z85(request[6]) else {
            return (reply("400", "CURVE key required"), "refused a peer at \(address): it offered no CURVE key")
        }
        let list: Allowlist
        do {
            list = try Allowlist.read(allowlist)
        } catch {
            // An allowlist broken while running shuts everyone out rather than letting everyone in.
            return (reply("500", "allowlist unreadable"), "refused a peer at \(address): \(error)")
        }
        guard list.admits(key, as: standing) else {
            let what = standing == .member ? "as a member" : "as a viewer or member"
            return (reply("400", "key not allowed"),
                    "refused a peer at \(address): its key \(CurveKey.short(key)) is not in \(allowlist) \(what)")
        }
        return (reply("200", "OK"), nil)
    }
}

/// One event from a libzmq socket monitor: which handshake went how.
package struct HandshakeEvent: Sendable, Equatable {
    package let event: Int32
    package let value: UInt32
    /// The endpoint of the socket it happened on (the local one, for a socket that listens).
    package let endpoint: String

    package static let watched = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
        | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_ACCEPTED

    /// A monitor message: a 6-byte frame (event, value; host byte order), then the endpoint.
    package init?(frames: [[UInt8]]) {
        guard frames.count == 2, frames[0].count == 6 else { return nil }
        event = Int32(UInt16(frames[0][0]) | UInt16(frames[0][1]) << 8)
        value = frames[0][2...5].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        endpoint = String(decoding: frames[1], as: UTF8.self)
    }

    package init(event: Int32, value: UInt32, endpoint: String) {
        (self.event, self.value, self.endpoint) = (event, value, endpoint)
    }

    package var failed: Bool {
        event & (ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0
    }

    /// Whether the two sides disagreed on keys at all: one has them and the other not.
    package var mechanismsDiffer: Bool {
        event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL && value == UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
    }

    /// What a process that connected to `peer` says when its handshake failed, or nil if
    /// this event is not a failure. `credentials` are its own, if it has keys.
    package func refusal(by peer: String, credentials: Credentials?) -> TesseraError? {
        guard failed else { return nil }
        guard let credentials else {
            if mechanismsDiffer {
                return TesseraError("\(peer) refused this process at the handshake: it requires keys, and this process has none",
                                    fix: "give --keys DIR with the cluster's key folder ('tessera keygen DIR' makes one)")
            }
            // A peer that wants keys and drops a keyless one looks the same as a server
            // that is no Tessera process at all (the wrong port, or a proxy that accepts
            // any connection and closes it): name both.
            return TesseraError("\(peer) broke off the handshake: it requires keys, which this process has none of, or it is no Tessera process",
                                fix: "give --keys DIR with the cluster's key folder ('tessera keygen DIR' makes one), or check the endpoint")
        }
        if event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH {
            return TesseraError("\(peer) refused this process's key from \(credentials.keyFile) (ZAP code \(value))",
                                fix: "use that cluster's key folder, or list this key in its allowed file")
        }
        if mechanismsDiffer {
            return TesseraError("\(peer) runs without keys, but this process has --keys", fix: "start both with --keys, or neither")
        }
        return TesseraError("\(peer) broke off the handshake: it holds another cluster's keys, or none",
                            fix: "give both the same key folder (compare their cluster.pub)")
    }
}

/// What a listening process says about handshakes that failed on its sockets. A refused
/// key was already named by the gatekeeper; a peer with no keys (or keys where this
/// process has none) never reaches it, so its address comes from the accepted
/// connection: libzmq's event names only the local endpoint.
package struct HandshakeLog {
    let keyed: Bool
    /// The address of the connection accepted last, from its descriptor while it is open.
    private var lastAccepted: String?
    /// When each refusal line was last logged: a refused peer retries every 100 ms, and
    /// one line a minute says as much as six hundred.
    private var said: [String: ContinuousClock.Instant] = [:]

    package init(keyed: Bool) { self.keyed = keyed }

    /// Takes one event; returns a log line for a refusal.
    package mutating func note(_ event: HandshakeEvent) -> String? {
        if event.event == ZMQ_EVENT_ACCEPTED {
            lastAccepted = Self.peerAddress(Int32(bitPattern: event.value))
            return nil
        }
        // Refused by key: the gatekeeper logged it with the peer's address.
        guard event.failed, event.event != ZMQ_EVENT_HANDSHAKE_FAILED_AUTH else { return nil }
        let peer = "refused a peer \(lastAccepted.map { "at \($0) " } ?? "")on \(event.endpoint)"
        if event.mechanismsDiffer {
            return keyed ? "\(peer): it has no keys, and this cluster admits only its own keys"
                         : "\(peer): it offered keys, but this process runs without --keys"
        }
        if event.event == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL && event.value == UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC) {
            return "\(peer): its handshake did not decrypt (it holds another cluster's cluster.pub)"
        }
        return keyed ? "\(peer): it broke off the handshake (it has no keys, or another cluster's)"
                     : "\(peer): it broke off the handshake (libzmq event \(event.event), code \(event.value))"
    }

    /// Logs `line` unless the same line went out in the last minute.
    package mutating func say(_ line: String, as role: String) {
        let now = ContinuousClock.now
        if let last = said[line], now - last < .seconds(60) { return }
        if said.count > 1000 { said.removeAll() }
        said[line] = now
        Wire.log(role, line)
    }

    private static func peerAddress(_ fd: Int32) -> String? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0, address.ss_family == sa_family_t(AF_INET) else { return nil }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                var raw = inet.pointee.sin_addr
                inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN))
                return String(cBuffer: text)
            }
        }
    }
}
