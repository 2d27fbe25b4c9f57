import TesseraCore

/// Draws dots as Unicode braille, 2×4 dots per character cell.
package enum Braille {
    /// Bit of each dot within a braille character, by (column, row) in the 2×4 cell.
    static let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    /// `rows` lines of `columns` characters showing `dots` (2·columns × 4·rows dots).
    /// The character holding `cursor`, a dot position, is shown in reverse video, its
    /// dots still visible. Where the dots come with their `states` (a byte a dot, of a
    /// rule of `stateCount`), a character takes the colour of the lowest state among its
    /// dots (`StatePalette`), state 1 the terminal's own.
    package static func lines(_ dots: BitGrid, columns: Int, rows: Int, cursor: (x: Int, y: Int)? = nil,
                              states: [UInt8] = [], stateCount: Int = 0) -> [String] {
        let colours = states.isEmpty ? [] : StatePalette.colours(states: stateCount).map { "\u{1B}[38;2;\($0.0);\($0.1);\($0.2)m" }
        return (0..<rows).map { row in
            var line = String.UnicodeScalarView()
            var colour = 1
            for column in 0..<columns {
                if !colours.isEmpty {
                    let state = lowestState(states, dots, column: column, row: row)
                    if state != 0 && state != colour {
                        line.append(contentsOf: (state == 1 ? "\u{1B}[39m" : colours[state]).unicodeScalars)
                        colour = state
                    }
                }
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
            if colour != 1 { line.append(contentsOf: "\u{1B}[39m".unicodeScalars) }
            return String(line)
        }
    }

    /// The lowest state but 0 among the 2x4 dots of a character; 0 where none.
    static func lowestState(_ states: [UInt8], _ dots: BitGrid, column: Int, row: Int) -> Int {
        var lowest = Int.max
        for dx in 0..<2 {
            for dy in 0..<4 {
                let x = column * 2 + dx, y = row * 4 + dy
                guard x < dots.width, y < dots.height else { continue }
                let state = Int(states[y * dots.width + x])
                if state != 0 { lowest = min(lowest, state) }
            }
        }
        return lowest == Int.max ? 0 : lowest
    }
}
