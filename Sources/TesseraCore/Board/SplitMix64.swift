/// SplitMix64 (Steele, Lea and Flood): a seeded generator, so a soup, a workload or a
/// failing random test comes out the same every time.
package struct SplitMix64: RandomNumberGenerator {
    package var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.finalise(state)
    }

    /// The finaliser alone: a fast, well-mixed hash of one word.
    @inline(__always)
    package static func finalise(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ z >> 30) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ z >> 27) &* 0x94D0_49BB_1331_11EB
        return z ^ z >> 31
    }
}
