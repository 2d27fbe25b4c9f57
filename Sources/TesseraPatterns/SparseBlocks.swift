import TesseraCore

/// Live cells gathered in square blocks, each made when its first cell arrives: what a
/// reader holds of a pattern whose declared box is too large to hold whole (a switch
/// engine ping-pong declares 210515 × 183739 cells, 4.8 GB as one grid, and lives in a
/// few hundred blocks). Coordinates are from the box's top-left, never negative. Blocks
/// end where the box does, so that a thin box's cells take no more than the box read
/// whole would (a row of a million cells in 512-row blocks took 64 times that).
struct SparseBlocks {
    /// The readers' blocks, 64 cells a side (a word a row, 512 bytes): a pattern of thin
    /// lines across a wide box (Golly's constructor-memory-loop, 31473 × 31101) takes
    /// 2.9 MB in blocks of 512 and 0.2 MB in these (378 blocks).
    static let readerSide = 64
    /// What a block holds besides its words, counted against the budget with them: its
    /// grid's storage header, its place in the list and its index entry. A row of 2^31
    /// cells is 2^25 blocks one row high, 8 bytes of words each and GBs in all.
    static let bytesBesideWords = 128
    /// This one's blocks' side.
    let side: Int
    private struct Key: Hashable { let column: Int, row: Int }
    private var index: [Key: Int] = [:]
    private var blocks: [(key: Key, cells: BitGrid)] = []
    /// The block the last run ended in: a row's runs mostly fall in the block before.
    private var last: (key: Key, at: Int)?
    private var bytes = 0
    /// What the reader gives up on, in its error.
    private let what: String
    private let width: Int, height: Int

    init(what: String, width: Int, height: Int, side: Int = readerSide) {
        (self.what, self.width, self.height, self.side) = (what, width, height, side)
    }

    /// Brings cells `x..<x+count` of row `y` to life.
    mutating func setRun(y: Int, x: Int, count: Int) throws {
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
            let blockWidth = min(side, width - key.column * side), blockHeight = min(side, height - key.row * side)
            bytes += (blockWidth + 63) / 64 * 8 * blockHeight + Self.bytesBesideWords
            try MemoryBudget.check(bytes: bytes, what: what, fix: "split the pattern, or save it from Golly as a macrocell (.mc)")
            at = blocks.count
            index[key] = at
            blocks.append((key, BitGrid(width: blockWidth, height: blockHeight)))
        }
        last = (key, at)
        return at
    }

    /// Brings to life the live cells of `cells` with its top-left at (`left`, `top`);
    /// false, and nothing done, unless they lie within one block.
    mutating func formUnion(_ cells: BitGrid, left: Int, top: Int) throws -> Bool {
        let key = Key(column: left / side, row: top / side)
        guard left >= 0, top >= 0, left % side + cells.width <= min(side, width - key.column * side),
              top % side + cells.height <= min(side, height - key.row * side) else { return false }
        let at = try block(key)
        blocks[at].cells.formUnion(cells, atX: left % side, y: top % side)
        return true
    }

    /// The live cells, a part for each block cut to its live cells, placed from the
    /// declared box's top-left, in order of rows: what is alive and no more, for the
    /// sparse plane's tiles and HashLife.
    func parts() -> [PlacedCells] {
        // A block made by `formUnion` may hold none.
        blocks.compactMap { key, cells in PlacedCells(trimming: cells, left: key.column * side, top: key.row * side) }
            .sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }
}
