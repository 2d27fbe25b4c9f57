import TesseraCore

/// Cells of many states given row by row, top to bottom, made into a quadtree of squares
/// (`StateQuadTree`), each distinct square once: what a reader holds of a large
/// box of states on the unbounded plane, which a rule tree's HashLife steps as it is and
/// Generations' and Larger than Life's tiles take where its cells lie.
/// Nothing the size of the box is ever held: at each level, one row of squares waits
/// for the row below it, as runs of equal squares, so that a wire a million cells long
/// costs a few runs a level (NP-replicator declares 145411 x 170 cells, 24 MB as planes,
/// and reads into 7 thousand squares).
struct StateTreeRows {
    /// Nodes as `StateQuadTree` numbers them (from 1; 0 is an empty square).
    private var nodes: [StateQuadTree.Node] = []
    /// Open addressing over the nodes' numbers (0 for a free slot), by level and
    /// children: a node is made once. (A dictionary's hashing was half the reading.)
    private var slots = [UInt32](repeating: 0, count: 1 << 10)
    /// `count` equal squares of a row from column `start` (x >> level): a number of a
    /// node, or at level 0 a state; never 0.
    private struct Run {
        var start: Int, count: Int
        let value: UInt32
        var end: Int { start + count }
    }
    /// A row of squares of one level: its index (y >> level) and its runs, left to right
    /// and apart.
    private typealias Row = (index: Int, runs: [Run])
    /// At each level below the root, the even row waiting for the odd one under it.
    private var waiting: [Row?]
    /// The row of cells being read.
    private var cells: Row = (0, [])
    /// The level whose one square covers the box.
    private let rootLevel: Int
    private let what: String

    init(width: Int, height: Int, what: String) {
        var level = 1
        while level < Int.bitWidth - 2, 1 << level < max(width, height) { level += 1 }
        (rootLevel, self.what) = (level, what)
        waiting = Array(repeating: nil, count: level)
    }

    /// Cells `x..<x+count` of row `y` in `state` (not 0), after any cell of an earlier
    /// row or further left.
    mutating func setRun(y: Int, x: Int, count: Int, state: Int) throws {
        if y != cells.index {
            try endRow()
            cells.index = y
        }
        Self.append(Run(start: x, count: count, value: UInt32(state)), to: &cells.runs)
    }

    private static func append(_ run: Run, to runs: inout [Run]) {
        if let last = runs.last, last.end == run.start, last.value == run.value {
            runs[runs.count - 1].count += run.count
        } else {
            runs.append(run)
        }
    }

    /// The quadtree, the root's top-left cell at Golly's (`left`, `top`).
    mutating func tree(left: Int, top: Int) throws -> StateQuadTree {
        try endRow()
        for level in 0..<rootLevel {
            if let row = waiting[level] {
                waiting[level] = nil
                try add(level + 1, joining: row, over: nil)
            }
        }
        return StateQuadTree(nodes: nodes, left: left, top: top)
    }

    private mutating func endRow() throws {
        guard !cells.runs.isEmpty else { return }
        let row = cells
        cells.runs.removeAll(keepingCapacity: true)
        try add(0, row)
    }

    /// A row of `level` with squares in it: joined to the row above it, or kept to wait
    /// for the one below.
    private mutating func add(_ level: Int, _ row: Row) throws {
        // The root, made last, as a quadtree's nodes end.
        guard level < rootLevel else { return }
        if let above = waiting[level] {
            waiting[level] = nil
            if above.index / 2 == row.index / 2 { return try add(level + 1, joining: above, over: row) }
            try add(level + 1, joining: above, over: nil)
        }
        if row.index % 2 == 0 {
            waiting[level] = row
        } else {
            try add(level + 1, joining: nil, over: row)
        }
    }

    /// Where a row is read from, left to right: the first run not wholly left of a column.
    private struct Cursor {
        let runs: [Run]
        var at = 0

        /// The square at column `x`, 0 where empty, and the next column where that may
        /// change (`Int.max` past the last run). Columns asked never go left.
        mutating func read(_ x: Int) -> (value: UInt32, changes: Int) {
            while at < runs.count, runs[at].end <= x { at += 1 }
            guard at < runs.count else { return (0, .max) }
            return runs[at].start <= x ? (runs[at].value, runs[at].end) : (0, runs[at].start)
        }
    }

    /// The row of `level` made of a row of the level below and the one under it (either
    /// may be all empty): each square of its four quadrants, once for a run of equal
    /// quadrants.
    private mutating func add(_ level: Int, joining top: Row?, over bottom: Row?) throws {
        var upper = Cursor(runs: top?.runs ?? []), lower = Cursor(runs: bottom?.runs ?? [])
        var made: [Run] = []
        // The next pair of columns below that may hold a square.
        var column = min(upper.runs.first?.start ?? .max, lower.runs.first?.start ?? .max) >> 1
        while column < Int.max >> 1 {
            let (nw, ne, sw, se) = (upper.read(2 * column), upper.read(2 * column + 1), lower.read(2 * column),
                                    lower.read(2 * column + 1))
            let children = SIMD4(nw.value, ne.value, sw.value, se.value)
            // A row's pair of columns stays as it is up to where the row changes, if not
            // between them.
            func through(_ left: (value: UInt32, changes: Int)) -> Int {
                left.changes > 2 * column + 1 ? left.changes >> 1 : column + 1
            }
            let end = min(through(nw), through(sw))
            if children == .zero {
                column = end
                continue
            }
            Self.append(Run(start: column, count: end - column, value: try number(level, children)), to: &made)
            column = end
        }
        try add(level, ((top ?? bottom)!.index / 2, made))
    }

    private mutating func number(_ level: Int, _ children: SIMD4<UInt32>) throws -> UInt32 {
        let mask = slots.count - 1
        var slot = StateQuadTree.hash(level: level, children: children) & mask
        while slots[slot] != 0 {
            let node = nodes[Int(slots[slot]) - 1]
            if node.children == children && node.level == level { return slots[slot] }
            slot = (slot + 1) & mask
        }
        nodes.append(StateQuadTree.Node(level: level, children: children))
        slots[slot] = UInt32(nodes.count)
        if 2 * nodes.count > slots.count {
            // A node and its two to four slots.
            try MemoryBudget.check(bytes: nodes.count * 48, what: what, fix: "crop the pattern in Golly first")
            grow()
        }
        return UInt32(nodes.count)
    }

    private mutating func grow() {
        slots = [UInt32](repeating: 0, count: 2 * slots.count)
        let mask = slots.count - 1
        for (index, node) in nodes.enumerated() {
            var slot = StateQuadTree.hash(level: node.level, children: node.children) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(index + 1)
        }
    }
}
