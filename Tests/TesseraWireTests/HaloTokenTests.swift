import Testing
@testable import TesseraWire

/// The run's halo token: whom a worker's halo port takes messages from.
@Suite struct HaloTokenTests {
    static let token = HaloToken(high: 0x0123_4567_89AB_CDEF, low: 0x0000_0000_0000_0001)

    @Test func anIdentityWithTheTokenNamesItsEndpoint() {
        let identity = Self.token.identity(of: "tcp://10.0.0.2:41234")
        #expect(identity.count == 32 + "tcp://10.0.0.2:41234".utf8.count)
        #expect(identity.first != 0, "ZeroMQ keeps identities that start with a zero byte for its own")
        #expect(Self.token.endpoint(presenting: identity) == "tcp://10.0.0.2:41234")
    }

    /// Before: a worker's halo port took any peer whose identity was a worker's endpoint.
    @Test func anIdentityWithoutTheTokenIsNobodys() {
        let other = HaloToken(high: 0x0123_4567_89AB_CDEF, low: 0x0000_0000_0000_0002)
        for identity: [UInt8] in [
            Array("tcp://10.0.0.2:41234".utf8),               // the endpoint alone: what a stranger could claim
            other.identity(of: "tcp://10.0.0.2:41234"),        // another run's token, one bit apart
            Array(Self.token.identity(of: "x").dropLast()),    // the token and nothing after it
            [0, 0x6B, 0x8B, 0x45, 0x67],                       // one ZeroMQ made up
            [],
        ] {
            #expect(Self.token.endpoint(presenting: identity) == nil, "\(identity)")
        }
    }

    @Test func tokensAreFreshAndFitAnyEndpointThatFitsZeroMQ() {
        #expect(HaloToken.random() != HaloToken.random())
        let longest = "tcp://" + String(repeating: "h", count: HaloToken.longestEndpoint - "tcp://:65535".count) + ":65535"
        #expect(Self.token.identity(of: longest).count == 255)
    }
}
