import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns

/// A run with no worker processes and no sockets: a sparse map of tiles where the run
/// is one (`RunSetup.runsSparse`), else a bounded board's tiles as actors here.
package enum InProcessRun {
    /// Runs `generations` of `setup`, writes `output` if asked (at the end, or every
    /// `writeEvery` generations and at the end, each file numbered by its generation),
    /// and says what it did. A stopping signal ends it, with nothing more written, as
    /// `Interrupted`.
    package static func run(_ setup: RunSetup, generations: UInt64, output: BoardOutput?,
                            writeEvery: UInt64? = nil) async throws -> RunOutcome {
        _ = try setup.end(after: generations)
        return try await Interrupted.unlessSignalled(output: output?.path) {
            let local = try await universe(of: setup)
            let clock = ContinuousClock()
            let files = writeEvery.map(NumberedFiles.init)
            var seconds = 0.0, done: UInt64 = 0
            repeat {
                let stretch = files?.stretch(from: done, of: generations) ?? generations
                let start = clock.now
                try await local.advance(stretch)
                seconds += (clock.now - start).seconds
                done += stretch
                if let files, let output, files.isDue(after: done, of: generations) {
                    try await local.write(output.numbered(await local.generation))
                }
            } while done < generations
            if let output, files == nil { try await local.write(output) }
            return try await outcome(of: local, seconds: seconds, generations: generations)
        }
    }

    static func universe(of setup: RunSetup) async throws -> any LocalUniverse {
        if let ltl = setup.rule.largerThanLife {
            return ltl.states > 2 ? try WholeBoard.largerThanLifeWithHistory(setup) : try WholeBoard.largerThanLife(setup)
        }
        if setup.rule.generations != nil { return try WholeBoard.generations(setup) }
        if setup.shape.edges != nil, setup.rule.isTwoStateMoore, setup.rule.emulation == .none {
            return try WholeBoard.twoStateJoined(setup)
        }
        if setup.rule.tree != nil || setup.shape.edges != nil { return try WholeBoard.ruleTree(setup) }
        return setup.runsSparse ? try LocalPlane(setup) : try await LocalBoard(setup)
    }

    static func outcome(of local: any LocalUniverse, seconds: Double, generations: UInt64) async throws -> RunOutcome {
        let population = try await local.countPopulation()
        if let life = local as? HashLifePlane {
            let (squares, collections) = await life.squares
            return RunOutcome(seconds: 0, population: population, workers: [], generations: 0)
                .after(RunOutcome.HashLifeShare(generations: generations, seconds: seconds, squares: squares, handedOver: false,
                                                collections: collections))
        }
        var outcome = RunOutcome(seconds: seconds, population: population, workers: [], generations: generations)
        if let plane = local as? LocalPlane { outcome.sparseTiles = await plane.tileCount }
        return outcome
    }
}
