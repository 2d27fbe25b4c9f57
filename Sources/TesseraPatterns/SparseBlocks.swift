import TesseraCore

/// Live cells gathered in square blocks, each made when its first cell arrives: what a
/// reader holds of a pattern whose declared box is too large to hold whole (a switch
/// engine ping-pong declares 210515 × 183739 cells, 4.8 GB as one grid, and lives in a
/// few hundred blocks). Coordinates are from the box's top-left, never negative. Blocks
/// end where the box does, so that a thin box's cells take no more than the box read
/// whole would (a row of a million cells in 512-row blocks took 64 times that).
struct SparseBlocks {
    /// 64 cells a side (a word a row, 512 bytes): a pattern of thin lines across a wide
    /// box (Golly's constructor-memory-loop, 31473 × 31101) takes 2.9 MB in blocks of 512
    /// and 0.2 MB in these (378 blocks).
    static let side = 64
    private struct Key: Hashable { let column: Int, row: Int }
    private var index: [Key: Int] = [:]
    private var blocks: [(key: Key, cells: BitGrid)] = []
    /// The block the last run ended in: a row's runs mostly fall in the block before.
    private var last: (key: Key, at: Int)?
    private var bytes = 0
    /// What the reader gives up on, in its error.
    private let what: String
    private let width: Int, height: Int

    init(what: String, width: Int, height: Int) { (self.what, self.width, self.height) = (what, width, height) }

    /// Brings cells `x..<x+count` of row `y` to life.
    mutating func setRun(y: Int, x: Int, count: Int) throws {
        let side = Self.side
        var (x, left) = (x, count)
        while left > 0 {
            let key = Key(column: x / side, row: y / side), column = x % side, run = min(left, side - column)
            let at = try block(key)
            blocks[at].cells.setRun(y: y % side, x: column, count: run)
            (x, left) = (x + run, left - run)
        }
    }

    private mutating func block(_ key: Key) throws -> Int {
        if let last, last.key == key { return last.at }
        let at: Int
        if let found = index[key] {
            at = found
        } else {
            let blockWidth = min(Self.side, width - key.column * Self.side), blockHeight = min(Self.side, height - key.row * Self.side)
            bytes += (blockWidth + 63) / 64 * 8 * blockHeight
            try MemoryBudget.check(bytes: bytes, what: what, fix: "split the pattern, or save it from Golly as a macrocell (.mc)")
            at = blocks.count
            index[key] = at
            blocks.append((key, BitGrid(width: blockWidth, height: blockHeight)))
        }
        last = (key, at)
        return at
    }

    /// The live cells, a part for each block cut to its live cells, placed from the
    /// declared box's top-left, in order of rows: what is alive and no more, for the
    /// sparse plane's tiles and HashLife.
    func parts() -> [PlacedCells] {
        // Blocks are made by a live cell: each has one to be cut to.
        blocks.map { key, cells in PlacedCells(trimming: cells, left: key.column * Self.side, top: key.row * Self.side)! }.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }
}
