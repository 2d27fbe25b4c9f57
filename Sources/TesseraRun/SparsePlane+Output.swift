import TesseraCore
import TesseraPatterns

/// What a run reads of a sparse plane to write it: the same for a plane stepped here
/// (`LocalPlane`) and for one whose shards came back from workers.
extension SparsePlane {
    /// Bounding boxes up to this many cells (2 MiB) are read as one grid.
    static let largestWholePart = 1 << 24
    /// Where a file other than `.cells` is written, one grid only where the tiles cover
    /// at least this share of the box: a dense box is one grid's rows to sweep, and a
    /// sparse one (a circuit's few signals across its box) costs its tiles alone.
    static let leastWholeFill = 0.25

    /// Where a bounded grid's cells live, in its coordinates.
    func boardBounds() -> TileRect? {
        guard let board else { preconditionFailure("the unbounded plane has no board coordinates") }
        return bounds.map { TileRect(x: $0.left - board.left, y: $0.top - board.top, width: $0.width, height: $0.height) }
    }

    /// A bounded grid's cells in `rect` (its coordinates).
    func cells(inBoard rect: TileRect) -> BitGrid {
        guard let board else { preconditionFailure("the unbounded plane has no board coordinates") }
        return cells(in: CellBounds(left: board.left + rect.x, top: board.top + rect.y, width: rect.width, height: rect.height))
    }

    /// The live cells, in parts (Golly's coordinates): one grid where their bounding box
    /// is small (and, where `dense`, the tiles cover `leastWholeFill` of it), else runs
    /// of tiles.
    func wholeOrLiveParts(dense: Bool = false) -> [PlacedCells] {
        guard let box = bounds else { return [] }
        let (area, overflow) = box.width.multipliedReportingOverflow(by: box.height)
        if !overflow, area <= Self.largestWholePart, !dense || Double(tileCount * 64 * 64) >= Self.leastWholeFill * Double(area) {
            return [PlacedCells(cells: cells(in: box), left: box.left, top: box.top)]
        }
        return liveParts()
    }

    /// Writes the live cells as Golly writes them: on the unbounded plane placed where
    /// they are (`#CXRLE Pos=x,y`), so Golly reopens them as the same pattern; on a
    /// bounded grid as the board. Only a bounded grid's `.cells` file, which spells out
    /// every cell, reads the board band by band; on the unbounded plane, one grid.
    package func write(to output: BoardOutput, isolation: isolated (any Actor)? = #isolation) async throws {
        guard board != nil, output.isPlainText else {
            return try output.write(parts: wholeOrLiveParts(dense: !output.isPlainText), rule: rule, generation: generation)
        }
        try await output.write(generation: generation, live: boardBounds()) { cells(inBoard: $0) }
    }
}
