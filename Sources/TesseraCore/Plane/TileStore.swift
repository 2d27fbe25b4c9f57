import CTesseraKernel

/// Where a tile of the sparse plane lies: tile (x, y) holds Golly's cells
/// `64x..<64x+64` by `64y..<64y+64`.
public struct TileKey: Hashable, Sendable, Comparable {
    public var x: Int, y: Int

    public init(x: Int, y: Int) { (self.x, self.y) = (x, y) }

    /// The tile holding Golly's cell (`x`, `y`).
    public init(cellX x: Int, y: Int) { self.init(x: x >> 6, y: y >> 6) }

    /// The neighbour `k` of the 3x3 around this tile, in rows from the north-west (4: itself).
    func neighbour(_ k: Int) -> TileKey { TileKey(x: x + k % 3 - 1, y: y + k / 3 - 1) }

    public static func < (a: TileKey, b: TileKey) -> Bool { (a.y, a.x) < (b.y, b.x) }

    /// One word hashed, not two: a generation looks up several keys a tile.
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(x &* 0x9E37_79B9 ^ y) }
}

/// Where tiles may lie: anywhere on the unbounded plane, or on a bounded grid's
/// `columns` x `rows` tiles, whose edges wrap on a torus and end in dead cells on a
/// plane. A torus's sides are whole tiles; a plane's last column and row of tiles may
/// hold cells beyond its edge, which `masks` keeps dead.
struct TileSpace {
    /// Tiles across and down a bounded grid; nil on the unbounded plane.
    let columns: Int?, rows: Int?
    let wraps: Bool
    /// The cells of a tile in the last column that lie on the grid (bit c of each row:
    /// column c), and the rows of a tile in the last row.
    let lastColumnBits: UInt64, lastRowRows: Int

    static let unbounded = TileSpace(columns: nil, rows: nil, wraps: false, lastColumnBits: ~0, lastRowRows: 64)

    /// A bounded grid of `width` x `height` cells; nil for a torus whose sides are not
    /// whole tiles.
    init?(width: Int, height: Int, wraps: Bool) {
        guard !wraps || (width % 64 == 0 && height % 64 == 0) else { return nil }
        let (columnCells, rowCells) = ((width - 1) % 64 + 1, (height - 1) % 64 + 1)
        self.init(columns: (width + 63) / 64, rows: (height + 63) / 64, wraps: wraps,
                  lastColumnBits: BitCopy.bits(from: 0, to: columnCells), lastRowRows: rowCells)
    }

    private init(columns: Int?, rows: Int?, wraps: Bool, lastColumnBits: UInt64, lastRowRows: Int) {
        (self.columns, self.rows, self.wraps) = (columns, rows, wraps)
        (self.lastColumnBits, self.lastRowRows) = (lastColumnBits, lastRowRows)
    }

    /// Whether tiles at the grid's edges hold cells beyond it.
    var clips: Bool { lastColumnBits != ~0 || lastRowRows != 64 }

    func contains(_ key: TileKey) -> Bool {
        guard let columns, let rows else { return true }
        return (0..<columns).contains(key.x) && (0..<rows).contains(key.y)
    }

    /// The neighbour `k` of `key` (as `TileKey.neighbour`): wrapped on a torus, nil
    /// beyond a plane's edge.
    func neighbour(of key: TileKey, _ k: Int) -> TileKey? {
        var next = key.neighbour(k)
        guard let columns, let rows else { return next }
        if wraps {
            next = TileKey(x: (next.x + columns) % columns, y: (next.y + rows) % rows)
        }
        return contains(next) ? next : nil
    }

    /// Which cells of the tile at `key` lie on the grid: nil where all do.
    func mask(of key: TileKey) -> Mask? {
        let (right, bottom) = (key.x == (columns ?? 0) - 1 && lastColumnBits != ~0, key.y == (rows ?? 0) - 1 && lastRowRows != 64)
        switch (right, bottom) {
        case (false, false): return nil
        case (true, false): return .lastColumn
        case (false, true): return .lastRow
        case (true, true): return .corner
        }
    }

    enum Mask: Int, CaseIterable { case lastColumn, lastRow, corner }

    /// The 64 words of `mask`.
    func words(of mask: Mask) -> [UInt64] {
        (0..<64).map { row in
            if mask != .lastColumn && row >= lastRowRows { return 0 }
            return mask == .lastRow ? ~0 : lastColumnBits
        }
    }
}

/// The tiles of a `SparsePlane`: each a slot with two generations of cells (64 words
/// each, whichever is the present one given by the generation's parity), its eight
/// neighbours' slots, and where its cells of each generation are alive. Slots of
/// dropped tiles are reused; their cells stay allocated, a kilobyte each.
///
/// The per-slot tables are raw memory that the kernel reads (`tessera_tiles_step`) and
/// the plane reads and writes without Swift's exclusivity checks on every access (a
/// quarter of a soup's time when they were arrays); they move only in `add`.
///
/// Owned by one plane and never shared; deliberately not `Sendable`.
final class TileStore {
    static let words = 64
    /// Slots per chunk of cell memory (64 KiB), made as tiles arrive, so cell pointers
    /// stay put while the store grows.
    private static let chunkSlots = Int(TESSERA_TILE_CHUNK)

    /// Slots made so far, in use or free.
    private(set) var slotCount = 0
    private var capacity = 0
    @exclusivity(unchecked) private(set) var keys: UnsafeMutablePointer<TileKey> = .allocate(capacity: 0)
    /// `neighbours[9 * slot + k]`: the slot of neighbour k (as `TileKey.neighbour`), -1 if none.
    @exclusivity(unchecked) private(set) var neighbours: UnsafeMutablePointer<Int32> = .allocate(capacity: 0)
    /// `alive[2 * slot + parity]`: where the cells of that parity's generation are
    /// alive, as `tessera_tiles_step` reports it (bit k: on the edge shared with
    /// neighbour k; bit 4: anywhere).
    @exclusivity(unchecked) private(set) var alive: UnsafeMutablePointer<UInt32> = .allocate(capacity: 0)
    @exclusivity(unchecked) private(set) var inUse: UnsafeMutablePointer<Bool> = .allocate(capacity: 0)
    /// `missing[slot]`: bit k set where neighbour k is not present (k ≠ 4), so that a
    /// step finds the tiles a live edge needs made with one test: a dense soup's tiles
    /// have all eight, and looking at each had cost a tenth of its run.
    @exclusivity(unchecked) private(set) var missing: UnsafeMutablePointer<UInt16> = .allocate(capacity: 0)
    /// For the plane: `marks[slot]` is the stamp of the last step that listed it as due.
    @exclusivity(unchecked) private(set) var marks: UnsafeMutablePointer<UInt64> = .allocate(capacity: 0)
    /// Each chunk's cells, for the kernel: `tessera_tile_cells` finds a slot's in it.
    @exclusivity(unchecked) private(set) var chunks: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>?> = .allocate(capacity: 0)
    /// What the step that made each generation changed, two a slot (`tessera_tile_changes`).
    @exclusivity(unchecked) private(set) var changes: UnsafeMutablePointer<tessera_tile_changes> = .allocate(capacity: 0)
    private var chunkCount = 0
    /// `masks[slot]`: the cells of the tile that may live, nil where all may (see
    /// `TileSpace.mask`); nil itself where no tile has a mask.
    @exclusivity(unchecked) private(set) var masks: UnsafeMutablePointer<UnsafePointer<UInt64>?>? = nil
    private var free: [Int32] = []
    private var index: [TileKey: Int32] = [:]
    let space: TileSpace
    /// The words of each of `space`'s masks, as `TileSpace.Mask` orders them.
    private let maskWords: UnsafeMutablePointer<UInt64>?

    init(space: TileSpace = .unbounded) {
        self.space = space
        if space.clips {
            let words = UnsafeMutablePointer<UInt64>.allocate(capacity: 64 * TileSpace.Mask.allCases.count)
            for mask in TileSpace.Mask.allCases { (words + 64 * mask.rawValue).initialize(from: space.words(of: mask), count: 64) }
            maskWords = words
            masks = .allocate(capacity: 0)
        } else {
            maskWords = nil
        }
    }

    var count: Int { index.count }

    deinit {
        for chunk in 0..<chunkCount { chunks[chunk]!.deallocate() }
        for table in [keys.deinitialize(count: slotCount), UnsafeMutableRawPointer(neighbours), UnsafeMutableRawPointer(alive),
                      UnsafeMutableRawPointer(inUse), UnsafeMutableRawPointer(missing), UnsafeMutableRawPointer(marks),
                      UnsafeMutableRawPointer(chunks),
                      UnsafeMutableRawPointer(changes)] {
            table.deallocate()
        }
        masks?.deallocate()
        maskWords?.deallocate()
    }

    /// The cells of `slot`'s generation of `parity`.
    @inline(__always)
    func cells(_ slot: Int32, _ parity: Int) -> UnsafeMutablePointer<UInt64> {
        tessera_tile_cells(chunks, slot, Int32(parity))
    }

    func slot(of key: TileKey) -> Int32? { index[key] }

    /// A new tile of dead cells at `key` (which `space` holds), linked to the
    /// neighbours present.
    func add(_ key: TileKey) -> Int32 {
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
            keys[Int(slot)] = key
        } else {
            slot = Int32(slotCount)
            if slotCount == capacity { grow() }
            if slotCount % Self.chunkSlots == 0 {
                chunks[chunkCount] = .allocate(capacity: Self.chunkSlots * 2 * Self.words)
                chunkCount += 1
            }
            (keys + slotCount).initialize(to: key)
            marks[slotCount] = 0
            slotCount += 1
        }
        let i = Int(slot)
        // A reused slot may still look listed as due (dropped after it was listed).
        marks[i] = 0
        inUse[i] = true
        (alive[2 * i], alive[2 * i + 1]) = (0, 0)
        (changes + 2 * i).initialize(repeating: tessera_tile_changes(), count: 2)
        cells(slot, 0).initialize(repeating: 0, count: 2 * Self.words)
        if let masks, let maskWords { masks[i] = space.mask(of: key).map { UnsafePointer(maskWords + 64 * $0.rawValue) } }
        index[key] = slot
        missing[i] = 0x1EF
        for k in 0..<9 where k != 4 {
            // On a small torus a tile may be its own neighbour, or two of another's.
            let other = space.neighbour(of: key, k).flatMap { index[$0] } ?? -1
            neighbours[9 * i + k] = other
            if other >= 0 {
                neighbours[9 * Int(other) + 8 - k] = slot
                missing[i] &= ~(1 << k)
                missing[Int(other)] &= ~(1 << (8 - k))
            }
        }
        neighbours[9 * i + 4] = slot
        return slot
    }

    /// Twice the room for slots (and chunks), the tables copied over.
    private func grow() {
        let next = max(256, capacity * 2)
        func moved<T>(_ old: UnsafeMutablePointer<T>, count: Int, to size: Int) -> UnsafeMutablePointer<T> {
            let new = UnsafeMutablePointer<T>.allocate(capacity: size)
            new.moveInitialize(from: old, count: count)
            old.deallocate()
            return new
        }
        keys = moved(keys, count: slotCount, to: next)
        neighbours = moved(neighbours, count: 9 * slotCount, to: 9 * next)
        alive = moved(alive, count: 2 * slotCount, to: 2 * next)
        inUse = moved(inUse, count: slotCount, to: next)
        missing = moved(missing, count: slotCount, to: next)
        marks = moved(marks, count: slotCount, to: next)
        changes = moved(changes, count: 2 * slotCount, to: 2 * next)
        if let masks { self.masks = moved(masks, count: slotCount, to: next) }
        chunks = moved(chunks, count: chunkCount, to: next / Self.chunkSlots + 1)
        capacity = next
    }

    /// Records every row of the tile in `slot` as changed in its generation `generation`
    /// (of `parity`): its cells, or those around it, were set otherwise than by a step.
    func changedEverywhere(_ slot: Int32, parity: Int, generation: UInt64) {
        changes[2 * Int(slot) + parity] = tessera_tile_changes(rows: ~0, west: ~0, east: ~0, generation: generation)
    }

    /// Drops the tile in `slot`, whose cells must be dead in both generations.
    func remove(_ slot: Int32) {
        let base = 9 * Int(slot)
        for k in 0..<9 where k != 4 {
            let other = neighbours[base + k]
            if other >= 0 {
                neighbours[9 * Int(other) + 8 - k] = -1
                missing[Int(other)] |= 1 << (8 - k)
            }
            neighbours[base + k] = -1
        }
        index[keys[Int(slot)]] = nil
        inUse[Int(slot)] = false
        free.append(slot)
    }

    /// The slots of every tile present.
    var slots: some Sequence<Int32> { index.values }
}
