import TesseraCore

/// A run's secret for its halo links: the coordinator draws it and gives it to each
/// worker with its assignment, over the connection the worker made to it, and every
/// halo connection a worker makes presents it in its routing identity.
///
/// Without it a worker's halo port could tell its peers only by the endpoint they
/// claim, which anyone who can reach the port may claim too: a stranger that connected
/// first with a worker's endpoint as its identity was fed into tiles, and ZeroMQ parked
/// the real worker's connection behind it. An identity that holds the token cannot be
/// claimed without it, so the real one is never parked, and a peer without it is refused
/// before anything it sends is read. With `--keys` CURVE already admits only members;
/// the token then adds nothing, and costs nothing.
package struct HaloToken: Sendable, Equatable {
    /// 128 bits from the system's random source.
    package let high: UInt64
    package let low: UInt64
    /// Its text, the start of every identity that presents it.
    private let hex: [UInt8]

    /// The longest halo endpoint an identity can name: ZeroMQ's 255 bytes, less the token.
    package static let longestEndpoint = 255 - 32

    package init(high: UInt64, low: UInt64) {
        (self.high, self.low) = (high, low)
        hex = Array(String(cFormat: "%016llx%016llx", high, low).utf8)
    }

    /// A fresh token: `SystemRandomNumberGenerator` reads getrandom(2), fit for secrets.
    package static func random() -> HaloToken {
        var source = SystemRandomNumberGenerator()
        return HaloToken(high: source.next(), low: source.next())
    }

    /// The routing identity a worker whose halo port is at `endpoint` presents on the
    /// connections it makes to other workers' halo ports.
    package func identity(of endpoint: String) -> PeerID {
        hex + Array(endpoint.utf8)
    }

    /// The endpoint of the worker that presented `identity`, or nil when the identity
    /// does not hold this token. Compares every byte whatever differs, so how long the
    /// refusal took says nothing about how much of the token was right.
    package func endpoint(presenting identity: PeerID) -> String? {
        guard identity.count > hex.count else { return nil }
        var differences: UInt8 = 0
        for index in hex.indices { differences |= hex[index] ^ identity[index] }
        guard differences == 0 else { return nil }
        return String(decoding: identity[hex.count...], as: UTF8.self)
    }
}

