import Testing
import TesseraCore
import TesseraWire

/// The in-memory network keeps ZeroMQ's promises that the cluster relies on: order on
/// a connection, a sender's identity, liveness stamps, and nothing after a pump stops.
@Suite struct MemoryNetworkTests {
    @Test func messagesArriveInOrderWithTheSendersIdentityAndAreAnsweredByIt() async throws {
        try await MessagePump.with(.coordinator(listen: "memory://order-*")) { coordinator in
            #expect(coordinator.boundEndpoint.hasPrefix("memory://order-"))
            try await MessagePump.with(.worker(coordinator: coordinator.boundEndpoint, listen: "memory://order-worker-*", advertise: "")) { worker in
                for index in 0..<100 { worker.send([UInt8(index)], to: .coordinator) }
                var heard: [UInt8] = [], from: PeerID = []
                for await incoming in coordinator.control {
                    heard.append(contentsOf: incoming.bytes)
                    from = incoming.from
                    if heard.count == 100 { break }
                }
                #expect(heard == (0..<100).map(UInt8.init))
                #expect(from.first == 0 && from.count == 5)
                #expect(coordinator.lastHeard(from: from) != nil)
                coordinator.send([7], to: .member(from))
                for await incoming in worker.control {
                    #expect(incoming.bytes == [7] && incoming.from == [])
                    break
                }
                #expect(worker.lastHeard() != nil)
                // A halo strip goes to a bound name, presenting the sender's identity.
                coordinator.send([9], to: .peer(endpoint: worker.boundEndpoint, presenting: [1, 2]))
                for await incoming in worker.inbox {
                    #expect(incoming.bytes == [9] && incoming.from == [1, 2])
                    break
                }
            }
        }
    }

    @Test func aNameBoundTwiceIsRefusedWithTheFix() async throws {
        try await MessagePump.with(.viewers(listen: "memory://twice")) { _ in
            let error = await #expect(throws: TesseraError.self) {
                try await MessagePump.with(.viewers(listen: "memory://twice")) { _ in }
            }
            #expect(error?.description.contains("memory://twice is bound already") == true)
        }
        // Free again once the first pump stopped.
        try await MessagePump.with(.viewers(listen: "memory://twice")) { _ in }
    }

    @Test func aStoppedPumpHearsNothingMoreAndItsStreamsEnd() async throws {
        try await MessagePump.with(.coordinator(listen: "memory://stopped-*")) { coordinator in
            var streams: (control: AsyncStream<MessagePump.Incoming>, identity: PeerID)? = nil
            try await MessagePump.with(.worker(coordinator: coordinator.boundEndpoint, listen: "memory://stopped-worker-*", advertise: "")) { worker in
                worker.send([1], to: .coordinator)
                for await incoming in coordinator.control {
                    streams = (worker.control, incoming.from)
                    break
                }
            }
            // Gone: what is sent to it is dropped, and its stream has ended.
            coordinator.send([2], to: .member(streams!.identity))
            var after = 0
            for await _ in streams!.control { after += 1 }
            #expect(after == 0)
        }
    }

    @Test func aMemoryNameIsAPeerEndpointOnTheWire() throws {
        try Endpoint.checkPeer("memory://worker-3")
        try Endpoint.checkPeer("tcp://127.0.0.1:7470")
        #expect(throws: TesseraError.self) { try Endpoint.checkPeer("memory://") }
        #expect(throws: TesseraError.self) { try Endpoint.checkPeer("memory://a\nb") }
        #expect(throws: TesseraError.self) { try Endpoint.checkPeer("ipc://x") }
    }
}
