import TesseraCluster
import TesseraCore
import TesseraViewer
import TesseraWire

/// A run as asked for. Every way into a run makes one: `tessera run`'s flags, the
/// `coordinator`'s, a config file (`apply`), the plain `run PATTERN` line, a resume
/// from checkpoints (`--resume`); `validate()` holds every rule of what may go with
/// what, and `run()` carries it out. The command line only maps flags onto it.
package struct RunRequest: Sendable, Equatable {
    /// Who starts the workers.
    package enum Cluster: Sendable, Equatable {
        /// `tessera run`: worker processes started here, or none (`workers == 0`).
        case here
        /// `tessera coordinator`: workers started anywhere connect to `listen` (default
        /// `RunRequest.defaultListen`); `externalPresenter`: a presenter process drives the run.
        case awaited(listen: String?, externalPresenter: Bool)
    }

    package var cluster = Cluster.here

    // What runs: a pattern (a file or a built-in name) or soup, on which board, by which rule.
    package var pattern: String?
    package var size: BoardSize?
    package var topology: Topology?
    package var rule: RuleChoice?
    package var soup: Double?
    package var seed: UInt64?
    package var tiles: TileGrid?
    package var halo: Int?

    // How long, and what comes of it.
    package var generations: UInt64?
    package var output: String?
    package var report = false
    package var viewListen: String?
    /// A viewer in this terminal, which ends the run when it quits.
    package var viewHere = false
    package var frames: String?
    package var every: UInt64?
    package var gif: String?

    // Which engine steps it.
    package var algorithm: Algorithm?
    /// HashLife's memory in MiB (bgolly's -M).
    package var memory: Int?
    /// HashLife's step (bgolly's -i).
    package var step: UInt64?
    package var headStart: Bool?
    /// For tests: the head start hands its cells to the workers at this generation.
    package var handOverAt: UInt64?
    /// For tests: each worker stops itself at the first tiles it is given.
    package var workersStopBeforeBuilding = false

    // Workers, and how long to wait for them.
    package var workers: Int?
    package var connectTimeout: Seconds?
    package var silence: Seconds?
    package var maxRestarts: Int?
    package var balancing = Balancing.standard

    // Checkpoints.
    package var checkpoint: String?
    package var checkpointEvery: CheckpointSchedule.Interval?
    package var resume: String?

    // Keys.
    package var keys: String?
    package var insecure = false

    package init(cluster: Cluster = .here) { self.cluster = cluster }

    /// Generations a run goes when none are given.
    package static let defaultGenerations: UInt64 = 100
    /// Runs survive lost workers unless told not to: no human action needed.
    package static let defaultRestarts = 3
    /// Where a coordinator listens by default: this machine only.
    package static let defaultListen = "tcp://127.0.0.1:7470"

    package var generationCount: UInt64 { generations ?? Self.defaultGenerations }
    package var recordsFrames: Bool { frames != nil || gif != nil }

    /// Throws the first rule this request breaks, as one line with its fix.
    package func validate() throws {
        if let soup { _ = try Soup(density: soup, seed: 1) }
        if let halo, halo < 1 { throw TesseraError("halo depth \(halo) is below 1", fix: "give --halo 1 or more") }
        if let viewListen { _ = try Endpoint.split(viewListen) }
        if let workers, workers < 0 { throw TesseraError("--workers \(workers) is negative", fix: "give 0 (in process) or more") }
        if let maxRestarts, maxRestarts < 0 { throw TesseraError("--max-restarts \(maxRestarts) is negative", fix: "give 0 or more") }
        if checkpointEvery == .generations(0) || checkpointEvery == .seconds(0) {
            throw TesseraError("--checkpoint-every 0 is no interval", fix: "give 1 or more generations, or a time such as 10m")
        }
        if checkpointEvery != nil && checkpoint == nil {
            throw TesseraError("--checkpoint-every without --checkpoint", fix: "give --checkpoint FOLDER too")
        }
        try Credentials.checkFlags(keys: keys, insecure: insecure)
        switch cluster {
        case .here:
            try validateHere()
        case .awaited(let listen, _):
            if let workers, workers < 1 {
                throw TesseraError("a coordinator needs --workers 1 or more", fix: "give --workers N for the N workers you start")
            }
            if let workers { try WorkerCount.check(workers) }
            if let listen { _ = try Endpoint.split(listen) }
        }
    }

    /// `tessera run`'s rules: workers on this machine, HashLife's flags, files every so often.
    private func validateHere() throws {
        if viewHere && !Terminal.isInteractive {
            throw TesseraError("--view needs a terminal", fix: "run it in a terminal, or use --view-listen and 'tessera view'")
        }
        if let workers { try WorkerCount.checkLocal(workers) }
        if let memory, memory < 1 {
            throw TesseraError("--memory \(memory) is not a size in MiB", fix: "give --memory 1 or more (MiB), or leave it out")
        }
        if let step, step == 0 || step & (step - 1) != 0 {
            throw TesseraError("--step \(step) is not a power of two", fix: "give --step 1, 2, 4, … 1048576 or any power of two")
        }
        if memory != nil, algorithm == .tiles {
            throw TesseraError("--memory limits HashLife, and --algorithm tiles runs none", fix: "leave out --memory, or --algorithm tiles")
        }
        if step != nil, algorithm == .tiles {
            throw TesseraError("--step sets HashLife's step, and --algorithm tiles runs none", fix: "leave out --step, or --algorithm tiles")
        }
        if let every, every == 0 || !recordsFrames && output == nil {
            throw TesseraError(every == 0 ? "--every 0 is no interval" : "--every says how often frames or files are written, and none is asked for",
                               fix: "give --every 1 or more with --frames, --gif or --output, or leave it out")
        }
    }
}

/// A board size, `WxH` or `N` for a square board.
package struct BoardSize: Sendable, Equatable {
    package let width: Int, height: Int

    package init(parsing text: String) throws { (width, height) = try BoardShape.parseSize(text) }
}

/// A rule, with the bounded grid its Golly suffix names (`B3/S23:T640,480`).
package struct RuleChoice: Sendable, Equatable {
    package let rule: Rule
    package let board: BoardShape?

    package init(parsing text: String) throws { (rule, board) = try BoardShape.parseRule(text) }
}

/// Tiles as `COLUMNSxROWS`.
package struct TileGrid: Sendable, Equatable {
    package let columns: Int, rows: Int

    package init(parsing text: String) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]) else {
            throw TesseraError("bad tiling '\(text)'", fix: "write --tiles COLUMNSxROWS, e.g. 2x2")
        }
        guard c >= 1, r >= 1 else {
            throw TesseraError("tiling \(c)x\(r) has no tiles", fix: "give --tiles CxR with C, R ≥ 1")
        }
        (columns, rows) = (c, r)
    }
}

/// A duration in seconds: finite, positive and at most a week, so every timer made
/// from it is real.
package struct Seconds: Sendable, Equatable {
    package static let longest = 7 * 24 * 3600.0
    package let duration: Duration

    package init(parsing text: String, flag: String) throws {
        guard let value = Double(text), value.isFinite, value > 0, value <= Self.longest else {
            throw TesseraError("--\(flag) '\(text)' is not a number of seconds", fix: "give a number above 0 and at most \(Int(Self.longest)) (a week)")
        }
        duration = .milliseconds(Int64((value * 1000).rounded(.up)))
    }
}

extension CheckpointSchedule.Interval {
    /// `1000` (generations), or `90s`, `10m`, `1h` (wall time).
    package init(parsing text: String) throws {
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
