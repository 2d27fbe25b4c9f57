import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns

extension RunRequest {
    /// The board, rule and starting cells asked for, with one tile per worker unless
    /// tiles were chosen.
    package func fresh(defaultTiles count: Int) throws -> RunSetup {
        var choices = RunSetup.Choices()
        choices.pattern = try pattern.map(Self.choice(of:))
        choices.rule = rule.map { ($0.rule, $0.board) }
        choices.topology = topology
        choices.size = size.map { ($0.width, $0.height) }
        choices.soup = try soup.map { try Soup(density: $0, seed: seed ?? 1) }
        choices.tiles = tiles.map { ($0.columns, $0.rows) }
        choices.halo = halo
        return try RunSetup(choices, defaultTiles: count)
    }

    /// Where this run starts, as its checkpoints record it.
    package func origin() throws -> Checkpoint.Origin {
        Checkpoint.Origin(pattern: try pattern.map(Self.load), name: pattern.map(Files.lastComponent(of:)),
                          soup: try soup.map { try Soup(density: $0, seed: seed ?? 1) })
    }

    /// A pattern file or built-in name as a run's choice of pattern: the pattern and its name.
    package static func choice(of source: String) throws -> (Pattern, String) {
        (try load(source), Files.lastComponent(of: source))
    }

    package static func load(_ source: String) throws -> Pattern {
        if Files.exists(source) { return try PatternFile.load(source) }
        if let builtIn = PatternLibrary.pattern(named: source) { return builtIn }
        throw TesseraError("no file or built-in pattern named '\(source)'",
                           fix: "check the path, or run 'tessera patterns' for built-in names")
    }

    /// The run to do: from the newest checkpoint under `resume` when there is one, else
    /// the board asked for; how many generations it has left; and where it started,
    /// which its checkpoints record.
    ///
    /// A request that names a pattern or soup (a requeued job's same command) is the run
    /// it resumes: it ends where that run undisturbed would have ended, and a checkpoint
    /// of another rule, board or start is refused. Without one, the run goes on
    /// `generations` more, else to where the checkpointed run would have ended.
    /// The origin is the checkpointed run's when resuming, else nil: a fresh run's is
    /// `origin()`, asked only where checkpoints are written (it reads the pattern again
    /// and digests every cell: linear-propagator-p237228340's 290000 cells, painted from
    /// its macrocell, cost 0.2 s and 150 MiB).
    package func start(defaultTiles count: Int) throws -> (RunSetup, UInt64, Checkpoint.Origin?) {
        let asked = pattern != nil || soup != nil ? try fresh(defaultTiles: count) : nil
        guard let resume, let restored = try Self.newestCheckpoint(in: resume) else {
            return (try asked ?? fresh(defaultTiles: count), generationCount, nil)
        }
        let at = restored.manifest.generation
        try check(restored, in: resume, against: asked, origin: asked == nil ? nil : try origin())
        var choices = RunSetup.Choices()
        switch restored.cells {
        case .grid(let board, let states):
            let shape = restored.shape!
            var pattern = Pattern(cells: board, position: (-(shape.width / 2), -(shape.height / 2)), rule: restored.rule,
                                  board: shape, generation: at)
            pattern.states = states
            choices.pattern = (pattern, Files.lastComponent(of: resume))
        case .parts(let parts):
            choices.pattern = (Pattern(parts: parts, rule: restored.rule, board: restored.shape, generation: at),
                               Files.lastComponent(of: resume))
        }
        choices.rule = (restored.rule, restored.shape)
        choices.tiles = tiles.map { ($0.columns, $0.rows) }
        choices.halo = halo
        let end: UInt64
        if let asked {
            end = try asked.end(after: generationCount)
        } else if let generations {
            end = at.addingReportingOverflow(generations).partialValue
        } else {
            end = restored.manifest.end
        }
        return (try RunSetup(choices, defaultTiles: count), end > at ? end - at : 0, restored.manifest.origin)
    }

    /// Throws unless the checkpoint is of the run asked for: its rule, its board and
    /// where it started (each as far as the request says it).
    func check(_ restored: Checkpoint.Restored, in root: String, against asked: RunSetup?, origin: Checkpoint.Origin?) throws {
        let rule = asked?.rule ?? self.rule?.rule
        var differences: [String] = []
        if let rule, rule != restored.rule {
            differences.append("its rule is \(restored.rule), this command's \(rule)")
        }
        // A board asked for: the setup's (nil on the unbounded plane), else the rule's suffix.
        let shape = asked.map { $0.isUnbounded ? nil : $0.shape } ?? self.rule?.board
        let restoredSize = restored.shape.map { ($0.width, $0.height) }
        if asked != nil || shape != nil, shape.map({ ($0.width, $0.height, $0.topology) }) ?? (0, 0, .infinite)
            != restored.shape.map({ ($0.width, $0.height, $0.topology) }) ?? (0, 0, .infinite) {
            differences.append("its board is \(restored.board), this command's \(shape?.description ?? "the unbounded plane")")
        } else if asked == nil, let size, restoredSize.map({ $0 != (size.width, size.height) }) ?? true {
            differences.append("its board is \(restored.board), this command's \(size.width)x\(size.height)")
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
    func checkpointSchedule(for setup: RunSetup, generations: UInt64,
                            origin: @autoclosure () throws -> Checkpoint.Origin) throws -> CheckpointSchedule? {
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

    /// Whether two paths name the same folder, however spelt.
    static func sameFolder(_ a: String, _ b: String) -> Bool {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        return resolved(a) == resolved(b)
    }

    /// The newest usable checkpoint under `root`, saying on stderr which newer ones were
    /// passed over and why.
    package static func newestCheckpoint(in root: String) throws -> Checkpoint.Restored? {
        let restored = try Checkpoint.newest(in: root)
        for line in restored?.skipped ?? [] {
            Files.writeToStandardError("tessera: passed over a checkpoint: \(line)\n")
        }
        return restored
    }
}
