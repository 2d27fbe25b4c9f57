import CTesseraKernel

/// Golly's unbounded plane as a sparse map of 64x64 tiles: a tile exists only where
/// cells are alive or may be born next, is made when life reaches its edge and
/// dropped once it and the edges around it are dead. Memory and time follow the live
/// cells, never the pattern's extent: two gliders a billion cells apart cost two
/// gliders.
///
/// Each tile keeps two generations, the present one and the one before, and steps
/// only when something in its 3x3 neighbourhood changed since the generation before
/// last: then the cells it would compute are the ones it already holds (the older
/// buffer), so still lifes and period-2 oscillators cost nothing, as in Golly's
/// QuickLife. Within a tile that steps, the same holds row by row: the kernel steps
/// only rows near a cell that changed (`tessera_tile_changes`), and whatever sets
/// cells otherwise (`add`, `crop`) records the tiles it touched as changed everywhere.
///
/// Invariants, before every step: a tile whose present cells touch an edge has the
/// neighbour across it (so every birth lands in a tile); a missing tile is dead in
/// both generations; a tile not due to step holds the next generation in its older
/// buffer already.
///
/// A bounded grid is the same map clipped at its edges (Golly's `:P`) or wrapped
/// around them (`:T`, whose sides are then whole tiles): tiles lie at whole tiles from
/// its top-left cell, and none beyond it.
///
/// Owned by one actor and never shared; deliberately not `Sendable`.
public final class SparsePlane {
    public let rule: Rule
    /// The bounded grid, nil on the unbounded plane.
    public let board: BoardShape?
    /// Golly's cell at the top-left of tile (0, 0).
    private let origin: (x: Int, y: Int)
    /// The rules the kernel applies to the cells as stored, by the generation's parity.
    private let steps: Rule.Steps
    public private(set) var generation: UInt64
    public let implementation: Kernel.Implementation
    private let store: TileStore
    /// The tiles due to step next.
    @exclusivity(unchecked) private var due: [Int32] = []
    /// Tiles whose older generation is not known (loaded cells), or whose neighbours
    /// were cropped away: their first step counts as a change everywhere.
    @exclusivity(unchecked) private var unsure: Set<Int32> = []
    /// `store.marks[slot] == stamp + 1` when the slot is already in the next `due`.
    @exclusivity(unchecked) private var stamp: UInt64 = 0
    private let zero: UnsafeMutablePointer<UInt64>
    /// The list `due` was, kept for its storage.
    @exclusivity(unchecked) private var wasDue: [Int32] = []
    /// What `Work` reads and writes: the due tiles and their reports.
    @exclusivity(unchecked) private var scratchDue: UnsafeMutablePointer<Int32> = .allocate(capacity: 0)
    @exclusivity(unchecked) private var scratchReports: UnsafeMutablePointer<UInt32> = .allocate(capacity: 0)
    private var scratchCapacity = 0
    /// Tiles stepped so far, one generation each: what the plane's time follows.
    public private(set) var tilesStepped = 0

    /// An empty plane: the unbounded one, or the bounded grid `board` (see `holds`).
    public init(rule: Rule, board: BoardShape? = nil, generation: UInt64 = 0,
                implementation: Kernel.Implementation = Kernel.best) throws {
        if let board {
            guard let space = Self.space(of: board, rule: rule) else {
                throw TesseraError("a \(board) board under \(rule) is not a sparse map of tiles",
                                   fix: "step it as a dense board")
            }
            store = TileStore(space: space)
            origin = (board.left, board.top)
        } else {
            store = TileStore()
            origin = (0, 0)
        }
        try implementation.checkSupported()
        (self.rule, self.board, self.generation, self.implementation) = (rule, board, generation, implementation)
        // B0: Golly keeps the cells inverted (with S8), or inverted at odd generations
        // (without), and steps them by rules without B0, so an empty tile stays empty.
        steps = rule.steps
        zero = .allocate(capacity: TileStore.words)
        zero.initialize(repeating: 0, count: TileStore.words)
    }

    /// `parts` (Golly's coordinates) at `generation`.
    public convenience init(parts: [PlacedCells], rule: Rule, board: BoardShape? = nil, generation: UInt64 = 0,
                            implementation: Kernel.Implementation = Kernel.best) throws {
        try self.init(rule: rule, board: board, generation: generation, implementation: implementation)
        for part in parts { add(part) }
    }

    /// Whether a sparse map holds the bounded grid `board` under `rule`: a 3x3 rule without
    /// B0 (with it, empty cells are born, and a missing tile is not dead), on a plane
    /// or on a torus whose sides are whole tiles.
    public static func holds(_ board: BoardShape, rule: Rule) -> Bool { space(of: board, rule: rule) != nil }

    /// Where the tiles of `board` lie, where a sparse map holds it (`holds`).
    private static func space(of board: BoardShape, rule: Rule) -> TileSpace? {
        guard board.topology != .infinite, board.edges == nil, rule.isTwoStateMoore, rule.emulation == .none else { return nil }
        return TileSpace(width: board.width, height: board.height, wraps: board.topology == .torus)
    }

    deinit {
        zero.deallocate()
        scratchDue.deallocate()
        scratchReports.deallocate()
    }

    /// Tiles present.
    public var tileCount: Int { store.count }

    /// Tiles due to step next.
    public var dueCount: Int { due.count }

    private var parity: Int { Int(generation & 1) }

    // MARK: Cells in

    /// Brings `part`'s live cells (Golly's coordinates) to life, on top of what lives;
    /// on a bounded grid, those on it.
    public func add(_ part: PlacedCells) {
        let cells = part.cells
        guard cells.width > 0, cells.height > 0 else { return }
        let (left, top) = (part.left - origin.x, part.top - origin.y)
        let first = TileKey(cellX: left, y: top)
        let last = TileKey(cellX: left + cells.width - 1, y: top + cells.height - 1)
        var touched: [Int32] = []
        for ty in first.y...last.y {
            for tx in first.x...last.x {
                let key = TileKey(x: tx, y: ty)
                guard store.space.contains(key) else { continue }
                let (x0, y0) = (tx << 6, ty << 6)
                let mask = store.space.mask(of: key).map(store.space.words(of:))
                var words = [UInt64](repeating: 0, count: TileStore.words)
                var any: UInt64 = 0
                for r in max(0, top - y0)..<min(64, top + cells.height - y0) {
                    words[r] = cells.bits(x: x0 - left, y: y0 + r - top, count: 64) & (mask?[r] ?? ~0)
                    any |= words[r]
                }
                guard any != 0 else { continue }
                let slot = store.slot(of: key) ?? store.add(key)
                let present = store.cells(slot, parity)
                for r in 0..<TileStore.words { present[r] |= words[r] }
                store.alive[2 * Int(slot) + parity] = tessera_tile_alive(present)
                changedUnderfoot(slot)
                mark(slot)
                touched.append(slot)
                // Its neighbours' next generation may differ from what they hold.
                for other in neighbourSlots(of: slot) { mark(other) }
            }
        }
        // Every edge that touches life gets its neighbour before the next step.
        for slot in touched { addNeighbours(of: slot, where: store.alive[2 * Int(slot) + parity]) }
    }

    /// The tile in `slot` had its cells, or those around it, set otherwise than by a
    /// step: its next two steps compare with a generation before last that no longer
    /// tells what changed, so each records a change everywhere (the second in `finish`).
    private func changedUnderfoot(_ slot: Int32) {
        store.changedEverywhere(slot, parity: parity, generation: generation)
        unsure.insert(slot)
    }

    @inline(__always)
    private func mark(_ slot: Int32) {
        guard store.marks[Int(slot)] != stamp &+ 1 else { return }
        store.marks[Int(slot)] = stamp &+ 1
        due.append(slot)
    }

    /// The slots of the tiles around `slot` that are present.
    private func neighbourSlots(of slot: Int32) -> [Int32] {
        (0..<9).compactMap { k in
            let other = store.neighbours[9 * Int(slot) + k]
            return k != 4 && other >= 0 ? other : nil
        }
    }

    private func addNeighbours(of slot: Int32, where alive: UInt32) {
        var edges = alive & UInt32(store.missing[Int(slot)])
        let base = 9 * Int(slot)
        while edges != 0 {
            let k = edges.trailingZeroBitCount
            edges &= edges - 1
            if store.neighbours[base + k] < 0, let key = store.space.neighbour(of: store.keys[Int(slot)], k) { mark(store.add(key)) }
        }
    }

    /// Drops every tile `keeps` refuses, whatever it holds, and marks the tiles beside
    /// them due, as their neighbourhood changed under them. A shard of a plane spread
    /// over processes (`ShardMap`) drops this way the cells it held of its neighbours'
    /// tiles (ghosts) once they have served a stretch.
    public func crop(keeping keeps: (TileKey) -> Bool) {
        let gone = store.slots.filter { !keeps(store.keys[Int($0)]) }
        guard !gone.isEmpty else { return }
        let touched = gone.flatMap(neighbourSlots(of:))
        for slot in gone {
            store.remove(slot)
            unsure.remove(slot)
        }
        due.removeAll { !store.inUse[Int($0)] }
        for slot in touched where store.inUse[Int(slot)] {
            // Its next two steps compare with neighbourhoods that held the tiles gone.
            changedUnderfoot(slot)
            mark(slot)
            // A live edge gets its neighbour again (empty), so that births there land in
            // a tile before the next step, whether or not cells are added first.
            addNeighbours(of: slot, where: store.alive[2 * Int(slot) + parity])
        }
    }

    /// The live cells of the tiles `owner` gives to `me` that lie within `depth` cells
    /// (1...64) of a tile it gives to another shard, by that shard: what a shard sends
    /// the others before a stretch of `depth` generations, so that each steps its own
    /// tiles exactly. A tile's cells near two such neighbours go as one box.
    public func bands(depth: Int, owner: (TileKey) -> Int, me: Int) -> [Int: [PlacedCells]] {
        precondition((1...64).contains(depth))
        var bands: [Int: [PlacedCells]] = [:]
        let parity = parity
        for slot in store.slots where store.alive[2 * Int(slot) + parity] & 0x10 != 0 {
            let key = store.keys[Int(slot)]
            guard owner(key) == me else { continue }
            var boxes: [Int: (x0: Int, y0: Int, x1: Int, y1: Int)] = [:]
            for k in 0..<9 where k != 4 {
                guard let next = store.space.neighbour(of: key, k) else { continue }
                let other = owner(next)
                guard other != me else { continue }
                let (dx, dy) = (k % 3 - 1, k / 3 - 1)
                let x = dx < 0 ? (0, depth) : dx > 0 ? (64 - depth, 64) : (0, 64)
                let y = dy < 0 ? (0, depth) : dy > 0 ? (64 - depth, 64) : (0, 64)
                let box = boxes[other].map { (min($0.x0, x.0), min($0.y0, y.0), max($0.x1, x.1), max($0.y1, y.1)) } ?? (x.0, y.0, x.1, y.1)
                boxes[other] = box
            }
            guard !boxes.isEmpty else { continue }
            let cells = store.cells(slot, parity)
            for (other, box) in boxes {
                var grid = BitGrid(width: box.x1 - box.x0, height: box.y1 - box.y0)
                for r in box.y0..<box.y1 where cells[r] != 0 {
                    grid.insertBits(cells[r] >> UInt64(box.x0), count: box.x1 - box.x0, x: 0, y: r - box.y0)
                }
                if let part = PlacedCells(trimming: grid, left: key.x << 6 + box.x0 + origin.x, top: key.y << 6 + box.y0 + origin.y) {
                    bands[other, default: []].append(part)
                }
            }
        }
        return bands
    }

    // MARK: Stepping

    /// Advances `generations` generations. Once nothing is due to step (still lifes and
    /// period-2 oscillators only, or nothing alive), the rest cost nothing.
    public func advance(_ generations: UInt64) {
        var left = generations
        while left > 0 {
            guard !due.isEmpty else {
                generation &+= left
                return
            }
            step()
            left -= 1
        }
    }

    private func step() {
        guard let work = work() else { return }
        work.run(0..<work.count)
        finish()
    }

    /// The kernel's share of the next generation: the due tiles, which threads may
    /// step in ranges at once. Nil when none is due.
    ///
    /// Sendable, though it points into the plane: each range writes only its own tiles'
    /// older generation, their changes for the next one and its own reports, and reads
    /// only present generations and their changes, which no range writes; and the plane
    /// touches none of it until `finish()`, which its owner calls once every range has run.
    public struct Work: @unchecked Sendable {
        let due: UnsafePointer<Int32>
        public let count: Int
        let neighbours: UnsafePointer<Int32>
        let chunks: UnsafePointer<UnsafeMutablePointer<UInt64>?>
        let parity: Int32
        let zero: UnsafePointer<UInt64>
        let masks: UnsafePointer<UnsafePointer<UInt64>?>?
        let changes: UnsafeMutablePointer<tessera_tile_changes>
        let generation: UInt64
        let rule: Rule
        let avx2: Int32
        let reports: UnsafeMutablePointer<UInt32>

        public func run(_ range: Range<Int>) {
            precondition(range.lowerBound >= 0 && range.upperBound <= count)
            rule.withKernelRule {
                tessera_tiles_step(due + range.lowerBound, range.count, neighbours, chunks, parity, zero, masks, changes,
                                   generation, $0, avx2, reports + range.lowerBound)
            }
        }

        /// Runs all of it in `threads` ranges at once, as child tasks.
        public func run(among threads: Int) async {
            let size = (count + threads - 1) / threads
            await withTaskGroup(of: Void.self) { group in
                for start in stride(from: 0, to: count, by: size) {
                    group.addTask { run(start..<min(start + size, count)) }
                }
            }
        }
    }

    /// Due tiles worth sharing among threads (`Work.run(among:)`): a tile takes about
    /// 0.1 µs, a task a few.
    public static let sharedFrom = 256

    /// The due tiles' work (see `Work`); `finish()` must follow before anything else.
    public func work() -> Work? {
        guard !due.isEmpty else { return nil }
        if scratchCapacity < due.count {
            scratchDue.deallocate()
            scratchReports.deallocate()
            scratchCapacity = max(due.count, 2 * scratchCapacity)
            (scratchDue, scratchReports) = (.allocate(capacity: scratchCapacity), .allocate(capacity: scratchCapacity))
        }
        due.withUnsafeBufferPointer { scratchDue.update(from: $0.baseAddress!, count: $0.count) }
        return Work(due: scratchDue, count: due.count, neighbours: store.neighbours, chunks: store.chunks, parity: Int32(parity),
                    zero: zero, masks: store.masks.map { UnsafePointer($0) }, changes: store.changes, generation: generation,
                    rule: steps.from(generation), avx2: implementation == .avx2 ? 1 : 0, reports: scratchReports)
    }

    /// Ends the generation whose `work()` ran: learns where life went, lists the tiles
    /// due next, makes the tiles it reached and drops those it left.
    public func finish() {
        let (present, older) = (parity, parity ^ 1)
        let stepped = due.count
        tilesStepped += stepped
        generation &+= 1
        swap(&due, &wasDue)
        due.removeAll(keepingCapacity: true)
        stamp &+= 1
        var empty: [Int32] = []
        for i in 0..<stepped {
            let slot = scratchDue[i]
            var report = scratchReports[i]
            if !unsure.isEmpty, unsure.remove(slot) != nil {
                // Its older generation was not known: what it "changed" is not either.
                report |= 0x1FF
                store.changedEverywhere(slot, parity: older, generation: generation)
            }
            let alive = report >> 16
            store.alive[2 * Int(slot) + older] = alive
            if report & 0x10 != 0 { mark(slot) }
            var changed = report & 0x1EF
            let base = 9 * Int(slot)
            while changed != 0 {
                let k = changed.trailingZeroBitCount
                changed &= changed - 1
                let other = store.neighbours[base + k]
                if other >= 0 { mark(other) }
            }
            // Most tiles of a busy area have all their neighbours: no call for those.
            if alive & UInt32(store.missing[Int(slot)]) != 0 { addNeighbours(of: slot, where: alive) }
            if alive == 0, store.alive[2 * Int(slot) + present] == 0 { empty.append(slot) }
        }
        var dropped = false
        for slot in empty where canDrop(slot) {
            // Dead now and a generation ago, but maybe not the generation before: the
            // tiles around, which will read it as missing, record a change everywhere.
            for other in neighbourSlots(of: slot) { store.changedEverywhere(other, parity: older, generation: generation) }
            store.remove(slot)
            dropped = true
        }
        if dropped { due.removeAll { !store.inUse[Int($0)] } }
    }

    /// Whether the tile in `slot`, dead in both generations, borders no live cell of
    /// either generation: no birth can reach it while it is gone.
    private func canDrop(_ slot: Int32) -> Bool {
        let base = 9 * Int(slot)
        for k in 0..<9 where k != 4 {
            let other = store.neighbours[base + k]
            if other >= 0, (store.alive[2 * Int(other)] | store.alive[2 * Int(other) + 1]) >> (8 - k) & 1 != 0 { return false }
        }
        return true
    }

    // MARK: Cells out

    /// The tiles whose present cells are alive, in order of rows, then columns.
    private var liveSlots: [Int32] {
        let parity = parity
        return store.slots.filter { store.alive[2 * Int($0) + parity] & 0x10 != 0 }
            .sorted { store.keys[Int($0)] < store.keys[Int($1)] }
    }

    /// The tiles whose present cells are alive, in the plane's own keys (a bounded
    /// grid's count from its top-left cell), in order of rows, then columns.
    public var liveTiles: [TileKey] { liveSlots.map { store.keys[Int($0)] } }

    public var population: Int {
        let parity = parity
        var total = 0
        for slot in store.slots {
            let cells = store.cells(slot, parity)
            for r in 0..<TileStore.words { total += cells[r].nonzeroBitCount }
        }
        return total
    }

    /// The smallest rectangle holding every live cell; nil when none is alive.
    public var bounds: CellBounds? {
        var box: CellBounds? = nil
        for slot in liveSlots {
            let cells = UnsafePointer(store.cells(slot, parity)), key = store.keys[Int(slot)]
            let live = BitCopy.liveBounds(x: 0, width: 64, rows: 0..<TileStore.words) { cells + $0 }!
            let part = CellBounds(left: key.x << 6 + live.x + origin.x, top: key.y << 6 + live.y + origin.y,
                                  width: live.width, height: live.height)
            box = box.map { $0.union(part) } ?? part
        }
        return box
    }

    /// The cells of `area` (Golly's coordinates).
    public func cells(in area: CellBounds) -> BitGrid {
        var grid = BitGrid(width: area.width, height: area.height)
        guard area.width > 0, area.height > 0 else { return grid }
        let (left, top) = (area.left - origin.x, area.top - origin.y)
        let first = TileKey(cellX: left, y: top)
        let last = TileKey(cellX: left + area.width - 1, y: top + area.height - 1)
        for slot in slots(from: first, to: last) {
            let cells = store.cells(slot, parity), key = store.keys[Int(slot)]
            for r in 0..<TileStore.words where cells[r] != 0 {
                grid.insertBits(cells[r], count: 64, x: key.x << 6 - left, y: key.y << 6 + r - top)
            }
        }
        return grid
    }

    /// The tiles from `first` to `last` (inclusive, rows and columns): looked up one by
    /// one where they are fewer than the tiles there are, else the tiles filtered.
    private func slots(from first: TileKey, to last: TileKey) -> [Int32] {
        let (columns, rows) = (last.x - first.x + 1, last.y - first.y + 1)
        let (spanned, overflow) = columns.multipliedReportingOverflow(by: rows)
        guard overflow || spanned > store.count else {
            return (first.y...last.y).flatMap { y in (first.x...last.x).compactMap { store.slot(of: TileKey(x: $0, y: y)) } }
        }
        return store.slots.filter {
            let key = store.keys[Int($0)]
            return first.x <= key.x && key.x <= last.x && first.y <= key.y && key.y <= last.y
        }
    }

    /// The dots of `view` as viewers name it: in the board's own coordinates on a bounded
    /// grid (its corner at 0,0), in Golly's on the unbounded plane.
    public func frame(_ view: Viewport) -> BitGrid {
        guard let board else { return dots(in: view) }
        return dots(in: view.moved(dx: board.left, dy: board.top))
    }

    /// The dots of `view` (Golly's coordinates): a dot is lit when any cell under it is
    /// alive. Only the tiles in view are read, and a tile that lies under one dot is
    /// read by its summary alone, without touching its cells: zoomed out, a frame costs
    /// the live tiles in view.
    public func dots(in view: Viewport) -> BitGrid {
        var dots = BitGrid(width: view.width, height: view.height)
        let z = view.cellsPerDot
        guard view.width > 0, view.height > 0 else { return dots }
        let (left, top) = (view.x - origin.x, view.y - origin.y)
        let first = TileKey(cellX: left, y: top)
        let last = TileKey(cellX: left + view.width * z - 1, y: top + view.height * z - 1)
        let parity = parity
        for slot in slots(from: first, to: last) where store.alive[2 * Int(slot) + parity] & 0x10 != 0 {
            let key = store.keys[Int(slot)]
            let (x0, y0) = (key.x << 6 - left, key.y << 6 - top)
            let (firstColumn, lastColumn) = (max(0, x0 >= 0 ? x0 / z : -1), min(view.width - 1, (x0 + 63) / z))
            let (firstRow, lastRow) = (max(0, y0 >= 0 ? y0 / z : -1), min(view.height - 1, (y0 + 63) / z))
            guard firstColumn <= lastColumn, firstRow <= lastRow else { continue }
            if x0 >= 0, y0 >= 0, firstColumn == (x0 + 63) / z, firstRow == (y0 + 63) / z {
                dots[firstColumn, firstRow] = true
                continue
            }
            let cells = store.cells(slot, parity)
            for r in 0..<TileStore.words where cells[r] != 0 && y0 + r >= 0 && y0 + r < view.height * z {
                let row = (y0 + r) / z
                for column in firstColumn...lastColumn where !dots[column, row] {
                    // The tile's columns under this dot.
                    let (from, to) = (max(0, column * z - x0), min(64, (column + 1) * z - x0))
                    if cells[r] & BitCopy.bits(from: from, to: to) != 0 { dots[column, row] = true }
                }
            }
        }
        return dots
    }

    /// Each live tile (in the plane's own keys) and its live cells (Golly's coordinates),
    /// in order of rows, then columns.
    public func liveTileParts() -> [(key: TileKey, cells: PlacedCells)] {
        liveSlots.compactMap { slot in
            let key = store.keys[Int(slot)], cells = store.cells(slot, parity)
            var grid = BitGrid(width: 64, height: TileStore.words)
            for r in 0..<TileStore.words where cells[r] != 0 { grid.insertBits(cells[r], count: 64, x: 0, y: r) }
            return PlacedCells(trimming: grid, left: key.x << 6 + origin.x, top: key.y << 6 + origin.y).map { (key, $0) }
        }
    }

    /// The live cells as parts (Golly's coordinates): each run of live tiles side by
    /// side in a row of tiles, cut to its live cells.
    public func liveParts() -> [PlacedCells] {
        let slots = liveSlots
        var parts: [PlacedCells] = []
        var start = 0
        while start < slots.count {
            var end = start + 1
            let first = store.keys[Int(slots[start])]
            while end < slots.count, store.keys[Int(slots[end])] == TileKey(x: first.x + end - start, y: first.y) { end += 1 }
            var grid = BitGrid(width: (end - start) << 6, height: TileStore.words)
            for (i, slot) in slots[start..<end].enumerated() {
                let cells = store.cells(slot, parity)
                for r in 0..<TileStore.words where cells[r] != 0 { grid.insertBits(cells[r], count: 64, x: i << 6, y: r) }
            }
            if let part = PlacedCells(trimming: grid, left: first.x << 6 + origin.x, top: first.y << 6 + origin.y) { parts.append(part) }
            start = end
        }
        return parts
    }
}
