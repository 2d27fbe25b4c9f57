import CZeroMQ
import Foundation
import TesseraTiles
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

/// A viewer without a terminal: attaches to a presenter, takes some frames, detaches.
enum ScriptedViewer {
    static func watch(_ endpoint: String, frames: Int, viewport: Viewport, commands: [ViewerCommand] = []) throws -> [Frame] {
        let context = ZMQContext()
        let socket = try ZMQSocket(context, .dealer)
        try socket.connect(endpoint)
        for command in commands {
            while try !socket.send([Wire.encode(.command(command))]) { usleep(10_000) }
        }
        var received: [Frame] = []
        let deadline = Date().addingTimeInterval(30)
        while received.count < frames && Date() < deadline {
            _ = try socket.send([Wire.encode(.view(viewport))])
            var item = zmq_pollitem_t(socket: socket.handle, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)
            guard zmq_poll(&item, 1, 1000) > 0, let message = try socket.receive(),
                  case .frame(let frame)? = try? Wire.decode(message[0]) else { continue }
            received.append(frame)
        }
        _ = try socket.send([Wire.encode(.view(Viewport(x: 0, y: 0, cellsPerDot: 1, width: 0, height: 0)))])
        return received
    }
}
