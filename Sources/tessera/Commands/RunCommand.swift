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

    @Flag(help: "Watch and steer the run in this terminal; quitting the viewer ends the run.")
    var view = false

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
        var (board, cluster, run) = (self.board, self.cluster, self.run)
        if let path = board.config {
            let config = try ConfigFile(
                path: path, allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys)
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            try check(cluster, run)
        }
        let chosen = cluster.workers ?? ProcessInfo.processInfo.activeProcessorCount
        let setup = try board.setup(defaultTiles: max(1, chosen))
        let output = try run.output.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
        let outcome: RunOutcome
        if chosen == 0 {
            outcome = try await InProcessRun.run(setup, generations: run.generationCount, output: output)
        } else {
            // A default worker count shrinks to the number of tiles instead of failing.
            let workers = cluster.workers == nil ? min(chosen, setup.tiling.columns * setup.tiling.rows) : chosen
            var session = RunSession(setup: setup, generations: run.generationCount, workers: .launched(count: workers))
            try session.configure(run: run, cluster: cluster, output: output, view: view)
            outcome = try await session.run()
        }
        Summary.lines(setup: setup, outcome: outcome, detailed: run.report).forEach { print($0) }
    }
}
