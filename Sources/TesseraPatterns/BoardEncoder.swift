import FoundationEssentials
import TesseraCore

/// A whole board written as text a row at a time, taken in chunks: the writer never
/// needs the board, or the text, whole.
public protocol BoardEncoder {
    /// Adds the next row (its words, 64 cells each).
    mutating func append(_ words: ArraySlice<UInt64>)
    /// Adds the next row, of which `words` hold the `width` cells from `x` on; the rest
    /// is empty.
    mutating func append(_ words: ArraySlice<UInt64>, at x: Int, width: Int)
    /// Adds the next row, given as pieces that start `x` cells from its left, in order
    /// and apart: the row of a board that is mostly empty space.
    mutating func append(segments: [(x: Int, words: ArraySlice<UInt64>, width: Int)])
    /// Adds `count` empty rows.
    mutating func skip(rows count: Int)
    /// Ends the text, after the last row.
    mutating func finish()
    /// The text encoded since the last call.
    mutating func take() -> String
}

extension BoardEncoder {
    /// Encodes the rows of `grid`, handing the text to `sink` in chunks.
    public mutating func append(_ grid: BitGrid, to sink: (String) throws -> Void) rethrows {
        for y in 0..<grid.height {
            append(grid.row(y))
            if y & 255 == 255 { try sink(take()) }
        }
        try sink(take())
    }

    /// All of `grid` as text: the whole board.
    public mutating func encode(_ grid: BitGrid) -> String {
        var text = ""
        append(grid) { text += $0 }
        finish()
        return text + take()
    }

    /// Writes all of `grid` as `path`, atomically (gzip-compressed for a `.gz` path).
    public mutating func write(_ grid: BitGrid, to path: String) throws {
        let file = try OutputFile(path)
        try append(grid, to: file.write)
        finish()
        try file.write(take())
        try file.commit()
    }
}
