/// A random board that depends only on the seed, the density and each cell's Golly
/// coordinates, so every tiling, worker or machine generates the same cells for its part.
public struct Soup: Hashable, Sendable {
    public let density: Double
    public let seed: UInt64

    public init(density: Double, seed: UInt64) throws {
        guard density >= 0, density <= 1, density.isFinite else {
            throw TesseraError("soup density \(density) is out of range", fix: "give a density between 0 and 1")
        }
        self.density = density
        self.seed = seed
    }

    /// The cells of the `width`×`height` rectangle whose top-left has Golly coordinates (x, y).
    public func cells(x: Int, y: Int, width: Int, height: Int) -> BitGrid {
        let threshold = UInt64(density * 9_007_199_254_740_992)  // density · 2^53
        var words = [UInt64](repeating: 0, count: (width + 63) / 64 * height)
        let perRow = (width + 63) / 64
        for r in 0..<height {
            let rowKey = Self.mix(seed ^ UInt64(bitPattern: Int64(y + r)) &* 0x9E37_79B9_7F4A_7C15)
            for c in 0..<width {
                let key = Self.mix(rowKey ^ UInt64(bitPattern: Int64(x + c)))
                if key >> 11 < threshold { words[r * perRow + c >> 6] |= 1 << UInt64(c & 63) }
            }
        }
        return BitGrid(width: width, height: height, words: words)
    }

    /// One step of SplitMix64 from `value`: a fast, well-mixed hash of one word.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        SplitMix64.finalise(value &+ 0x9E37_79B9_7F4A_7C15)
    }
}
