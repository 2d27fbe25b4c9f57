import Testing
import TesseraCore
import TesseraWire

/// What a process that connected says when libzmq reports its handshake failed.
@Suite struct HandshakeTests {
    // libzmq's values (zmq.h), spelt out so the test needs no C module.
    static let connected: Int32 = 0x0001, noDetail: Int32 = 0x0800, protocolError: Int32 = 0x2000
    static let mechanismMismatch: UInt32 = 0x1100_0002
    let peer = "coordinator tcp://10.0.0.1:7470"

    @Test func aKeylessProcessDroppedNamesBothCauses() throws {
        let event = HandshakeEvent(event: Self.noDetail, value: 0, endpoint: "tcp://10.0.0.1:7470")
        let error = try #require(event.refusal(by: peer, credentials: nil))
        let line = "\(error)"
        // A peer that wants keys, or no Tessera process at all (a proxy that accepts any
        // connection and closes it said "most likely it requires keys").
        #expect(line.contains("requires keys") && line.contains("no Tessera process") && line.contains("check the endpoint"), "\(line)")
        #expect(!line.contains("\n"))
    }

    @Test func aMechanismMismatchSaysKeysAreRequired() throws {
        let event = HandshakeEvent(event: Self.protocolError, value: Self.mechanismMismatch, endpoint: "tcp://10.0.0.1:7470")
        let line = "\(try #require(event.refusal(by: peer, credentials: nil)))"
        #expect(line.contains("refused this process at the handshake: it requires keys") && !line.contains("no Tessera process"), "\(line)")
    }

    @Test func aConnectionIsNoRefusal() {
        #expect(HandshakeEvent(event: Self.connected, value: 7, endpoint: "tcp://10.0.0.1:7470").refusal(by: peer, credentials: nil) == nil)
    }
}
