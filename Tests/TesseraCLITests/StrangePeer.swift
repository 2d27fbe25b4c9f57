import CZeroMQ
import Foundation
import TesseraWire

/// A raw ZeroMQ peer that speaks nonsense, an old protocol version and cut-off messages.
enum StrangePeer {
    static func send(to endpoint: String) throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, .dealer)
        try socket.connect(endpoint)
        var oldVersion = Wire.encode(.ready)
        oldVersion[4] = 7
        let truncated = Array(Wire.encode(.hello(Hello(pid: 1, endpoint: "tcp://x:1", host: "x"))).dropLast(4))
        for message in [Array("hello there, these bytes are not a Tessera message".utf8), oldVersion, truncated] {
            // The connection may still be coming up: DONTWAIT sends return false until then.
            var sent = false
            for _ in 0..<500 where !sent {
                sent = try socket.send([message])
                if !sent { usleep(10_000) }
            }
        }
        try socket.set(ZMQ_LINGER, 2000)
    }
}
