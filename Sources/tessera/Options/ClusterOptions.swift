import ArgumentParser
import TesseraCluster
import TesseraCore

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

    /// Runs survive lost workers unless told not to: no human action needed.
    static let defaultRestarts = 3

    @Flag(help: "Keep every tile on the worker it was dealt to (by default, with more tiles than workers, tiles move to even the load).")
    var noBalance = false

    /// Moves random tiles every few rounds: for tests that moving never changes the board.
    @Option(parsing: .unconditional, help: .hidden)
    var randomMoves: UInt64?

    static let configKeys = ["workers", "connect-timeout", "silence", "no-balance", "max-restarts"]

    var balancing: Balancing {
        if let randomMoves { return .random(seed: randomMoves) }
        return noBalance ? .off : .standard
    }

    func validate() throws {
        if let workers, workers < 0 { throw TesseraError("--workers \(workers) is negative", fix: "give 0 (in process) or more") }
        if let maxRestarts, maxRestarts < 0 { throw TesseraError("--max-restarts \(maxRestarts) is negative", fix: "give 0 or more") }
    }

    /// Refuses a worker count that cannot work: more than a run has, or, for workers
    /// started on this machine (`local`), more than it runs (`WorkerCount`).
    func checkWorkerCount(local: Bool) throws {
        guard let workers else { return }
        if local { try WorkerCount.checkLocal(workers) } else { try WorkerCount.check(workers) }
    }

    mutating func apply(_ config: ConfigFile) throws {
        workers = try workers ?? config.number("workers", as: Int.self)
        connectTimeout = try connectTimeout ?? config["connect-timeout"].map { try Seconds(parsing: $0, flag: "connect-timeout") }
        silence = try silence ?? config["silence"].map { try Seconds(parsing: $0, flag: "silence") }
        noBalance = noBalance || config["no-balance"] == "true"
        maxRestarts = try maxRestarts ?? config.number("max-restarts", as: Int.self)
        try validate()
    }
}
