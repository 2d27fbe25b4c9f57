import ArgumentParser
import TesseraCore
import TesseraRun

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

    @Option(parsing: .unconditional, help: "HashLife's memory in MiB, as bgolly's -M (default: 256, as bgolly's): where it fills, HashLife drops the squares its pattern no longer reaches, and takes smaller steps where one needs more.")
    var memory: Int?

    @Option(parsing: .unconditional, help: "HashLife's step in generations, a power of two, as bgolly's -i, and HashLife throughout (default: growing from 1 to a 256th of the run, and tiles where they are faster; a rule file's, an eighth of the run): a pattern whose results repeat at large scales can run faster in larger steps.")
    var step: UInt64?

    @Flag(inversion: .prefixedNo,
          help: "Step the first generations of a pattern in this process while the workers start, and hand the cells to them once they are up: a short run ends before they are needed. Default: on unless --workers is given, so that a chosen worker count does every generation.")
    var headStart: Bool?

    /// Hands the cells to the workers at this generation: for tests of the hand-over.
    @Option(parsing: .unconditional, help: .hidden)
    var handOverAt: UInt64?

    /// Each worker stops itself (SIGSTOP) at the first tiles it is given: for tests that
    /// lose a worker while the board loads.
    @Flag(help: .hidden)
    var workersStopBeforeBuilding = false

    func validate() throws {
        try request.validate()
    }

    /// The request these flags make; a config file fills in what they leave out when run.
    var request: RunRequest {
        var request = RunRequest()
        board.apply(to: &request)
        cluster.apply(to: &request)
        run.apply(to: &request)
        checkpoints.apply(to: &request)
        security.apply(to: &request)
        request.viewHere = view
        (request.algorithm, request.memory, request.step) = (algorithm, memory, step)
        (request.headStart, request.handOverAt, request.workersStopBeforeBuilding) = (headStart, handOverAt, workersStopBeforeBuilding)
        return request
    }

    func run() async throws {
        var request = self.request
        if let config = board.config { try request.apply(configAt: config) }
        try await request.run().forEach { print($0) }
    }
}
