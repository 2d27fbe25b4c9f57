import ArgumentParser
import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns
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

    static let configKeys = ["checkpoint", "checkpoint-every", "resume"]

    func validate() throws {
        if checkpointEvery == .generations(0) || checkpointEvery == .seconds(0) {
            throw TesseraError("--checkpoint-every 0 is no interval", fix: "give 1 or more generations, or a time such as 10m")
        }
        if checkpointEvery != nil && checkpoint == nil {
            throw TesseraError("--checkpoint-every without --checkpoint", fix: "give --checkpoint FOLDER too")
        }
    }

    mutating func apply(_ config: ConfigFile) throws {
        checkpoint = checkpoint ?? config["checkpoint"]
        checkpointEvery = try checkpointEvery ?? config["checkpoint-every"].map(CheckpointSchedule.Interval.init(parsing:))
        resume = resume ?? config["resume"]
        try validate()
    }

    /// The run to do: from the newest checkpoint under `--resume` when there is one,
    /// else from the board options; how many generations it has left; and where it
    /// started, which its checkpoints record.
    ///
    /// A command that names a pattern or soup (a requeued job's same command) is the run
    /// it resumes: it ends where that command run undisturbed would have ended, and a
    /// checkpoint of another rule, board or start is refused. Without one, the run goes on
    /// `--generations` more, else to where the checkpointed run would have ended.
    /// The origin is the checkpointed run's when resuming, else nil: a fresh run's is
    /// `board.origin()`, asked only where checkpoints are written (it reads the pattern
    /// again and digests every cell: linear-propagator-p237228340's 290000 cells, painted
    /// from its macrocell, cost 0.2 s and 150 MiB).
    func setup(_ board: BoardOptions, generations: UInt64?, defaultTiles count: Int) throws -> (RunSetup, UInt64, Checkpoint.Origin?) {
        let asked = board.pattern != nil || board.soup != nil ? try board.setup(defaultTiles: count) : nil
        guard let resume, let restored = try Self.newest(in: resume) else {
            let fresh = try asked ?? board.setup(defaultTiles: count)
            return (fresh, generations ?? RunOptions.defaultGenerations, nil)
        }
        let shape = restored.shape, at = restored.manifest.generation
        try Self.check(restored, in: resume, against: asked, board, origin: asked == nil ? nil : try board.origin())
        var choices = RunSetup.Choices()
        let pattern = Pattern(cells: restored.board, position: (-(shape.width / 2), -(shape.height / 2)), rule: restored.rule,
                              board: shape, generation: at)
        choices.pattern = (pattern, Files.lastComponent(of: resume))
        choices.rule = (restored.rule, shape)
        choices.tiles = board.tiles.map { ($0.columns, $0.rows) }
        choices.halo = board.halo
        let end: UInt64
        if let asked {
            end = try asked.end(after: generations ?? RunOptions.defaultGenerations)
        } else if let generations {
            end = at.addingReportingOverflow(generations).partialValue
        } else {
            end = restored.manifest.end
        }
        return (try RunSetup(choices, defaultTiles: count), end > at ? end - at : 0, restored.manifest.origin)
    }

    /// Throws unless the checkpoint is of the run the command asks for: its rule, its
    /// board and where it started (each as far as the command says it).
    static func check(_ restored: Checkpoint.Restored, in root: String, against asked: RunSetup?, _ board: BoardOptions,
                      origin: Checkpoint.Origin?) throws {
        let rule = asked?.rule ?? board.rule?.rule
        var differences: [String] = []
        if let rule, rule != restored.rule {
            differences.append("its rule is \(restored.rule), this command's \(rule)")
        }
        let shape = asked?.shape ?? board.rule?.board
        if let shape, shape.width != restored.shape.width || shape.height != restored.shape.height || shape.topology != restored.shape.topology {
            differences.append("its board is \(restored.shape), this command's \(shape)")
        } else if asked == nil, let size = board.size, (size.width, size.height) != (restored.shape.width, restored.shape.height) {
            differences.append("its board is \(restored.shape), this command's \(size.width)x\(size.height)")
        }
        if let origin, !origin.isSame(as: restored.manifest.origin) {
            differences.append("it started from \(restored.manifest.origin.description), this command from \(origin.description)")
        }
        guard differences.isEmpty else {
            throw TesseraError("the checkpoint in \(root) is of another run: \(differences.joined(separator: "; "))",
                               fix: "give --resume the folder of this run's checkpoints, or the command that wrote them")
        }
    }

    /// What the session writes, for a run that ends `generations` after `setup`'s.
    func schedule(for setup: RunSetup, generations: UInt64, origin: @autoclosure () throws -> Checkpoint.Origin) throws -> CheckpointSchedule? {
        guard let root = checkpoint else { return nil }
        // Another run's checkpoints there would stay as the newest two, this run's pruned
        // as older, and a lost worker would roll back to that run's board: only a run
        // that resumes from them may write beside them.
        if resume.map({ Self.sameFolder($0, root) }) != true, let newest = try Checkpoint.committed(in: root).first {
            throw TesseraError("\(root) already holds checkpoints of a run (the newest at generation \(newest))",
                               fix: "give an empty folder to --checkpoint, or --resume \(root) to go on from them")
        }
        // Made with the first checkpoint: a run refused before then leaves no empty folder.
        try Files.checkFolderCanBeMade(root, fix: "give --checkpoint a folder in a place you may write")
        return CheckpointSchedule(root: root, interval: checkpointEvery ?? .generations(10_000), end: try setup.end(after: generations),
                                  origin: try origin())
    }
}

extension CheckpointOptions {
    /// Whether two paths name the same folder, however spelt.
    static func sameFolder(_ a: String, _ b: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        return resolved(a) == resolved(b)
    }

    /// The newest usable checkpoint under `root`, saying on stderr which newer ones were
    /// passed over and why.
    static func newest(in root: String) throws -> Checkpoint.Restored? {
        let restored = try Checkpoint.newest(in: root)
        for line in restored?.skipped ?? [] {
            Files.writeToStandardError("tessera: passed over a checkpoint: \(line)\n")
        }
        return restored
    }
}

extension CheckpointSchedule.Interval {
    /// `1000` (generations), or `90s`, `10m`, `1h` (wall time).
    init(parsing text: String) throws {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        if let unit = text.last.flatMap({ units[$0] }), let amount = Double(text.dropLast()), amount >= 0, amount.isFinite {
            self = .seconds(amount * unit)
        } else if let count = UInt64(text) {
            self = .generations(count)
        } else {
            throw TesseraError("--checkpoint-every '\(text)' is neither a number of generations nor a time",
                               fix: "give generations (10000) or a time such as 90s, 10m or 1h")
        }
    }
}
