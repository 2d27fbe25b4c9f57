import ArgumentParser
import TesseraCore
import TesseraPatterns
import TesseraRun

/// `tessera run PATTERN` with at most `--generations N`, `--output FILE`, `--algorithm A`
/// and `--report`, read without swift-argument-parser's parse.
///
/// That parse builds `run`'s 36 options by reflection three times, and is the first
/// use of most of the Swift runtime's generic machinery in the process: 1.9 ms of
/// acorn's 9 ms run, where bgolly's whole run takes 7. This line is what scripts and
/// comparisons with bgolly run, one process per pattern. Anything else, every mistake
/// included, goes to swift-argument-parser, which says what is wrong. PlainRunLineTests
/// checks that every line read here gives the command swift-argument-parser gives.
struct PlainRunLine {
    let pattern: String
    let generations: UInt64?
    let output: String?
    let algorithm: Algorithm?
    let report: Bool

    /// Nil for any other line: the parser's to read, or to refuse.
    init?(_ arguments: some Collection<String>) {
        guard arguments.first == "run" else { return nil }
        var pattern: String?, generations: UInt64?, output: String?, algorithm: Algorithm?, report = false
        var rest = arguments.dropFirst()[...]
        while let token = rest.popFirst() {
            guard token.hasPrefix("-") else {
                guard pattern == nil, !token.isEmpty else { return nil }
                pattern = token
                continue
            }
            if token == "--report", !report {
                report = true
                continue
            }
            // A flag given twice, as one without its value, is the parser's to judge.
            guard let value = rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch token {
            case "--generations" where generations == nil:
                guard value.allSatisfy(\.isASCIIDigit), let count = UInt64(value) else { return nil }
                generations = count
            case "--output" where output == nil:
                output = value
            case "--algorithm" where algorithm == nil:
                guard let chosen = Algorithm(rawValue: value) else { return nil }
                algorithm = chosen
            default:
                return nil
            }
        }
        guard let pattern else { return nil }
        (self.pattern, self.generations, self.output, self.algorithm, self.report) = (pattern, generations, output, algorithm, report)
    }

    /// The command swift-argument-parser makes of this line, validated as it validates.
    /// Making one costs a third of a millisecond (its 36 options' property wrappers), so
    /// `runHere` makes it only for what follows HashLife.
    func command() throws -> RunCommand {
        var command = RunCommand()
        command.board = BoardOptions(pattern: pattern)
        command.cluster = .unset
        command.run = RunOptions(generations: generations, output: output, report: report)
        command.checkpoints = .unset
        command.security = .unset
        (command.view, command.algorithm, command.headStart, command.handOverAt) = (false, algorithm, nil, nil)
        (command.memory, command.step) = (nil, nil)
        command.workersStopBeforeBuilding = false
        try command.board.validate()
        try command.cluster.validate()
        try command.run.validate()
        try command.checkpoints.validate()
        try command.security.validate()
        try command.validate()
        return command
    }

    /// `RunCommand.run` for this line on this thread, up to where it needs the task pool:
    /// nil when HashLife finished the run, else the command and where the run stands for
    /// its `finish`.
    func runHere() throws -> (RunCommand, RunCommand.Rest)? {
        let workers = CPUAffinity.usableCount
        var choices = RunSetup.Choices()
        choices.pattern = try BoardOptions.choice(of: pattern)
        var rest = try RunCommand.Rest(setup: try RunSetup(choices, defaultTiles: max(1, workers)),
                                       generations: generations ?? RunOptions.defaultGenerations, output: output,
                                       workers: workers, algorithm: algorithm ?? .auto, asks: .none)
        if case .starts(let budgeted) = rest.hashLife {
            let ending = try HashLifeRun.runHere(rest.setup, generations: rest.generations, output: rest.output, budgeted: budgeted)
            guard let handedOver = RunCommand.settle(ending, rest, report: report) else { return nil }
            rest = handedOver
        }
        return (try command(), rest)
    }
}

// Each sets every option, as swift-argument-parser's parse does: one left out would
// stop the run the first time it is read.

extension BoardOptions {
    init(pattern: String) {
        self.init()
        self.pattern = pattern
        (size, topology, rule, soup, seed, tiles, halo, config) = (nil, nil, nil, nil, nil, nil, nil, nil)
    }
}

extension ClusterOptions {
    static var unset: Self {
        var options = Self()
        (options.workers, options.connectTimeout, options.silence, options.maxRestarts, options.noBalance, options.randomMoves) = (nil, nil, nil, nil, false, nil)
        return options
    }
}

extension RunOptions {
    init(generations: UInt64?, output: String?, report: Bool) {
        self.init()
        (self.generations, self.output, self.report) = (generations, output, report)
        (viewListen, frames, every, gif) = (nil, nil, nil, nil)
    }
}

extension CheckpointOptions {
    static var unset: Self {
        var options = Self()
        (options.checkpoint, options.checkpointEvery, options.resume) = (nil, nil, nil)
        return options
    }
}

extension SecurityOptions {
    static var unset: Self {
        var options = Self()
        (options.keys, options.insecure) = (nil, false)
        return options
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
