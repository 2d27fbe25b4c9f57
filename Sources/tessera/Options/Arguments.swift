import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraRun

// Values the flags (and the config file, through the same parsers) take. A value that
// does not parse fails with one line that says what is wrong and how to write it.

extension Topology: ExpressibleByArgument {}

extension Kernel.Implementation: ExpressibleByArgument {}

extension Algorithm: ExpressibleByArgument {}

/// A board size, `WxH` or `N` for a square board.
struct BoardSize {
    let width: Int, height: Int

    init(parsing text: String) throws { (width, height) = try BoardShape.parseSize(text) }
}

/// A rule, with the bounded grid its Golly suffix names (`B3/S23:T640,480`).
struct RuleChoice {
    let rule: Rule
    let board: BoardShape?

    init(parsing text: String) throws { (rule, board) = try BoardShape.parseRule(text) }
}

/// Tiles as `COLUMNSxROWS`.
struct TileGrid {
    let columns: Int, rows: Int

    init(parsing text: String) throws {
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
struct Seconds {
    static let longest = 7 * 24 * 3600.0
    let duration: Duration

    init(parsing text: String, flag: String) throws {
        guard let value = Double(text), value.isFinite, value > 0, value <= Self.longest else {
            throw TesseraError("--\(flag) '\(text)' is not a number of seconds", fix: "give a number above 0 and at most \(Int(Self.longest)) (a week)")
        }
        duration = .milliseconds(Int64((value * 1000).rounded(.up)))
    }
}

/// Parses what a flag's transform is given, as the parser's error if it is wrong.
func parsing<T>(_ parse: @escaping @Sendable (String) throws -> T) -> @Sendable (String) throws -> T {
    { text in
        do {
            return try parse(text)
        } catch let error as TesseraError {
            throw ValidationError(error.description)
        }
    }
}
