import ArgumentParser
import TesseraCluster
import TesseraCore
import TesseraRun

/// How many workers, and how long to wait for them and to bear their silence.
struct ClusterOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Worker processes. Default for run: the number of cores; 0 runs every tile in this process.")
    var workers: Int?

    @Option(help: "Seconds to wait for workers to connect (default 30).",
            transform: parsing { try Seconds(parsing: $0, flag: "connect-timeout") })
    var connectTimeout: Seconds?

    @Option(help: "Seconds a worker may go without a heartbeat before the run fails (default 5).",
            transform: parsing { try Seconds(parsing: $0, flag: "silence") })
    var silence: Seconds?

    @Option(parsing: .unconditional, help: "Lost workers a run on a bounded board survives, rolling back to its last snapshot: in memory (taken every few seconds, a copy on another worker), else its last checkpoint, else its start (default 3; 0: a lost worker fails the run).")
    var maxRestarts: Int?

    @Flag(help: "Keep every tile on the worker it was dealt to (by default, with more tiles than workers, tiles move to even the load).")
    var noBalance = false

    /// Moves random tiles every few rounds: for tests that moving never changes the board.
    @Option(parsing: .unconditional, help: .hidden)
    var randomMoves: UInt64?

    /// These flags in `request`.
    func apply(to request: inout RunRequest) {
        (request.workers, request.connectTimeout, request.silence, request.maxRestarts) = (workers, connectTimeout, silence, maxRestarts)
        request.balancing = randomMoves.map { .random(seed: $0) } ?? (noBalance ? .off : .standard)
    }
}
