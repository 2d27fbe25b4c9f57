import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns

/// Every tile as an actor in this process: no worker processes, no sockets.
package enum InProcessRun {
    /// Runs `generations` of `setup`, writes `output` if asked, and says what it did.
    /// A stopping signal ends it, with nothing written, as `Interrupted`.
    package static func run(_ setup: RunSetup, generations: UInt64, output: BoardOutput?) async throws -> RunOutcome {
        _ = try setup.end(after: generations)
        return try await Interrupted.unlessSignalled(output: output?.path) {
            if setup.isUnbounded { return try await runUnbounded(setup, generations: generations, output: output) }
            let board = try await LocalBoard(setup)
            let clock = ContinuousClock()
            let start = clock.now
            try await board.advance(generations)
            let seconds = (clock.now - start).seconds
            try await output?.write(generation: setup.generation + generations, live: try await board.liveBounds()) {
                try await board.cells(in: $0)
            }
            return RunOutcome(seconds: seconds, population: try await board.population(), workers: [],
                              generations: generations)
        }
    }

    private static func runUnbounded(_ setup: RunSetup, generations: UInt64, output: BoardOutput?) async throws -> RunOutcome {
        let plane = try LocalPlane(setup)
        let clock = ContinuousClock()
        let start = clock.now
        try await plane.advance(generations)
        let seconds = (clock.now - start).seconds
        if let output { try await plane.write(output) }
        return RunOutcome(seconds: seconds, population: await plane.population, workers: [], generations: generations)
    }
}
