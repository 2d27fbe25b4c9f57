import TesseraCore

/// Live cells gathered in square blocks, each made when its first cell arrives: what a
/// reader holds of a pattern whose declared box is too large to hold whole (a switch
/// engine ping-pong declares 210515 × 183739 cells, 4.8 GB as one grid, and lives in a
/// few hundred blocks). Coordinates are from the box's top-left, never negative.
struct SparseBlocks {
    static let side = 512
    private struct Key: Hashable { let column: Int, row: Int }
    private var blocks: [Key: BitGrid] = [:]
    /// What one more block may bring the total to before the reader gives up.
    private let what: String

    init(what: String) { self.what = what }

    /// Brings cells `x..<x+count` of row `y` to life.
    mutating func setRun(y: Int, x: Int, count: Int) throws {
        let side = Self.side
        var (x, left) = (x, count)
        while left > 0 {
            let key = Key(column: x / side, row: y / side), column = x % side, run = min(left, side - column)
            if blocks[key] == nil {
                try MemoryBudget.check(bytes: (blocks.count + 1) * side * side / 8, what: what,
                                       fix: "split the pattern, or save it from Golly as a macrocell (.mc)")
            }
            blocks[key, default: BitGrid(width: side, height: side)].setRun(y: y % side, x: column, count: run)
            (x, left) = (x + run, left - run)
        }
    }

    /// The live cells, a part for each block cut to its live cells, placed from the
    /// declared box's top-left, in order of rows: what is alive and no more, for the
    /// sparse plane's tiles, or for the windows that group them (`RunSetup`).
    func parts() -> [PlacedCells] {
        // Blocks are made by a live cell: each has one to be cut to.
        blocks.map { key, cells in PlacedCells(trimming: cells, left: key.column * Self.side, top: key.row * Self.side)! }.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }
}
