import TesseraCore
import TesseraPatterns

/// The unbounded plane for an engine that steps a board whole (Generations, Larger than
/// Life): a sparse map of 64x64 tiles, each its cells' bit planes, kept where a cell is
/// in a state but 0. Memory and time follow the live cells, not their box: ships flying
/// apart from a puffer cost the ships and the puffer, not the square between them.
///
/// A generation stacks each tile that may change (one with cells, or a neighbour's
/// cells within reach of it), with a border of the cells around it as wide as the
/// neighbourhood reaches, into one board of blocks side by side in rows, and steps that
/// board once with dead edges. A cell of a block's tile reads only its own block, whose
/// border holds what lies around the tile, so the seams between blocks change nothing
/// that is kept, and the engine steps every block at its own speed in one call. Where a
/// small pattern's box grown by the reach holds fewer cells than those blocks (a ship),
/// that box is stepped as one board instead, as a window would be.
struct StackedPlane {
    static var side: Int { 64 }
    /// The widest reach a block's border holds: a block's row is two words.
    static var mostReach: Int { 32 }

    let reach: Int
    let planes: Int
    /// Tile `key`'s slot in `words`.
    private var slots: [TileKey: Int] = [:]
    private var keys: [TileKey] = []
    /// Each slot's planes: row y of plane p at word `64 (slot · planes + p) + y`, bit k
    /// the cell k columns from the tile's left.
    private var words: [UInt64] = []

    /// The most cells a box stepped as one board holds.
    var largestBox = 1 << 16

    var isEmpty: Bool { keys.isEmpty }
    var tileCount: Int { keys.count }

    /// No cells, in `planes` bit planes.
    init(planes: Int, reach: Int) {
        precondition((1...Self.mostReach).contains(reach) && planes > 0)
        (self.reach, self.planes) = (reach, planes)
    }

    /// The cells of `planes` (bit k of each cell's state) in any state but 0, their
    /// top-left cell at Golly's `origin`.
    init(planes grids: [BitGrid], origin: (x: Int, y: Int), reach: Int) {
        self.init(planes: grids.count, reach: reach)
        place(grids, origin: origin)
    }

    /// The cells of `grids` (bit k of each cell's state; as many as this plane's) in
    /// any state but 0 written over these, their top-left cell at Golly's `origin`.
    mutating func place(_ grids: [BitGrid], origin: (x: Int, y: Int)) {
        precondition(grids.count == planes)
        let (width, height, side) = (grids[0].width, grids[0].height, Self.side)
        guard width > 0, height > 0 else { return }
        var tile = [UInt64](repeating: 0, count: planes * side)
        let (first, last) = (TileKey(cellX: origin.x, y: origin.y), TileKey(cellX: origin.x + width - 1, y: origin.y + height - 1))
        for ty in first.y...last.y {
            for tx in first.x...last.x {
                let (left, top) = (tx * side - origin.x, ty * side - origin.y)
                var any: UInt64 = 0
                for p in 0..<planes {
                    for y in 0..<side {
                        tile[p * side + y] = grids[p].bits(x: left, y: top + y, count: side)
                        any |= tile[p * side + y]
                    }
                }
                guard any != 0 else { continue }
                let key = TileKey(x: tx, y: ty)
                guard let slot = slots[key] else {
                    add(key, tile[...])
                    continue
                }
                for y in 0..<side {
                    var placed: UInt64 = 0
                    for p in 0..<planes { placed |= tile[p * side + y] }
                    for p in 0..<planes {
                        let at = (slot * planes + p) * side + y
                        words[at] = words[at] & ~placed | tile[p * side + y]
                    }
                }
            }
        }
    }

    /// The cells of a quadtree of states (`Pattern.stateTree`), each in its state,
    /// written over these: tile by tile as its squares lie, never a grid of its box.
    mutating func place(_ squares: StateQuadTree) {
        guard let root = squares.nodes.last else { return }
        var last: (key: TileKey, slot: Int)?
        func visit(_ number: UInt32, _ level: Int, _ x: Int, _ y: Int) {
            let node = squares.nodes[Int(number) - 1]
            guard level > 1 else {
                for i in 0..<4 where node.children[i] != 0 { set(x + (i & 1), y + (i >> 1), Int(node.children[i])) }
                return
            }
            let half = 1 << (level - 1)
            for i in 0..<4 where node.children[i] != 0 {
                visit(node.children[i], level - 1, x + (i & 1) * half, y + (i >> 1) * half)
            }
        }
        func set(_ x: Int, _ y: Int, _ state: Int) {
            let key = TileKey(cellX: x, y: y)
            if last?.key != key {
                if slots[key] == nil { add(key, [UInt64](repeating: 0, count: planes * Self.side)[...]) }
                last = (key, slots[key]!)
            }
            let (row, bit) = (y - key.y * Self.side, UInt64(1) << UInt64(x - key.x * Self.side))
            for p in 0..<planes {
                let at = (last!.slot * planes + p) * Self.side + row
                words[at] = state >> p & 1 != 0 ? words[at] | bit : words[at] & ~bit
            }
        }
        visit(UInt32(squares.nodes.count), root.level, squares.left, squares.top)
    }

    private mutating func add(_ key: TileKey, _ tile: ArraySlice<UInt64>) {
        slots[key] = keys.count
        keys.append(key)
        words.append(contentsOf: tile)
    }

    // MARK: Stepping

    /// One generation by `step`, which steps a board of these planes with dead edges
    /// and gives the next generation's planes.
    mutating func advance(by step: ([BitGrid]) throws -> [BitGrid]) throws {
        let due = dueTiles()
        guard !due.isEmpty else { return }
        let (side, r, planes) = (Self.side, reach, self.planes)
        let block = side + 2 * r
        // A small pattern's box, grown by the reach, may hold fewer cells than its tiles'
        // blocks: then that box is the board (a ship astride four tiles). Past a few
        // tiles, reading the box out of the tiles and back costs more than the borders.
        if let box = bounds, box.width <= largestBox, box.height <= largestBox,
           (box.width + 2 * r) * (box.height + 2 * r) <= min(due.count * block * block, largestBox) {
            let area = CellBounds(left: box.left - r, top: box.top - r, width: box.width + 2 * r, height: box.height + 2 * r)
            var next = StackedPlane(planes: try step(self.planes(in: area)), origin: (area.left, area.top), reach: r)
            next.largestBox = largestBox
            self = next
            return
        }
        // The tiles as they are and as they will be, and the board of blocks twice over.
        try MemoryBudget.check(bytes: 2 * words.count * 8 + 2 * due.count * planes * (block * block / 8 + 16),
                               what: "a step of the unbounded plane's \(due.count) tiles of \(Self.side)x\(Self.side) cells",
                               fix: "give the rule a bounded grid (a suffix such as :T4096,4096), or fewer generations")
        // Blocks side by side in rows some 2048 cells wide: long rows, as the kernels
        // like them, and few words that are part border.
        let perRow = max(1, min(due.count, Self.rowCells / block))
        let (width, height) = (perRow * block, (due.count + perRow - 1) / perRow * block)
        let stride = (width + 63) / 64
        // The slots of the 3x3 tiles around each (-1: none), row by row of tiles.
        var around = [Int](repeating: -1, count: 9 * due.count)
        for (k, key) in due.enumerated() {
            // (Not `TileKey.neighbour`: its division by 3 across modules made Sawfish's
            // 5000 generations 8% slower.)
            for dy in -1...1 {
                for dx in -1...1 { around[9 * k + 3 * (dy + 1) + dx + 1] = slots[TileKey(x: key.x + dx, y: key.y + dy)] ?? -1 }
            }
        }
        var stacked = (0..<planes).map { _ in BitGrid(width: width, height: height) }
        let (shift, back) = (UInt64(r), UInt64(64 - r))
        let borderMask = BitCopy.bits(from: 0, to: 2 * r)
        let blank = [UInt64](repeating: 0, count: side)
        blank.withUnsafeBufferPointer { blank in
            words.withUnsafeBufferPointer { tiles in
                for p in 0..<planes {
                    stacked[p].withUnsafeMutableWords { out in
                        func plane(_ k: Int, _ i: Int) -> UnsafePointer<UInt64> {
                            let slot = around[9 * k + i]
                            return slot < 0 ? blank.baseAddress! : tiles.baseAddress! + (slot * planes + p) * side
                        }
                        for k in 0..<due.count {
                            let column = k % perRow * block
                            var at = k / perRow * block * stride
                            // The block's rows: r from the tiles above, the tile's, r from those below.
                            for (band, rows) in [(0, side - r..<side), (3, 0..<side), (6, 0..<r)] {
                                let (west, centre, east) = (plane(k, band), plane(k, band + 1), plane(k, band + 2))
                                for y in rows {
                                    Self.put(centre[y] &<< shift | west[y] &>> back, into: out, at: at, bit: column)
                                    Self.put((centre[y] &>> back | east[y] &<< shift) & borderMask, into: out, at: at, bit: column &+ 64)
                                    at &+= stride
                                }
                            }
                        }
                    }
                }
            }
        }
        let result = try step(stacked)
        var (nextSlots, nextKeys, nextWords) = ([TileKey: Int](minimumCapacity: due.count), [TileKey](), [UInt64]())
        nextKeys.reserveCapacity(due.count)
        nextWords.reserveCapacity(words.count + side * planes * 8)
        var tile = [UInt64](repeating: 0, count: planes * side)
        for (k, key) in due.enumerated() {
            var any: UInt64 = 0
            let column = k % perRow * block + r
            for p in 0..<planes {
                result[p].words.withUnsafeBufferPointer { stepped in
                    var at = (k / perRow * block + r) * stride
                    for y in 0..<side {
                        let word = Self.take(stepped, at: at, bit: column)
                        tile[p * side + y] = word
                        any |= word
                        at += stride
                    }
                }
            }
            guard any != 0 else { continue }
            nextSlots[key] = nextKeys.count
            nextKeys.append(key)
            nextWords.append(contentsOf: tile)
        }
        (slots, keys, words) = (nextSlots, nextKeys, nextWords)
    }

    /// About how wide the stacked board is.
    private static var rowCells: Int { 2048 }

    /// `value` set into the row at word `at` from bit `bit` on (the bits there clear).
    @inline(__always)
    private static func put(_ value: UInt64, into row: UnsafeMutableBufferPointer<UInt64>, at: Int, bit: Int) {
        let (word, offset) = (at &+ bit &>> 6, UInt64(bit & 63))
        row[word] |= value &<< offset
        if offset != 0, value &>> (64 &- offset) != 0 { row[word &+ 1] |= value &>> (64 &- offset) }
    }

    /// The 64 bits of the row at word `at` from bit `bit` on.
    @inline(__always)
    private static func take(_ row: UnsafeBufferPointer<UInt64>, at: Int, bit: Int) -> UInt64 {
        let (word, offset) = (at &+ bit &>> 6, UInt64(bit & 63))
        return offset == 0 ? row[word] : row[word] &>> offset | row[word &+ 1] &<< (64 &- offset)
    }

    /// The tiles that may change this generation: each with cells, and each neighbour
    /// with one of them within reach of its side or corner.
    private func dueTiles() -> [TileKey] {
        let (side, r) = (Self.side, reach)
        var due = keys
        var seen = Set(keys)
        let westMask: UInt64 = (1 << UInt64(r)) - 1, eastMask = westMask << UInt64(side - r)
        words.withUnsafeBufferPointer { tiles in
            for (slot, key) in keys.enumerated() {
                // The tile's cells in any state but 0 where they reach each side.
                var (north, south, columns, northColumns, southColumns): (Bool, Bool, UInt64, UInt64, UInt64) = (false, false, 0, 0, 0)
                let tile = tiles.baseAddress! + slot * planes * side
                for y in 0..<side {
                    var cells: UInt64 = 0
                    for p in 0..<planes { cells |= tile[p * side + y] }
                    columns |= cells
                    if y < r, cells != 0 { (north, northColumns) = (true, northColumns | cells) }
                    if y >= side - r, cells != 0 { (south, southColumns) = (true, southColumns | cells) }
                }
                func reaches(_ dx: Int, _ dy: Int) {
                    let neighbour = TileKey(x: key.x + dx, y: key.y + dy)
                    if seen.insert(neighbour).inserted { due.append(neighbour) }
                }
                if north { reaches(0, -1) }
                if south { reaches(0, 1) }
                if columns & westMask != 0 { reaches(-1, 0) }
                if columns & eastMask != 0 { reaches(1, 0) }
                if northColumns & westMask != 0 { reaches(-1, -1) }
                if northColumns & eastMask != 0 { reaches(1, -1) }
                if southColumns & westMask != 0 { reaches(-1, 1) }
                if southColumns & eastMask != 0 { reaches(1, 1) }
            }
        }
        return due
    }

    // MARK: Reading

    /// Calls `body` with each tile's key and its cells in any state but 0, row by row.
    private func forEachTile(_ body: (TileKey, _ occupiedRow: (Int) -> UInt64) -> Void) {
        for (slot, key) in keys.enumerated() { body(key) { occupied(slot: slot, row: $0) } }
    }

    /// The cells in any state but 0.
    var population: Int {
        var count = 0
        forEachTile { _, row in for y in 0..<Self.side { count += row(y).nonzeroBitCount } }
        return count
    }

    /// The box of the cells in any state but 0, in Golly's coordinates.
    var bounds: CellBounds? {
        var (left, top, right, bottom) = (Int.max, Int.max, Int.min, Int.min)
        forEachTile { key, row in
            var columns: UInt64 = 0
            for y in 0..<Self.side {
                let cells = row(y)
                guard cells != 0 else { continue }
                columns |= cells
                top = min(top, key.y * Self.side + y)
                bottom = max(bottom, key.y * Self.side + y + 1)
            }
            left = min(left, key.x * Self.side + columns.trailingZeroBitCount)
            right = max(right, key.x * Self.side + 64 - columns.leadingZeroBitCount)
        }
        guard left <= right else { return nil }
        return CellBounds(left: left, top: top, width: right - left, height: bottom - top)
    }

    /// The bit planes of the cells of Golly's rectangle `area`.
    func planes(in area: CellBounds) -> [BitGrid] {
        let side = Self.side
        var grids = (0..<planes).map { _ in BitGrid(width: area.width, height: area.height) }
        for (slot, key) in keys.enumerated() {
            let (left, top) = (key.x * side, key.y * side)
            guard left < area.left + area.width, left + side > area.left, top < area.top + area.height, top + side > area.top else { continue }
            for p in 0..<planes {
                for y in max(top, area.top)..<min(top + side, area.top + area.height) {
                    grids[p].insertBits(words[(slot * planes + p) * side + y - top], count: side, x: left - area.left, y: y - area.top)
                }
            }
        }
        return grids
    }

    /// The tiles as parts of two-state cells (any state but 0 alive), in Golly's
    /// coordinates, each cut to its live cells' box.
    var parts: [PlacedCells] {
        var parts: [PlacedCells] = []
        forEachTile { key, row in
            let cells = BitGrid(width: Self.side, height: Self.side, words: (0..<Self.side).map(row))
            if let part = PlacedCells(trimming: cells, left: key.x * Self.side, top: key.y * Self.side) { parts.append(part) }
        }
        return parts
    }

    /// Calls `body` with the column and state of each cell of Golly's row `y` in a state
    /// but 0, from west to east; `columns` the tiles' columns of each row of tiles, sorted.
    func forEachCell(inRow y: Int, columns: [Int: [Int]], _ body: (Int, Int) -> Void) {
        let side = Self.side, ty = TileKey(cellX: 0, y: y).y, row = y - ty * side
        for tx in columns[ty] ?? [] {
            guard let slot = slots[TileKey(x: tx, y: ty)] else { continue }
            var occupied = occupied(slot: slot, row: row)
            while occupied != 0 {
                let bit = occupied.trailingZeroBitCount
                occupied &= occupied - 1
                body(tx * side + bit, state(slot: slot, row: row, bit: bit))
            }
        }
    }

    /// Calls `body` with the column, row and state of each cell of Golly's rectangle
    /// `area` in a state but 0, tile by tile: what a frame reads, never more than the
    /// cells under it.
    func forEachCell(in area: CellBounds, _ body: (Int, Int, Int) -> Void) {
        for (slot, key) in keys.enumerated() { forEachCell(ofSlot: slot, key, in: area, body) }
    }

    /// The same for the tile `key` in `slot` alone.
    private func forEachCell(ofSlot slot: Int, _ key: TileKey, in area: CellBounds, _ body: (Int, Int, Int) -> Void) {
        let side = Self.side
        let (left, top) = (key.x * side, key.y * side)
        let (x0, x1) = (max(left, area.left), min(left + side, area.right))
        let (y0, y1) = (max(top, area.top), min(top + side, area.bottom))
        guard x0 < x1, y0 < y1 else { return }
        let columns = BitCopy.bits(from: x0 - left, to: x1 - left)
        for y in y0..<y1 {
            var occupied = occupied(slot: slot, row: y - top) & columns
            while occupied != 0 {
                let bit = occupied.trailingZeroBitCount
                occupied &= occupied - 1
                body(left + bit, y, state(slot: slot, row: y - top, bit: bit))
            }
        }
    }

    /// Calls `body` with the column and row of each dot of `view` (Golly's coordinates)
    /// over a cell in a state but 0, and a state under it; the lowest of the states a
    /// dot is called with is the lowest under it. A tile that lies under one dot is read
    /// only until a cell in state 1: zoomed out, a frame costs the tiles in view, not
    /// their cells.
    func forEachDot(in view: Viewport, _ body: (Int, Int, Int) -> Void) {
        let (side, z) = (Self.side, view.cellsPerDot)
        let area = CellBounds(left: view.x, top: view.y, width: view.width * z, height: view.height * z)
        for (slot, key) in keys.enumerated() {
            let (left, top) = (key.x * side - view.x, key.y * side - view.y)
            let (column, row) = (floorDiv(left, z), floorDiv(top, z))
            // A tile across dots, cell by cell.
            guard column == floorDiv(left + side - 1, z), row == floorDiv(top + side - 1, z) else {
                forEachCell(ofSlot: slot, key, in: area) { x, y, state in body((x - view.x) / z, (y - view.y) / z, state) }
                continue
            }
            guard (0..<view.width).contains(column), (0..<view.height).contains(row) else { continue }
            var lowest = Int.max
            rows: for y in 0..<side {
                var occupied = occupied(slot: slot, row: y)
                while occupied != 0 {
                    lowest = min(lowest, state(slot: slot, row: y, bit: occupied.trailingZeroBitCount))
                    if lowest == 1 { break rows }
                    occupied &= occupied - 1
                }
            }
            body(column, row, lowest)
        }
    }

    /// The cells as a macrocell's squares, read tile by tile, never as a grid of their
    /// box: whether a rectangle is empty from the tiles in its rows of tiles (found by
    /// halving), a cell's state from its tile.
    func squares() -> StateQuadTree {
        guard let box = bounds else { return StateQuadTree(nodes: [], left: 0, top: 0) }
        let side = Self.side
        let index = columnsByRow.sorted { $0.key < $1.key }
        let rows = index.map(\.key)
        /// The first place in `sorted` holding `value` or more.
        func firstAtLeast(_ value: Int, in sorted: [Int]) -> Int {
            var (low, high) = (0, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < value { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return Macrocell.squares(span: box, isEmpty: { rect in
            let (first, last) = (TileKey(cellX: rect.left, y: rect.top), TileKey(cellX: rect.right - 1, y: rect.bottom - 1))
            var i = firstAtLeast(first.y, in: rows)
            while i < rows.count, rows[i] <= last.y {
                let (ty, columns) = (rows[i], index[i].value)
                let (y0, y1) = (max(rect.top - ty * side, 0), min(rect.bottom - ty * side, side))
                var j = firstAtLeast(first.x, in: columns)
                while j < columns.count, columns[j] <= last.x {
                    let tx = columns[j]
                    let (x0, x1) = (max(rect.left - tx * side, 0), min(rect.right - tx * side, side))
                    let mask = BitCopy.bits(from: x0, to: x1)
                    let slot = slots[TileKey(x: tx, y: ty)]!
                    for y in y0..<y1 where occupied(slot: slot, row: y) & mask != 0 { return false }
                    j += 1
                }
                i += 1
            }
            return true
        }, state: { x, y in
            let key = TileKey(cellX: x, y: y)
            guard let slot = slots[key] else { return 0 }
            return state(slot: slot, row: y - key.y * side, bit: x - key.x * side)
        })
    }

    /// Row `y`'s cells in a state but 0 of the tile in `slot`.
    private func occupied(slot: Int, row y: Int) -> UInt64 {
        var cells: UInt64 = 0
        for p in 0..<planes { cells |= words[(slot * planes + p) * Self.side + y] }
        return cells
    }

    /// The state of the cell at bit `bit` of row `y` of the tile in `slot`.
    private func state(slot: Int, row y: Int, bit: Int) -> Int {
        var state = 0
        for p in 0..<planes { state |= Int(words[(slot * planes + p) * Self.side + y] >> UInt64(bit) & 1) << p }
        return state
    }

    /// The tiles' columns in each row of tiles, west to east.
    var columnsByRow: [Int: [Int]] {
        var columns: [Int: [Int]] = [:]
        for key in keys { columns[key.y, default: []].append(key.x) }
        for y in columns.keys { columns[y]!.sort() }
        return columns
    }
}
