import TesseraCore

/// How a run keeps its workers' loads even by moving tiles between advances.
package enum Balancing: Sendable, Equatable {
    /// Tiles stay where they were dealt.
    case off
    /// After each stretch of about a quarter second, `GreedyRefine` moves tiles by the
    /// compute time each one took in it.
    case greedyRefine(GreedyRefine)
    /// One to three random tiles move after every round or few, from a seed: shows that
    /// moving never changes the board (tests, `--random-moves`).
    case random(seed: UInt64)

    package static let standard = Balancing.greedyRefine(GreedyRefine())
}

/// One rebalance: which tiles moved where at which generation, and each worker's load
/// (compute seconds in the stretch before) as measured and as the moves leave it.
package struct Rebalance: Sendable, Equatable {
    package struct Move: Sendable, Equatable {
        package let tile: TileID
        package let from: Int, to: Int
    }

    package let generation: UInt64
    package let moves: [Move]
    package let before: [Double]
    package let after: [Double]
    /// Wall time the hand-offs took, from asking for the tiles to every worker relinked.
    package let seconds: Double
}
