import TesseraCore

extension HashLife {
    /// The live cells as the quadtree Golly writes to a macrocell file: rooted at the
    /// smallest square, centred as Golly centres it, that holds them all, its nodes
    /// children first and each distinct square once, in the order bgolly writes them.
    /// Built from the squares as they are: a square that repeats is shifted onto
    /// Golly's grid once (memoised by the squares it straddles), so a metapixel's 10^8
    /// cells cost its thousands of squares. Nil when the cells lie too near the edge of
    /// Tessera's coordinates for a root with room around it.
    public mutating func quadTree() -> QuadTree? {
        guard let span = bounds else { return QuadTree(nodes: [], left: 0, top: 0) }
        let target = QuadTree.gollyRootLevel(holding: span), side = 1 << target
        let (rootLeft, rootTop) = QuadTree.gollyRootCorner(level: target)
        // Grown until the root holds Golly's root square with a level to spare, so the
        // squares of its level that Golly's straddles all lie within.
        while level <= target || rootLeft < left || rootTop < top
                || rootLeft - left + side > 1 << level || rootTop - top + side > 1 << level {
            guard (try? expand()) != nil else { return nil }
        }
        let (dx, dy) = (rootLeft - left, rootTop - top)
        var shifted = Shifter(dx: dx, dy: dy)
        let corner = (dx >> target, dy >> target)
        let square = shifted.square(target, source(target, corner.0, corner.1), source(target, corner.0 + 1, corner.1),
                                 source(target, corner.0, corner.1 + 1), source(target, corner.0 + 1, corner.1 + 1), in: &store)
        // Children first, each distinct square once (squares are stored once, so an
        // index is a square's content).
        var nodes: [QuadTree.Node] = [], numbers: [UInt32: Int] = [:]
        func write(_ index: UInt32, level: Int) -> Int {
            if index == store.empty(level) { return 0 }
            if let known = numbers[index] { return known }
            if level == 3 {
                nodes.append(.leaf(store.cells(ofLeaf: index)))
            } else {
                let node = store[index]
                let children = [node.nw, node.ne, node.sw, node.se].map { write($0, level: level - 1) }
                nodes.append(.branch(level: level, children: children))
            }
            numbers[index] = nodes.count
            return nodes.count
        }
        _ = write(square, level: target)
        return QuadTree(nodes: nodes, left: rootLeft, top: rootTop)
    }

    /// The square of `level` at column `x`, row `y` of the root's squares of that
    /// level; the empty square outside the root.
    private mutating func source(_ level: Int, _ x: Int, _ y: Int) -> UInt32 {
        let across = 1 << (self.level - level)
        guard x < across, y < across else { return store.empty(level) }
        var index = root
        for below in stride(from: self.level - 1, through: level, by: -1) {
            let bit = below - level
            let node = store[index]
            switch (x >> bit & 1, y >> bit & 1) {
            case (0, 0): index = node.nw
            case (1, 0): index = node.ne
            case (0, _): index = node.sw
            default: index = node.se
            }
        }
        return index
    }
}

/// Squares of a grid shifted by (dx, dy) cells from the stored squares' grid: each is
/// made from the 2x2 stored squares of its level it straddles, memoised by them.
private struct Shifter {
    let dx: Int, dy: Int
    private struct Four: Hashable { let nw, ne, sw, se: UInt32 }
    private var made: [Int: [Four: UInt32]] = [:]

    init(dx: Int, dy: Int) { (self.dx, self.dy) = (dx, dy) }

    /// The square of `level` whose top-left cell lies (dx, dy) mod 2^level into `nw`,
    /// which with `ne`, `sw` and `se` are stored squares side by side.
    mutating func square(_ level: Int, _ nw: UInt32, _ ne: UInt32, _ sw: UInt32, _ se: UInt32, in store: inout NodeStore) -> UInt32 {
        let mask = (1 << level) - 1
        let (ox, oy) = (dx & mask, dy & mask)
        if ox == 0 && oy == 0 { return nw }
        let empty = store.empty(level)
        if nw == empty && ne == empty && sw == empty && se == empty { return empty }
        let key = Four(nw: nw, ne: ne, sw: sw, se: se)
        if let known = made[level]?[key] { return known }
        let result: UInt32
        if level == 3 {
            let cells = [nw, ne, sw, se].map { store.cells(ofLeaf: $0) }
            var bits: UInt64 = 0
            for r in 0..<8 {
                let row = oy + r
                let (west, east) = row < 8 ? (cells[0], cells[1]) : (cells[2], cells[3])
                let line = (west >> UInt64(row % 8 * 8) & 0xFF) | (east >> UInt64(row % 8 * 8) & 0xFF) << 8
                bits |= (line >> UInt64(ox) & 0xFF) << UInt64(r * 8)
            }
            result = store.leaf(bits)
        } else {
            // The 4x4 squares a level down, and where this square's quadrants start among them.
            let (a, b, c, d) = (store[nw], store[ne], store[sw], store[se])
            let grid = [[a.nw, a.ne, b.nw, b.ne], [a.sw, a.se, b.sw, b.se], [c.nw, c.ne, d.nw, d.ne], [c.sw, c.se, d.sw, d.se]]
            let (column, row) = (ox >> (level - 1), oy >> (level - 1))
            var quadrants: [UInt32] = []
            for (j, i) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let (x, y) = (column + i, row + j)
                quadrants.append(square(level - 1, grid[y][x], grid[y][x + 1], grid[y + 1][x], grid[y + 1][x + 1], in: &store))
            }
            result = store.find(quadrants[0], quadrants[1], quadrants[2], quadrants[3])
        }
        made[level, default: [:]][key] = result
        return result
    }
}
