import TesseraCore
import TesseraPatterns

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

/// Where and how often a batch run writes checkpoints, and the generation it ends at
/// (the manifest records it, for `--resume`).
package struct CheckpointSchedule: Sendable, Equatable {
    package enum Interval: Sendable, Equatable {
        /// At every multiple of this many generations.
        case generations(UInt64)
        /// At the first stop this long after the last one (the run's start, first).
        case seconds(Double)
    }

    package let root: String
    package let interval: Interval
    package let end: UInt64
    /// Where the run started, which every manifest records: a resume checks it.
    package let origin: Checkpoint.Origin

    package init(root: String, interval: Interval, end: UInt64, origin: Checkpoint.Origin) {
        (self.root, self.interval, self.end, self.origin) = (root, interval, end, origin)
    }
}

extension CheckpointSchedule.Interval {
    /// `count` generations from `generation`, cut at the next multiple of an interval
    /// in generations, where a checkpoint falls.
    package func cut(_ count: UInt64, at generation: UInt64) -> UInt64 {
        guard case .generations(let every) = self else { return count }
        return min(count, every - generation % every)
    }

    /// Whether a checkpoint is due at `generation`, `elapsed` after the last one (or
    /// the run's start).
    package func isDue(at generation: UInt64, elapsed: Duration) -> Bool {
        switch self {
        case .generations(let every): generation % every == 0
        case .seconds(let seconds): elapsed.seconds >= seconds
        }
    }
}
