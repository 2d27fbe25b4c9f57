import CTesseraKernel

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

    /// The cells of the `width`×`height` rectangle whose top-left has Golly coordinates (x, y):
    /// a row's cells hashed from its key (`rowKey`) and their columns (`tessera_soup_row`).
    public func cells(x: Int, y: Int, width: Int, height: Int) -> BitGrid {
        let threshold = self.threshold
        let perRow = (width + 63) / 64
        let words = [UInt64](unsafeUninitializedCapacity: perRow * height) { buffer, count in
            // (No row has a word where the rectangle has no width, nor memory to write.)
            for r in 0..<(perRow > 0 ? height : 0) {
                tessera_soup_row(rowKey(y + r), Int64(x), width, threshold, buffer.baseAddress! + r * perRow)
            }
            count = perRow * height
        }
        return BitGrid(width: width, height: height, words: words)
    }

    /// Cells whose hash, in its top 53 bits, is below this are alive: density · 2^53.
    package var threshold: UInt64 { UInt64(density * 9_007_199_254_740_992) }

    /// The key of row `y`, which its cells' columns are hashed with.
    package func rowKey(_ y: Int) -> UInt64 {
        Self.mix(seed ^ UInt64(bitPattern: Int64(y)) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// Whether the cell at Golly coordinates (x, y) is alive, one cell alone.
    package func isAlive(x: Int, y: Int) -> Bool {
        Self.mix(rowKey(y) ^ UInt64(bitPattern: Int64(x))) >> 11 < threshold
    }

    /// One step of SplitMix64 from `value`: a fast, well-mixed hash of one word.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        SplitMix64.finalise(value &+ 0x9E37_79B9_7F4A_7C15)
    }
}
