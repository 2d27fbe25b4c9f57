import Foundation
import TesseraCore

/// A whole board written to an `.rle` or `.cells` file, atomically: Golly reopens the
/// RLE as exactly the same board. A board of any size is written band by band.
public struct BoardOutput: Sendable {
    public let path: String
    public let shape: BoardShape
    public let rule: Rule
    /// What a `.cells` file calls the board.
    public let name: String

    /// Checks that `path` names a format and can be written, before any work is spent.
    public init(path: String, shape: BoardShape, rule: Rule, name: String) throws {
        let lower = path.lowercased()
        guard lower.hasSuffix(".rle") || lower.hasSuffix(".cells") else {
            throw TesseraError("cannot tell the format of output '\(path)'", fix: "name it *.rle or *.cells")
        }
        try AtomicFile.checkWritable(path)
        (self.path, self.shape, self.rule, self.name) = (path, shape, rule, name)
    }

    /// `STEM.rle`, or `STEM-2.rle`, … : a new file for every save, even of the same
    /// generation after an edit.
    public static func freshPath(stem: String) -> String {
        var path = stem + ".rle", copy = 1
        while FileManager.default.fileExists(atPath: path) {
            copy += 1
            path = "\(stem)-\(copy).rle"
        }
        return path
    }

    /// Rows fetched at a time when writing a board band by band: 16 MiB of cells.
    public static func bandRows(width: Int) -> Int { max(1, (16 << 23) / max(1, width)) }

    /// Bytes of cells the writer holds at once.
    public var bandBytes: Int { Self.bandRows(width: shape.width) * shape.width / 8 }

    private func encoder(generation: UInt64) -> any BoardEncoder {
        path.lowercased().hasSuffix(".cells")
            ? PlainText.Encoder(width: shape.width, name: "\(name) generation \(generation)")
            : RLE.Encoder(shape: shape, rule: rule, generation: generation)
    }

    /// Writes `board` whole.
    public func write(_ board: BitGrid, generation: UInt64) throws {
        var encoder = encoder(generation: generation)
        try encoder.write(board, to: path)
    }

    /// Writes the board band by band, fetching each band's rows with `rows`: neither
    /// the board nor its text is ever held whole, however large the board. If `rows`
    /// throws, nothing is written.
    public func write(generation: UInt64, rows: (Range<Int>) async throws -> BitGrid) async throws {
        let file = try AtomicFile(path)
        var encoder = encoder(generation: generation)
        let height = shape.height, band = Self.bandRows(width: shape.width)
        for y in stride(from: 0, to: height, by: band) {
            // A stopped run writes nothing: the temporary file goes with `file`.
            try Task.checkCancellation()
            try encoder.append(try await rows(y..<min(height, y + band)), to: file.write)
        }
        encoder.finish()
        try file.write(encoder.take())
        try file.commit()
    }
}
