import ArgumentParser
import TesseraCluster
import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraRun
import TesseraViewer

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Runs a pattern or soup on a local cluster of worker processes and prints a summary.")

    @OptionGroup var board: BoardOptions
    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var run: RunOptions
    @OptionGroup var checkpoints: CheckpointOptions
    @OptionGroup var security: SecurityOptions

    @Flag(help: "Watch and steer the run in this terminal; quitting the viewer ends the run.")
    var view = false

    @Option(help: "How to step a pattern on the unbounded plane: tiles (fastest where it stays chaotic), hashlife (in this process; fastest where it repeats, as a gun does), or auto: HashLife while it keeps ahead, then tiles (default).")
    var algorithm: Algorithm?

    @Flag(inversion: .prefixedNo,
          help: "Step the first generations of a pattern in this process while the workers start, and hand the cells to them once they are up: a short run ends before they are needed. Default: on unless --workers is given, so that a chosen worker count does every generation.")
    var headStart: Bool?

    /// Hands the cells to the workers at this generation: for tests of the hand-over.
    @Option(parsing: .unconditional, help: .hidden)
    var handOverAt: UInt64?

    func validate() throws {
        if view && !Terminal.isInteractive {
            throw TesseraError("--view needs a terminal", fix: "run it in a terminal, or use --view-listen and 'tessera view'")
        }
        try check(cluster, run)
    }

    /// What holds for flags and config alike.
    private func check(_ cluster: ClusterOptions, _ run: RunOptions) throws {
        if cluster.workers == 0 && (view || run.viewListen != nil || run.recordsFrames) {
            throw TesseraError("viewing and exporting frames need worker processes", fix: "give --workers 1 or more")
        }
    }

    func run() async throws {
        var (board, cluster, run, checkpoints, security) = (self.board, self.cluster, self.run, self.checkpoints, self.security)
        var (headStart, algorithm) = (self.headStart, self.algorithm ?? .auto)
        if let path = board.config {
            let config = try ConfigFile(
                path: path,
                allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys + CheckpointOptions.configKeys
                    + SecurityOptions.configKeys + ["head-start", "algorithm"])
            headStart = try headStart ?? config.value("head-start", Bool.init, problem: "is neither true nor false",
                                                      fix: "write head-start = true or false")
            algorithm = try self.algorithm ?? config.value("algorithm", Algorithm.init(rawValue:), problem: "is not an algorithm",
                                                           fix: "write algorithm = \"tiles\", \"hashlife\" or \"auto\"") ?? .auto
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            try checkpoints.apply(config)
            try security.apply(config)
            try check(cluster, run)
        }
        let chosen = cluster.workers ?? CPUAffinity.usableCount
        var (setup, generations) = try checkpoints.setup(board, generations: run.generations, defaultTiles: max(1, chosen))
        let output = try run.output.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
        var hashLife: RunOutcome.HashLifeShare? = nil
        if try usesHashLife(algorithm, setup, board: board, cluster: cluster, run: run, checkpoints: checkpoints, headStart: headStart) {
            switch try await HashLifeRun.run(setup, generations: generations, output: output, budgeted: algorithm == .auto) {
            case .finished(let outcome):
                Summary.lines(setup: setup, outcome: outcome, detailed: run.report).forEach { print($0) }
                return
            case .handedOver(let rest, let share):
                (setup, generations, hashLife) = (rest, generations - share.generations, share)
            }
        }
        var outcome: RunOutcome
        if chosen == 0 {
            if security.keys != nil {
                throw TesseraError("--keys secures worker processes' connections, and --workers 0 has none", fix: "leave out --keys")
            }
            if checkpoints.checkpoint != nil {
                throw TesseraError("--checkpoint needs worker processes, which write their tiles", fix: "give --workers 1 or more")
            }
            outcome = try await InProcessRun.run(setup, generations: generations, output: output)
        } else {
            // A default worker count shrinks to the number of tiles instead of failing.
            let workers = cluster.workers == nil ? min(chosen, setup.tiling.columns * setup.tiling.rows) : chosen
            var session = RunSession(setup: setup, generations: generations, workers: .launched(count: workers))
            try session.configure(run: run, cluster: cluster, output: output, view: view)
            session.checkpointing = try checkpoints.schedule(for: setup, generations: generations)
            session.credentials = try security.memberCredentials()
            session.headStart = headStart ?? (cluster.workers == nil || handOverAt != nil)
            session.handOverAt = handOverAt
            security.warnIfOpen([run.viewListen], role: "run", exposes: "can watch and steer the run and edit its cells")
            outcome = try await session.run()
        }
        if let hashLife { outcome = outcome.after(hashLife) }
        Summary.lines(setup: setup, outcome: outcome, detailed: run.report).forEach { print($0) }
    }

    /// Whether the run starts with HashLife: asked for, or (auto) a pattern on the
    /// unbounded plane run for its result alone, with no worker count, tiles, halo or
    /// head start chosen (those ask for tiles) and no soup (chaotic from the start).
    private func usesHashLife(_ algorithm: Algorithm, _ setup: RunSetup, board: BoardOptions, cluster: ClusterOptions, run: RunOptions,
                              checkpoints: CheckpointOptions, headStart: Bool?) throws -> Bool {
        let watched = view || run.viewListen != nil || run.recordsFrames
        switch algorithm {
        case .tiles:
            return false
        case .hashlife:
            guard setup.isUnbounded else {
                throw TesseraError("HashLife runs Golly's unbounded plane, and this board is bounded (\(setup.shape))",
                                   fix: "leave out --algorithm hashlife, or give a pattern whose rule has no :T/:P suffix and no --size")
            }
            if watched || checkpoints.checkpoint != nil || (cluster.workers ?? 0) > 0 {
                throw TesseraError("HashLife runs in this process for the result alone: no workers, viewers, frames or checkpoints",
                                   fix: "leave out --algorithm hashlife, or --workers, --view, --view-listen, --frames, --gif and --checkpoint")
            }
            return true
        case .auto:
            return setup.isUnbounded && !watched && checkpoints.checkpoint == nil && cluster.workers == nil
                && board.tiles == nil && board.halo == nil && board.soup == nil && handOverAt == nil && headStart == nil
        }
    }
}
