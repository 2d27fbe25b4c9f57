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

    /// The live cells in groups that lie far apart (`PlaneAtlas.groups`), each in a grid
    /// of its live box, placed from the declared box's top-left; `origin` is where that
    /// top-left lies, where the file says (the groups are found, and named in messages,
    /// where they lie).
    func groups(origin: (x: Int, y: Int) = (0, 0)) throws -> [PlacedCells] {
        let keys = Array(blocks.keys), boxes = keys.map(box(of:))
        let groups = try PlaneAtlas.groups(of: boxes.map { $0.moved(by: origin) }, minSide: 1)
        let enclosing = groups.map { members in CellBounds.enclosing(members.map { boxes[$0] })! }
        try MemoryBudget.check(bytes: enclosing.reduce(0) { $0 + ($1.width + 63) / 64 * 8 * $1.height }, what: what,
                               fix: "split the pattern, or save it from Golly as a macrocell (.mc)")
        return zip(groups, enclosing).map { members, box in
            var cells = BitGrid(width: box.width, height: box.height)
            for member in members {
                let key = keys[member]
                blocks[key]!.copy(into: &cells, atX: key.column * Self.side - box.left, y: key.row * Self.side - box.top)
            }
            return PlacedCells(cells: cells, left: box.left, top: box.top)
        }.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }

    /// The live box of a block (which holds a live cell: blocks are made by one).
    private func box(of key: Key) -> CellBounds {
        let live = blocks[key]!.liveBounds!
        return CellBounds(left: key.column * Self.side + live.x, top: key.row * Self.side + live.y, width: live.width, height: live.height)
    }
}

private extension CellBounds {
    func moved(by offset: (x: Int, y: Int)) -> CellBounds {
        CellBounds(left: left + offset.x, top: top + offset.y, width: width, height: height)
    }
}
