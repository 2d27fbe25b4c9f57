import FoundationEssentials
import Glibc

/// ZeroMQ TCP endpoints, `tcp://HOST:PORT`.
package enum Endpoint {
    package static func split(_ endpoint: String) throws -> (host: String, port: String) {
        // It may come off the wire.
        let bad = TesseraError("bad endpoint '\(Format.shown(endpoint.utf8, upTo: 200))'", fix: "write tcp://HOST:PORT, e.g. tcp://127.0.0.1:7470")
        guard endpoint.hasPrefix("tcp://") else { throw bad }
        let rest = endpoint.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":") else { throw bad }
        let host = String(rest[..<colon]), port = String(rest[rest.index(after: colon)...])
        guard !host.isEmpty, port == "*" || UInt16(port) != nil else { throw bad }
        return (host, port)
    }

    /// Refuses what cannot name a peer: a `tcp://HOST:PORT`, or a `memory://` name (a
    /// worker in the same process, see `MemoryNetwork`).
    package static func checkPeer(_ endpoint: String) throws {
        if endpoint.hasPrefix("memory://") {
            let name = endpoint.utf8.dropFirst(9)
            guard !name.isEmpty, name.allSatisfy({ (33..<127).contains($0) }) else {
                throw TesseraError("bad endpoint: a memory:// name of printable characters", fix: "write memory://NAME, or tcp://HOST:PORT")
            }
            return
        }
        _ = try split(endpoint)
    }

    /// Whether `endpoint` listens on this machine only (127.0.0.0/8, ::1, localhost,
    /// ipc://, inproc://); a wildcard or any other address reaches the network.
    package static func isLoopback(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return true }
        guard let (host, _) = try? split(endpoint) else { return false }
        return host.hasPrefix("127.") || host == "localhost" || host == "[::1]" || host == "::1"
    }

    /// The local IPv4 address this machine would use to reach `endpoint`'s host: the
    /// address to advertise to peers, so they reach this worker on the same network.
    package static func localAddress(toward endpoint: String) throws -> String {
        let (host, port) = try split(endpoint)
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port == "*" ? "9" : port, &hints, &result) == 0, let info = result else {
            throw TesseraError("cannot resolve host '\(host)'", fix: "check the --coordinator address")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw TesseraError("cannot open a socket: \(Files.systemReason())") }
        defer { close(fd) }
        // A UDP connect sends nothing; it only picks the route and so the local address.
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            throw TesseraError("no route to \(host)", fix: "check the network, or give --advertise")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &local.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
        return String(cBuffer: text)
    }
}
