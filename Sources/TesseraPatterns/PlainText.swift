import TesseraCore

/// The plaintext `.cells` format: `!` comment lines, then rows of `.` (dead) and `O` (alive).
/// It carries no position; Golly (and so Tessera) puts its top-left at (0, 0).
public enum PlainText {
    public static func parse(_ text: String) throws -> Pattern {
        var rows: [Substring] = []
        var comments: [String] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.hasPrefix("!") {
                comments.append(String(line))
                continue
            }
            if let bad = line.first(where: { !".Oo*".contains($0) && !$0.isWhitespace }) {
                throw TesseraError("plaintext line \(number + 1): unexpected character '\(bad)'",
                                   fix: "use '.' for dead and 'O' for live cells, '!' for comments")
            }
            rows.append(line)
        }
        while let last = rows.last, last.allSatisfy(\.isWhitespace) { rows.removeLast() }
        let width = rows.map(\.count).max() ?? 0
        var cells = BitGrid(width: width, height: rows.count)
        for (y, row) in rows.enumerated() {
            for (x, ch) in row.enumerated() where ch == "O" || ch == "o" || ch == "*" { cells[x, y] = true }
        }
        return Pattern(cells: cells, position: (0, 0), comments: comments)
    }

    public static func string(for grid: BitGrid, name: String) -> String {
        var encoder = Encoder(width: grid.width, name: name)
        return encoder.encode(grid)
    }

    /// `.cells` text, a row at a time.
    public struct Encoder: BoardEncoder {
        private var out: String
        private let width: Int

        public init(width: Int, name: String) {
            out = "!Name: \(name)\n"
            self.width = width
        }

        public mutating func append(_ words: ArraySlice<UInt64>) {
            append(words, at: 0, width: width)
        }

        public mutating func append(_ words: ArraySlice<UInt64>, at x: Int, width part: Int) {
            append(segments: [(x, words, part)])
        }

        public mutating func append(segments: [(x: Int, words: ArraySlice<UInt64>, width: Int)]) {
            var line = [UInt8](repeating: UInt8(ascii: "."), count: width)
            for segment in segments {
                for run in Runs(words: segment.words, width: segment.width) {
                    let start = segment.x + run.start
                    for cell in start..<start + run.count { line[cell] = UInt8(ascii: "O") }
                }
            }
            out += String(decoding: line, as: UTF8.self)
            out += "\n"
        }

        public mutating func skip(rows count: Int) {
            let empty = String(repeating: ".", count: width) + "\n"
            for _ in 0..<count { out += empty }
        }

        public mutating func finish() {}

        public mutating func take() -> String {
            defer { out = "" }
            return out
        }
    }
}

/// Alan Hensel's PC Life formats, read as Golly reads both (gollybase/readpattern.cpp,
/// `readpclife`): Life 1.06 is a `#Life 1.06` line and then one `x y` pair (Golly
/// coordinates) per live cell; Life 1.05, which Golly's own pattern folder still ships
/// (acorn.lif, rabbits.lif), is blocks of `.` and `*` rows, each after a `#P x y` line
/// giving its top-left (a bare `#P` goes on where the last block ended), `#N` for Life
/// or `#R` with a rule (survival first: `#R 23/3`); other `#` lines are comments.
public enum PCLife {
    public static func parse(_ text: String) throws -> Pattern {
        var points: [(Int, Int)] = []
        var comments: [String] = []
        var rule: Rule? = nil, board: BoardShape? = nil
        // Where the next row of a block starts, and the column its rows start at.
        var (x, y, left) = (0, 0, 0)
        func coordinate(_ text: Substring, line number: Int) throws -> Int? {
            guard let value = Int(text) else { return nil }
            guard Pattern.isPlaceable(value) else {
                throw TesseraError("Life 1.0x line \(number + 1): coordinate \(value) lies beyond ±2^62, the farthest Tessera places a cell",
                                   fix: "move the pattern nearer the origin")
            }
            return value
        }
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingWhitespace
            guard let first = line.first else { continue }
            let fields = line.split(whereSeparator: \.isWhitespace)
            switch first {
            case "#":
                if line.hasPrefix("#P") && (line.count == 2 || line.dropFirst(2).first!.isWhitespace) {
                    let numbers = try fields.dropFirst().prefix(2).map { try coordinate($0, line: number) }
                    guard !numbers.contains(nil) else {
                        throw TesseraError("Life 1.05 line \(number + 1): expected '#P x y', got '\(line)'",
                                           fix: "give the block's top-left as two integers")
                    }
                    if numbers.count > 0 { x = numbers[0]! }
                    if numbers.count > 1 { y = numbers[1]! }
                    left = x
                } else if line == "#N" {
                    rule = .life
                } else if line.hasPrefix("#R"), fields.count == 2 {
                    (rule, board) = try BoardShape.parseRule(String(fields[1]))
                } else {
                    comments.append(String(line))
                }
            case ".", "*":
                guard line.allSatisfy({ $0 == "." || $0 == "*" }) else {
                    throw TesseraError("Life 1.05 line \(number + 1): a row of cells holds only '.' and '*', got '\(line)'",
                                       fix: "write dead cells as '.' and live ones as '*'")
                }
                for (offset, cell) in line.enumerated() where cell == "*" { points.append((x + offset, y)) }
                (x, y) = (left, y + 1)
            default:
                guard fields.count == 2, let px = try coordinate(fields[0], line: number), let py = try coordinate(fields[1], line: number) else {
                    throw TesseraError("Life 1.06 line \(number + 1): expected 'x y', got '\(line)'",
                                       fix: "write one pair of integer coordinates per line")
                }
                points.append((px, py))
                (x, y) = (px, py)
            }
        }
        guard let minX = points.map(\.0).min(), let minY = points.map(\.1).min() else {
            return Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board, comments: comments)
        }
        // Each coordinate within ±2^62: a span cannot overflow.
        let width = points.map(\.0).max()! - minX + 1, height = points.map(\.1).max()! - minY + 1
        if RLE.Header.holdsInBlocks(width: width, height: height, board: board, states: rule?.states ?? 2) {
            var blocks = SparseBlocks(what: "the Life 1.05/1.06 cells' \(width)x\(height) span", width: width, height: height)
            for (x, y) in points { try blocks.setRun(y: y - minY, x: x - minX, count: 1) }
            return Pattern(parts: blocks.parts(), extent: (width, height), position: (minX, minY), rule: rule, board: board,
                           generation: 0, comments: comments)
        }
        try MemoryBudget.check(bytes: (width + 63) / 64 * 8 * height, what: "the Life 1.05/1.06 cells' \(width)x\(height) span",
                               fix: "use RLE for sparse huge patterns")
        var cells = BitGrid(width: width, height: height)
        for (x, y) in points { cells[x - minX, y - minY] = true }
        return Pattern(cells: cells, position: (minX, minY), rule: rule, board: board, comments: comments)
    }
}
