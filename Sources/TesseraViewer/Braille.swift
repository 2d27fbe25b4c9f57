import TesseraCore

/// Draws dots as Unicode braille, 2×4 dots per character cell.
package enum Braille {
    /// Bit of each dot within a braille character, by (column, row) in the 2×4 cell.
    static let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    /// `rows` lines of `columns` characters showing `dots` (2·columns × 4·rows dots).
    /// The character holding `cursor`, a dot position, is shown in reverse video, its
    /// dots still visible.
    package static func lines(_ dots: BitGrid, columns: Int, rows: Int, cursor: (x: Int, y: Int)? = nil) -> [String] {
        (0..<rows).map { row in
            var line = String.UnicodeScalarView()
            for column in 0..<columns {
                let atCursor = cursor.map { $0.x / 2 == column && $0.y / 4 == row } ?? false
                if atCursor { line.append(contentsOf: "\u{1B}[7m".unicodeScalars) }
                defer { if atCursor { line.append(contentsOf: "\u{1B}[27m".unicodeScalars) } }
                var code: UInt32 = 0
                for dx in 0..<2 {
                    for dy in 0..<4 {
                        let x = column * 2 + dx, y = row * 4 + dy
                        if x < dots.width, y < dots.height, dots[x, y] { code |= bits[dx][dy] }
                    }
                }
                line.append(code == 0 && !atCursor ? " " : Unicode.Scalar(0x2800 + code)!)
            }
            return String(line)
        }
    }
}
