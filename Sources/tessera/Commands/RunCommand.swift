import ArgumentParser
import Foundation
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
        var headStart = self.headStart
        if let path = board.config {
            let config = try ConfigFile(
                path: path,
                allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys + CheckpointOptions.configKeys
                    + SecurityOptions.configKeys + ["head-start"])
            if headStart == nil, let text = config["head-start"] {
                guard let value = Bool(text) else {
                    throw TesseraError("\(path): 'head-start = \(text)' is neither true nor false", fix: "write head-start = true or false")
                }
                headStart = value
            }
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            try checkpoints.apply(config)
            try security.apply(config)
            try check(cluster, run)
        }
        let chosen = cluster.workers ?? ProcessInfo.processInfo.activeProcessorCount
        let (setup, generations) = try checkpoints.setup(board, generations: run.generations, defaultTiles: max(1, chosen))
        let output = try run.output.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
        let outcome: RunOutcome
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
        Summary.lines(setup: setup, outcome: outcome, detailed: run.report).forEach { print($0) }
    }
}
