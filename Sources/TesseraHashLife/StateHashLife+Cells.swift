import TesseraCore

/// What a run reads of the squares without making their cells: the population, a row's
/// cells, a viewer's dots, and the squares as Golly would write them.
extension StateHashLife {
    /// The cells in a state but 0, each distinct square counted once.
    package mutating func population() -> Int {
        _ = empty(level)
        var counts: [UInt32: Int] = [:]
        return count(root, level, &counts)
    }

    private func count(_ square: UInt32, _ level: Int, _ counts: inout [UInt32: Int]) -> Int {
        if square == empties[level] { return 0 }
        if let known = counts[square] { return known }
        let q = quadrants[Int(square)]
        var total = 0
        for i in 0..<4 { total += level == 1 ? (q[i] != 0 ? 1 : 0) : count(q[i], level - 1, &counts) }
        counts[square] = total
        return total
    }

    /// Each cell in a state but 0 in row `y` (Golly's), from west to east: its x and state.
    package mutating func forEachCell(inRow y: Int, _ body: (Int, Int) -> Void) {
        _ = empty(level)
        guard y >= top, y < top + (1 << level) else { return }
        cells(inRow: y, root, level, left, top, body)
    }

    private func cells(inRow y: Int, _ square: UInt32, _ level: Int, _ x: Int, _ squareTop: Int, _ body: (Int, Int) -> Void) {
        if square == empties[level] { return }
        let q = quadrants[Int(square)]
        if level == 1 {
            let row = 2 * (y - squareTop)
            for i in 0..<2 where q[row + i] != 0 { body(x + i, Int(q[row + i])) }
            return
        }
        let half = 1 << (level - 1)
        let upper = y < squareTop + half
        let (west, east, rowTop) = upper ? (q[0], q[1], squareTop) : (q[2], q[3], squareTop + half)
        cells(inRow: y, west, level - 1, x, rowTop, body)
        cells(inRow: y, east, level - 1, x + half, rowTop, body)
    }

    /// A viewer's dots (`Viewport`, in Golly's coordinates): lit where a cell under one is
    /// in a state but 0 (`stateDots`).
    package mutating func dots(in view: Viewport) -> BitGrid {
        BitGrid(litWhereNonZero: stateDots(in: view), width: view.width, height: view.height)
    }

    /// A frame's dots in states, a byte a dot (`StateGrid.stateDots`): the lowest state
    /// but 0 under each, each distinct square's lowest found once. A square wholly under
    /// one dot gives it its lowest state without being opened.
    package mutating func stateDots(in view: Viewport) -> [UInt8] {
        _ = empty(level)
        var dots = [UInt8](repeating: 0, count: view.width * view.height), lowest: [UInt32: UInt8] = [:]
        paint(root, level, left, top, view, &dots, &lowest)
        return dots
    }

    private func paint(_ square: UInt32, _ level: Int, _ x: Int, _ y: Int, _ view: Viewport, _ dots: inout [UInt8],
                       _ lowest: inout [UInt32: UInt8]) {
        if square == empties[level] { return }
        let area = TileRect(x: x, y: y, width: 1 << level, height: 1 << level)
        func mark(_ column: Int, _ row: Int, _ state: UInt8) {
            let i = row * view.width + column
            if dots[i] == 0 || state < dots[i] { dots[i] = state }
        }
        if let (column, row) = view.dot(holding: area) {
            return mark(column, row, lowestState(square, level, &lowest))
        }
        guard view.dots(covering: area) != nil else { return }
        let q = quadrants[Int(square)]
        if level == 1 {
            for i in 0..<4 where q[i] != 0 {
                if let (column, row) = view.dots(covering: TileRect(x: x + (i & 1), y: y + (i >> 1), width: 1, height: 1)) {
                    mark(column.lowerBound, row.lowerBound, UInt8(clamping: q[i]))
                }
            }
            return
        }
        let half = area.width / 2
        for i in 0..<4 { paint(q[i], level - 1, x + (i & 1) * half, y + (i >> 1) * half, view, &dots, &lowest) }
    }

    /// The lowest state but 0 in a square that holds one.
    private func lowestState(_ square: UInt32, _ level: Int, _ lowest: inout [UInt32: UInt8]) -> UInt8 {
        if let known = lowest[square] { return known }
        let q = quadrants[Int(square)]
        var found = UInt8.max
        for i in 0..<4 {
            if level == 1 {
                if q[i] != 0 { found = min(found, UInt8(clamping: q[i])) }
            } else if q[i] != empties[level - 1] {
                found = min(found, lowestState(q[i], level - 1, &lowest))
            }
        }
        lowest[square] = found
        return found
    }

    /// The squares as Golly writes them (`Macrocell.string(forStateSquares:)`): rooted at
    /// the smallest square of level 2 or more that holds the cells where Golly roots one,
    /// children first. A square off Golly's grid is made from the stored squares it
    /// straddles, memoised by them, so a machine's repeats stay shared.
    package mutating func gollySquares() -> StateQuadTree {
        guard let live = liveBounds() else { return StateQuadTree(nodes: [], left: 0, top: 0) }
        let span = CellBounds(left: live.x, top: live.y, width: live.width, height: live.height)
        let target = QuadTree.gollyRootLevel(holding: span, least: 2), side = 1 << target
        let (rootLeft, rootTop) = QuadTree.gollyRootCorner(level: target)
        // Grown until the root holds Golly's root square with a level to spare, so the
        // squares of its level that Golly's straddles all lie within.
        while level <= target || rootLeft < left || rootTop < top
                || rootLeft - left + side > 1 << level || rootTop - top + side > 1 << level {
            pad()
        }
        let (dx, dy) = (rootLeft - left, rootTop - top)
        var made: [Int: [SIMD4<UInt32>: UInt32]] = [:]
        let (cx, cy) = (dx >> target, dy >> target)
        let square = shifted(target, SIMD4(source(target, cx, cy), source(target, cx + 1, cy), source(target, cx, cy + 1),
                                           source(target, cx + 1, cy + 1)), dx: dx, dy: dy, &made)
        var nodes: [StateQuadTree.Node] = [], numbers: [UInt32: Int] = [:]
        func write(_ square: UInt32, _ level: Int) -> UInt32 {
            if square == empties[level] { return 0 }
            if let known = numbers[square] { return UInt32(known) }
            let q = quadrants[Int(square)]
            let children = level == 1 ? q : SIMD4(write(q[0], level - 1), write(q[1], level - 1), write(q[2], level - 1),
                                                   write(q[3], level - 1))
            nodes.append(StateQuadTree.Node(level: level, children: children))
            numbers[square] = nodes.count
            return UInt32(nodes.count)
        }
        _ = empty(target)
        _ = write(square, target)
        return StateQuadTree(nodes: nodes, left: rootLeft, top: rootTop)
    }

    /// The square of `level` at column `x`, row `y` of the root's squares of that level;
    /// the empty square outside the root.
    private mutating func source(_ level: Int, _ x: Int, _ y: Int) -> UInt32 {
        let across = 1 << (self.level - level)
        guard x < across, y < across else { return empty(level) }
        var square = root
        for below in stride(from: self.level - 1, through: level, by: -1) {
            let bit = below - level
            square = quadrants[Int(square)][(x >> bit & 1) + 2 * (y >> bit & 1)]
        }
        return square
    }

    /// The square of `level` whose top-left cell lies (dx, dy) mod 2^level into the first
    /// of `four` stored squares side by side (nw, ne, sw, se).
    private mutating func shifted(_ level: Int, _ four: SIMD4<UInt32>, dx: Int, dy: Int,
                                  _ made: inout [Int: [SIMD4<UInt32>: UInt32]]) -> UInt32 {
        let mask = (1 << level) - 1
        let (ox, oy) = (dx & mask, dy & mask)
        if ox == 0 && oy == 0 { return four[0] }
        let empty = self.empty(level)
        if four == SIMD4(repeating: empty) { return empty }
        if let known = made[level]?[four] { return known }
        // The 4x4 squares (or cells) a level down, and where this square's quadrants start.
        let q = (0..<4).map { quadrants[Int(four[$0])] }
        let grid = [[q[0][0], q[0][1], q[1][0], q[1][1]], [q[0][2], q[0][3], q[1][2], q[1][3]],
                    [q[2][0], q[2][1], q[3][0], q[3][1]], [q[2][2], q[2][3], q[3][2], q[3][3]]]
        let result: UInt32
        if level == 1 {
            result = make(1, SIMD4(grid[oy][ox], grid[oy][ox + 1], grid[oy + 1][ox], grid[oy + 1][ox + 1]))
        } else {
            let (column, row) = (ox >> (level - 1), oy >> (level - 1))
            var parts = SIMD4<UInt32>()
            for (i, (x, y)) in [(column, row), (column + 1, row), (column, row + 1), (column + 1, row + 1)].enumerated() {
                parts[i] = shifted(level - 1, SIMD4(grid[y][x], grid[y][x + 1], grid[y + 1][x], grid[y + 1][x + 1]), dx: dx, dy: dy, &made)
            }
            result = make(level, parts)
        }
        made[level, default: [:]][four] = result
        return result
    }
}

