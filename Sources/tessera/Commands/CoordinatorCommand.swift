import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraPatterns
import TesseraRun

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Waits for workers started anywhere ('tessera worker --coordinator …'), then runs on them.")

    @OptionGroup var board: BoardOptions
    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var run: RunOptions
    @OptionGroup var checkpoints: CheckpointOptions
    @OptionGroup var security: SecurityOptions

    @Option(help: "Where workers connect: tcp://ADDRESS:PORT (default tcp://127.0.0.1:7470, this machine only).")
    var listen: String?

    @Flag(help: "Let a 'tessera presenter' process, connecting to --listen, drive the run and serve its viewers.")
    var externalPresenter = false

    func validate() throws {
        try check(cluster, listen)
    }

    private func check(_ cluster: ClusterOptions, _ listen: String?) throws {
        if let workers = cluster.workers, workers < 1 {
            throw TesseraError("a coordinator needs --workers 1 or more", fix: "give --workers N for the N workers you start")
        }
        try cluster.checkWorkerCount(local: false)
        if let listen { _ = try Endpoint.split(listen) }
    }

    func run() async throws {
        var (board, cluster, run, listen, checkpoints, security) = (self.board, self.cluster, self.run, self.listen, self.checkpoints,
                                                                    self.security)
        if let path = board.config {
            let config = try ConfigFile(
                path: path,
                allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys
                    + CheckpointOptions.configKeys + SecurityOptions.configKeys + ["listen"])
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            try checkpoints.apply(config)
            try security.apply(config)
            listen = listen ?? config["listen"]
            try check(cluster, listen)
        }
        let workers = cluster.workers ?? 1
        let (setup, generations, origin) = try checkpoints.setup(board, generations: run.generations, defaultTiles: workers)
        let output = try run.output.map { try BoardOutput(path: $0, shape: setup.shape, rule: setup.rule, name: setup.name) }
        var session = RunSession(setup: setup, generations: generations,
                                 workers: .awaited(count: workers, listen: listen ?? "tcp://127.0.0.1:7470"))
        try session.configure(run: run, cluster: cluster, output: output, externalPresenter: externalPresenter)
        session.checkpointing = try checkpoints.schedule(for: setup, generations: generations, origin: try origin ?? board.origin())
        session.credentials = try security.memberCredentials()
        security.warnIfOpen([listen], role: "coordinator", exposes: "can join as a worker and read or rewrite the board")
        security.warnIfOpen([run.viewListen], role: "coordinator", exposes: "can watch and steer the run and edit its cells")
        let outcome = try await session.run()
        Summary.lines(setup: setup, outcome: outcome, detailed: run.report).forEach { print($0) }
    }
}
