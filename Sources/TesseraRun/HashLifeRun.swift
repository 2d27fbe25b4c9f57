import Foundation
import TesseraCluster
import TesseraCore
import TesseraHashLife
import TesseraPatterns

/// How a run steps a pattern on the unbounded plane.
package enum Algorithm: String, Sendable, CaseIterable {
    /// Tiles of cells (`TileEngine`), here and on workers: fastest where a pattern stays chaotic.
    case tiles
    /// HashLife in this process (`HashLife`): fastest where a pattern repeats, as guns do.
    case hashlife
    /// HashLife while it keeps ahead of what tiles would cost, then tiles (`HashLifeRun`).
    case auto
}

/// A run on Golly's unbounded plane by HashLife, in this process.
///
/// Which engine wins depends on the pattern, and cannot be told from its first cells:
/// a Gosper gun's 100000 generations take HashLife a millisecond and tiles seconds,
/// acorn's 5206 take HashLife longer than tiles. So an `auto` run starts with HashLife
/// and weighs, step by step, the squares it makes against what tiles would have spent
/// on the same generations (the live cells each generation); once HashLife falls
/// behind, tiles take the pattern on from the last step it finished. The steps go
/// smallest first, so little is lost before that is known.
package enum HashLifeRun {
    /// Where a run by HashLife ended.
    package enum Ending: Sendable {
        case finished(RunOutcome)
        /// Tiles go on from `setup`, at the generation HashLife reached.
        case handedOver(RunSetup, RunOutcome.HashLifeShare)
    }

    /// What one square costs HashLife, in live cells stepped for one generation by tiles,
    /// with room to spare in tiles' favour: about 80 ns a square (acorn, 111667 squares
    /// in 9 ms) against about 2.7 ns a cell-generation (acorn by tiles: 7 ms), halved.
    static let cellGenerationsPerSquare = 60.0
    /// Squares HashLife may make before its steps have paid for any (a third of a
    /// millisecond): what a gun's first steps need, and all a methuselah wastes.
    static let allowance = 1 << 12

    /// The squares HashLife may keep: a quarter of this machine's memory, 40 bytes a square
    /// with its hash bucket.
    static var nodeLimit: Int {
        min(Int(ProcessInfo.processInfo.physicalMemory / 4 / 40), Int(UInt32.max - 1))
    }

    /// Runs `generations` of `setup` (a pattern on the unbounded plane), writes `output`
    /// if asked, and says what it did; `budgeted` (auto): hands the rest of the run to
    /// tiles once HashLife falls behind them. A stopping signal ends it, with nothing written.
    package static func run(_ setup: RunSetup, generations: UInt64, output: BoardOutput?, budgeted: Bool) async throws -> Ending {
        _ = try setup.end(after: generations)
        return try await Interrupted.unlessSignalled(output: output?.path) {
            var life = try HashLife(parts: setup.startingParts, rule: setup.rule, generation: setup.generation, nodeLimit: nodeLimit)
            let clock = ContinuousClock(), start = clock.now
            let madeBefore = life.squaresMade
            var cellGenerations = 0.0, done: UInt64 = 0
            for power in 0..<64 where generations >> UInt64(power) & 1 == 1 {
                try Task.checkCancellation()
                let span = Double(UInt64(1) << UInt64(power)), live = Double(life.population)
                let budget = budgeted ? madeBefore + allowance + Int(min((cellGenerations + live * span) / cellGenerationsPerSquare, 1e15)) : .max
                do {
                    try life.step(power: power, madeAtMost: budget)
                } catch is HashLife.OverBudget {
                    let share = RunOutcome.HashLifeShare(generations: done, seconds: (clock.now - start).seconds,
                                                         squares: life.nodeCount, handedOver: true)
                    let rest = try setup.regrouped(parts: life.placedCells, generation: life.generation, tileCount: setup.tiling.tiles.count)
                    return .handedOver(rest, share)
                } catch is HashLife.OutOfNodes {
                    throw TesseraError("HashLife needs more than a quarter of this machine's memory for this pattern (\(nodeLimit) squares)",
                                       fix: "run it with --algorithm tiles")
                }
                // The live cells tiles would have stepped: as if they grew evenly over the step.
                cellGenerations += (live + Double(life.population)) / 2 * span
                done += UInt64(1) << UInt64(power)
            }
            let seconds = (clock.now - start).seconds
            if let output { try write(life.placedCells, to: output, rule: setup.rule, generation: life.generation) }
            let outcome = RunOutcome(seconds: 0, population: Int(clamping: life.population), workers: [], generations: 0)
            return .finished(outcome.after(RunOutcome.HashLifeShare(generations: generations, seconds: seconds,
                                                                    squares: life.nodeCount, handedOver: false)))
        }
    }

    /// Writes the live cells as a window of the unbounded plane writes them: one grid
    /// placed where it lies; squares far apart as an atlas's groups are.
    private static func write(_ parts: [PlacedCells], to output: BoardOutput, rule: Rule, generation: UInt64) throws {
        guard parts.count == 1, let part = parts.first else {
            return try output.write(parts: parts, rule: rule, generation: generation)
        }
        let shape = BoardShape(width: part.cells.width, height: part.cells.height, topology: .infinite, left: part.left, top: part.top)
        try output.placed(on: shape).write(part.cells, generation: generation)
    }
}
