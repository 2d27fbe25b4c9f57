import ArgumentParser
import TesseraRun

/// `tessera run PATTERN` with at most `--generations N`, `--output FILE`, `--algorithm A`
/// and `--report`, read without swift-argument-parser's parse.
///
/// That parse builds `run`'s 36 options by reflection three times, and is the first
/// use of most of the Swift runtime's generic machinery in the process: 1.9 ms of
/// acorn's 9 ms run, where bgolly's whole run takes 7. This line is what scripts and
/// comparisons with bgolly run, one process per pattern. Anything else, every mistake
/// included, goes to swift-argument-parser, which says what is wrong; so does a line
/// this reads but whose values fail validation. PlainRunLineTests checks that every line
/// read here gives the command swift-argument-parser gives.
extension RunCommand {
    static func plain(_ arguments: some Collection<String>) -> RunCommand? {
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

        var command = RunCommand()
        command.board = BoardOptions(pattern: pattern)
        command.cluster = .unset
        command.run = RunOptions(generations: generations, output: output, report: report)
        command.checkpoints = .unset
        command.security = .unset
        (command.view, command.algorithm, command.headStart, command.handOverAt) = (false, algorithm, nil, nil)
        do {
            try command.board.validate()
            try command.cluster.validate()
            try command.run.validate()
            try command.checkpoints.validate()
            try command.security.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
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
