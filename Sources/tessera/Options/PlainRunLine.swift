import TesseraRun

/// `tessera run PATTERN` with at most `--generations N`, `--output FILE`, `--algorithm A`
/// and `--report`, read without swift-argument-parser's parse.
///
/// That parse builds `run`'s options by reflection three times, and is the first use of
/// most of the Swift runtime's generic machinery in the process, a large share of a
/// methuselah's run. This line is what scripts and comparisons with bgolly run, one
/// process per pattern. Anything else, every mistake included, goes to
/// swift-argument-parser, which says what is wrong. PlainRunLineTests checks that every
/// line read here makes the request swift-argument-parser's command makes.
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

    /// The request this line makes: the one swift-argument-parser's `RunCommand` makes
    /// of it (`PlainRunLineTests`).
    var request: RunRequest {
        var request = RunRequest()
        (request.pattern, request.generations, request.output, request.algorithm, request.report) = (pattern, generations, output, algorithm, report)
        return request
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
