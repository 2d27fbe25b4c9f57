import ArgumentParser
import TesseraCluster
import TesseraRun

/// Checkpoints to resume from: where to write them, how often, and where to resume.
struct CheckpointOptions: ParsableArguments {
    @Option(help: "Write a checkpoint into this folder every --checkpoint-every generations (the last two are kept).")
    var checkpoint: String?

    @Option(help: "Generations between checkpoints, or a wall time such as 90s, 10m or 1h (default 10000 generations).",
            transform: parsing(CheckpointSchedule.Interval.init(parsing:)))
    var checkpointEvery: CheckpointSchedule.Interval?

    @Option(help: "Resume from the newest complete checkpoint in this folder; with none there yet, start afresh. A pattern given too (a requeued job's same command) fixes where the run ends.")
    var resume: String?

    /// These flags in `request`.
    func apply(to request: inout RunRequest) {
        (request.checkpoint, request.checkpointEvery, request.resume) = (checkpoint, checkpointEvery, resume)
    }
}
