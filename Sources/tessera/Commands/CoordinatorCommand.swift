import ArgumentParser
import TesseraCore
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
        try request.validate()
    }

    /// The request these flags make; a config file fills in what they leave out when run.
    var request: RunRequest {
        var request = RunRequest(cluster: .awaited(listen: listen, externalPresenter: externalPresenter))
        board.apply(to: &request)
        cluster.apply(to: &request)
        run.apply(to: &request)
        checkpoints.apply(to: &request)
        security.apply(to: &request)
        return request
    }

    func run() async throws {
        var request = self.request
        if let config = board.config { try request.apply(configAt: config) }
        try await request.run().forEach { print($0) }
    }
}
