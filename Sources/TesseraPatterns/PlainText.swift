import TesseraCore

/// The plaintext `.cells` format: `!` comment lines, then rows of `.` (dead) and `O` (alive).
/// It carries no position; Golly (and so Tessera) puts its top-left at (0, 0).
public enum PlainText {
    public static func parse(_ text: String) throws -> Pattern {
        var rows: [Substring] = []
        var comments: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
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
            var line = [UInt8](repeating: UInt8(ascii: "."), count: width)
            for run in Runs(words: words, width: part) {
                for cell in (x + run.start)..<(x + run.start + run.count) { line[cell] = UInt8(ascii: "O") }
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

/// Life 1.06: a `#Life 1.06` line, then one `x y` pair (Golly coordinates) per live cell.
public enum Life106 {
    public static func parse(_ text: String) throws -> Pattern {
        var points: [(Int, Int)] = []
        var comments: [String] = []
        for (number, raw) in text.split(separator: "\n").enumerated() {
            let line = raw.trimmingWhitespace
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                comments.append(String(line))
                continue
            }
            let parts = line.split(whereSeparator: \.isWhitespace)
            guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]),
                  x.magnitude < 1 << 30, y.magnitude < 1 << 30  // abs(Int.min) would trap
            else {
                throw TesseraError("Life 1.06 line \(number + 1): expected 'x y', got '\(line)'",
                                   fix: "write one pair of integer coordinates per line")
            }
            points.append((x, y))
        }
        guard let minX = points.map(\.0).min(), let minY = points.map(\.1).min() else {
            return Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), comments: comments)
        }
        let width = points.map(\.0).max()! - minX + 1, height = points.map(\.1).max()! - minY + 1
        guard width * height <= 1 << 36 else {
            throw TesseraError("Life 1.06 cells span \(width)x\(height), too large to load", fix: "use RLE for sparse huge patterns")
        }
        try MemoryBudget.check(bytes: (width + 63) / 64 * 8 * height, what: "the Life 1.06 cells' \(width)x\(height) span",
                               fix: "use RLE for sparse huge patterns")
        var cells = BitGrid(width: width, height: height)
        for (x, y) in points { cells[x - minX, y - minY] = true }
        return Pattern(cells: cells, position: (minX, minY), comments: comments)
    }
}
