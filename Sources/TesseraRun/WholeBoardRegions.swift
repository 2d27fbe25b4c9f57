import TesseraCore
import TesseraPatterns

/// The part of a board a step must cover when life is confined: the box of the cells in
/// any state but 0, grown by the neighbourhood's reach on every side, so that every cell
/// that could change lies in it and every cell it reads outside it is dead. On a torus
/// only where that box does not reach round an edge; nil for the whole board.
enum ActiveRegion {
    static func of(_ live: TileRect?, reach: Int, width: Int, height: Int, wraps: Bool) -> TileRect? {
        guard let live else { return TileRect(x: 0, y: 0, width: 0, height: 0) }
        let (left, top) = (live.x - reach, live.y - reach)
        let (right, bottom) = (live.x + live.width + reach, live.y + live.height + reach)
        if wraps {
            guard left >= 0, top >= 0, right <= width, bottom <= height else { return nil }
            return TileRect(x: left, y: top, width: right - left, height: bottom - top)
        }
        let (x0, y0, x1, y1) = (max(0, left), max(0, top), min(width, right), min(height, bottom))
        return TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// The unbounded plane for the engines that step a whole board (Larger than Life,
/// Generations): a dead-edge window around what lives, grown before life could step
/// out of it, so that it steps exactly as the plane would.
enum GrowingWindow {
    /// Room each side of a live box `size` cells across: twice the reach and more, and a
    /// quarter of its size (along each axis: a thin pattern's window stays thin), so that
    /// a growing pattern moves its window a logarithmic number of times.
    static func margin(reach: Int, size: Int) -> Int { max(2 * reach + 2, 64, size / 4) }

    /// A window `width` x `height` with room each side of a box, refused where it would
    /// not fit in memory.
    static func grown(width: Int, height: Int, reach: Int, states: Int) throws -> (width: Int, height: Int, margins: (x: Int, y: Int)) {
        let margins = (x: margin(reach: reach, size: width), y: margin(reach: reach, size: height))
        let (w, h) = (width + 2 * margins.x, height + 2 * margins.y)
        try checkFits(width: w, height: h, states: states, what: "a \(w)x\(h) window of the unbounded plane around the live cells",
                      fix: "give a bounded grid (a rule suffix such as :T4096,4096) for this rule")
        return (w, h, margins)
    }

    /// Refuses a whole board of `width` x `height` cells past `StateGrid.mostCells`, or whose
    /// working set does not fit in memory: the cells and the next generation's, and as
    /// much again while a step copies them, plus a bit a cell for where life is.
    static func checkFits(width: Int, height: Int, states: Int, what: String, fix: String) throws {
        let cells = Double(width) * Double(height)
        guard cells <= Double(StateGrid.mostCells) else {
            throw TesseraError("\(what) holds \(width)x\(height) cells, past the \(StateGrid.mostCells) a rule of this family steps as one board",
                               fix: fix)
        }
        let bytes = cells / 8 * Double(4 * StateGrid.planes(for: states) + 1)
        try MemoryBudget.check(bytes: Int(bytes), what: what, fix: fix)
    }

    /// Whether a cell of `occupied` lies within `reach` of its edge, where the next
    /// generation could be born outside it: of its top or bottom edge where `rows`, of
    /// its left or right where `columns` (a tube's window has open ends only).
    static func reachesEdge(_ occupied: BitGrid, reach: Int, rows: Bool = true, columns: Bool = true) -> Bool {
        let band = reach + 1
        if rows {
            guard occupied.height > 2 * band else { return true }
            if !occupied.isEmpty(x: 0, y: 0, width: occupied.width, height: band)
                || !occupied.isEmpty(x: 0, y: occupied.height - band, width: occupied.width, height: band) { return true }
        }
        if columns {
            guard occupied.width > 2 * band else { return true }
            if !occupied.isEmpty(x: 0, y: 0, width: band, height: occupied.height)
                || !occupied.isEmpty(x: occupied.width - band, y: 0, width: band, height: occupied.height) { return true }
        }
        return false
    }

    /// The box of the live cells of `parts` (Golly's coordinates).
    static func bounds(of parts: [PlacedCells]) -> CellBounds? {
        parts.compactMap { part in
            part.cells.liveBounds.map { CellBounds(left: part.left + $0.x, top: part.top + $0.y, width: $0.width, height: $0.height) }
        }.reduce(nil as CellBounds?) { sum, next in sum.map { $0.union(next) } ?? next }
    }

    /// The parts laid in a window around them, with room: its cells and Golly's
    /// coordinates of its top-left; nil where nothing lives. On a tube or a strip (`EdgeJoin.unboundedAlong`)
    /// the window spans exactly its `side` rows (`along.across`) or columns from Golly's
    /// −⌊side/2⌋, with room along it; cells off it are refused, as they lie nowhere
    /// on it.
    /// A `tight` window has the least room, and grows when life nears its edge: for an
    /// engine that soon goes on by HashLife, whose window serves a few generations.
    static func around(_ parts: [PlacedCells], reach: Int, states: Int, along: (across: Bool, side: Int)? = nil,
                       tight: Bool = false) throws -> (cells: BitGrid, origin: (x: Int, y: Int))? {
        guard let box = bounds(of: parts) else { return nil }
        let width: Int, height: Int, origin: (x: Int, y: Int)
        if let along {
            let first = -(along.side / 2)
            let (start, span) = along.across ? (box.top, box.height) : (box.left, box.width)
            guard start >= first, start + span <= first + along.side else {
                throw TesseraError("the pattern has cells off the grid's \(along.side) \(along.across ? "rows" : "columns") from \(first)",
                                   fix: "move the pattern onto the grid, or give a wider one")
            }
            let room = margin(reach: reach, size: along.across ? box.width : box.height)
            (width, height) = along.across ? (box.width + 2 * room, along.side) : (along.side, box.height + 2 * room)
            origin = along.across ? (box.left - room, first) : (first, box.top - room)
            try checkFits(width: width, height: height, states: states, what: "a \(width)x\(height) window of the grid",
                          fix: "run a smaller pattern")
        } else if tight {
            let room = 2 * reach + 2
            (width, height, origin) = (box.width + 2 * room, box.height + 2 * room, (box.left - room, box.top - room))
            try checkFits(width: width, height: height, states: states, what: "a \(width)x\(height) window of the unbounded plane around the live cells",
                          fix: "give a bounded grid (a rule suffix such as :T4096,4096) for this rule")
        } else {
            let window = try grown(width: box.width, height: box.height, reach: reach, states: states)
            (width, height, origin) = (window.width, window.height, (box.left - window.margins.x, box.top - window.margins.y))
        }
        var cells = BitGrid(width: width, height: height)
        for part in parts { cells.formUnion(part.cells, atX: part.left - origin.x, y: part.top - origin.y) }
        return (cells, origin)
    }
}
