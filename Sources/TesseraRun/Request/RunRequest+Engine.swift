import TesseraCluster
import TesseraCore

/// Which engine steps a run, decided from the request and the board alone (no
/// process, no socket), so that every rule of the choice has a test of its own.
extension RunRequest {
    /// What a request asks of a run besides its pattern, as far as it decides whether
    /// HashLife starts the run.
    package struct Asks: Sendable, Equatable {
        /// Viewers, frames, checkpoints or worker processes: what HashLife, in this
        /// process for the result alone, cannot give.
        package var beyondHashLife = false
        /// A worker count, tiles, halo depth, head start or hand-over (those ask for
        /// tiles), or a soup (chaotic from the start).
        package var tiles = false
        /// An output file every so many generations (`--every` with `--output` and no
        /// frames): HashLife writes them, throughout the run, or (`--workers 0`) the run
        /// in this process.
        package var filesEvery: UInt64?
        /// `--workers 0`: every tile in this process.
        package var inThisProcess = false
        /// `--step`: HashLife's step, as bgolly's `-i`, so HashLife throughout. Weighed
        /// against tiles from its first step, a step of thousands of generations has
        /// earned no budget yet, and nick-gotts-1 went to tiles (minutes, not 0.6 s).
        package var step = false
        /// Viewers or frames: HashLife asked for shows its run to them (`HashLifePlane`).
        package var shown = false
        /// Checkpoints or worker processes, which HashLife in this process never gives.
        package var elsewhere = false
    }

    package var asks: Asks {
        Asks(beyondHashLife: viewHere || viewListen != nil || recordsFrames || checkpoint != nil || (workers ?? 0) > 0,
             tiles: workers != nil || tiles != nil || halo != nil || soup != nil || handOverAt != nil || headStart != nil,
             filesEvery: recordsFrames || output == nil ? nil : every, inThisProcess: workers == 0, step: step != nil,
             shown: viewHere || viewListen != nil || recordsFrames, elsewhere: checkpoint != nil || (workers ?? 0) > 0)
    }

    /// How HashLife takes part in a run.
    package enum HashLifeStage: Sendable {
        /// HashLife is to start the run; `budgeted` (auto): it hands over to tiles once behind.
        case starts(budgeted: Bool)
        /// HashLife ran its share of the run, and tiles go on.
        case ran(RunOutcome.HashLifeShare)
        /// HashLife steps the whole run in this process as viewers or frames watch it.
        case shown
    }

    /// Whether HashLife starts a run of `setup`: asked for, or (auto) a pattern on the
    /// unbounded plane run for its result alone, with nothing asked that tiles give; and
    /// whether on a budget, handing over to tiles once behind.
    package func hashLifeStart(for setup: RunSetup) throws -> HashLifeStage? {
        let algorithm = self.algorithm ?? .auto
        let asks = self.asks
        guard try Self.startsWithHashLife(algorithm, setup, asks: asks) else { return nil }
        if asks.shown { return .shown }
        return .starts(budgeted: algorithm == .auto && asks.filesEvery == nil && !asks.step)
    }

    static func startsWithHashLife(_ algorithm: Algorithm, _ setup: RunSetup, asks: Asks) throws -> Bool {
        if let every = asks.filesEvery {
            // HashLife, or a run in this process, writes a run's files as it goes; workers do not yet.
            if asks.inThisProcess || setup.stepsWhole, !asks.beyondHashLife { return false }
            guard setup.isUnbounded, algorithm != .tiles, !asks.beyondHashLife, !asks.tiles, setup.rule.emulation != .alternating else {
                throw TesseraError("--every \(every) with --output writes a file every \(every) generations from HashLife on Golly's unbounded plane, or from a run in this process, for the result alone",
                                   fix: "add --workers 0, or leave out --every (--frames DIR --every N makes pictures)")
            }
            return true
        }
        switch algorithm {
        case .tiles:
            return false
        case .hashlife:
            if !setup.rule.isTwoStateMoore {
                throw TesseraError("HashLife runs two-state rules of the 3x3 neighbourhood, and \(setup.rule) is not one",
                                   fix: "leave out --algorithm hashlife")
            }
            if let edges = setup.shape.edges {
                throw TesseraError("HashLife runs the unbounded plane, and this is a \(edges.name) (\(setup.shape.gollySuffix))",
                                   fix: "leave out --algorithm hashlife")
            }
            guard setup.isUnbounded else {
                throw TesseraError("HashLife runs Golly's unbounded plane, and this board is bounded (\(setup.shape))",
                                   fix: "leave out --algorithm hashlife, or give a pattern whose rule has no :T/:P suffix and no --size")
            }
            if asks.elsewhere {
                throw TesseraError("HashLife runs in this process: no worker processes or checkpoints",
                                   fix: "leave out --algorithm hashlife, or --workers and --checkpoint")
            }
            return true
        case .auto:
            // Golly's HashLife refuses B0 without S8 (see `HashLife`); tiles run it.
            return setup.isUnbounded && !asks.beyondHashLife && !asks.tiles && setup.rule.emulation != .alternating
                && !setup.stepsWhole
        }
    }

    /// Where tiles step the rest of a run.
    package enum TileHome: Sendable, Equatable {
        case thisProcess
        case workers(Int)
    }

    /// Where tiles step `setup` (in this process, or on how many workers started here),
    /// and the setup they step. `usable`: the worker count when none is asked for.
    package func tileHome(for setup: RunSetup, usable: Int) throws -> (TileHome, RunSetup) {
        // Larger than Life, Generations, rule files and Golly's other grids have engines
        // of their own, in this process; on a torus or a plane, the families go to
        // workers when they are asked for.
        if setup.stepsWhole, let workers, workers != 0 {
            guard setup.rule.isTwoStateMoore else { return (.workers(workers), try setup.onTiles()) }
            throw TesseraError("a \(setup.shape) runs in this process, not on worker processes yet", fix: "give --workers 0, or leave out --workers")
        }
        if setup.stepsWhole || workers == 0 {
            try checkInThisProcess()
            if checkpoint != nil {
                throw setup.stepsWhole
                    ? TesseraError("--checkpoint needs worker processes, and \(setup.rule) runs in this process", fix: "leave out --checkpoint")
                    : TesseraError("--checkpoint needs worker processes, which write their tiles", fix: "give --workers 1 or more")
            }
            return (.thisProcess, setup)
        }
        // A default worker count gives way to this process's sparse map of tiles, which
        // holds only what lives, where the workers' dense tiles would not fit in memory
        // (a bounded grid 2^20 cells a side), and where frames of the unbounded plane
        // are recorded, which follow its live cells. Workers hold the unbounded plane as
        // shards of a sparse map (`RunSession.runsSharded`).
        if workers == nil, setup.runsSparse, checkpoint == nil,
           setup.isUnbounded ? recordsFrames : !setup.tilesFitInMemory {
            try checkInThisProcess()
            return (.thisProcess, setup)
        }
        // A default worker count shrinks to the number of tiles instead of failing.
        return (.workers(workers ?? min(usable, setup.tiling.columns * setup.tiling.rows)), setup)
    }

    func checkInThisProcess() throws {
        if keys != nil {
            throw TesseraError("--keys secures worker processes' connections, and --workers 0 has none", fix: "leave out --keys")
        }
    }
}
