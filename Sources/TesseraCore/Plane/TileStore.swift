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
    /// For the plane: `marks[slot]` is the stamp of the last step that listed it as due.
    @exclusivity(unchecked) private(set) var marks: UnsafeMutablePointer<UInt64> = .allocate(capacity: 0)
    /// Each chunk's cells, for the kernel: `tessera_tile_cells` finds a slot's in it.
    @exclusivity(unchecked) private(set) var chunks: UnsafeMutablePointer<UnsafeMutablePointer<UInt64>?> = .allocate(capacity: 0)
    private var chunkCount = 0
    private var free: [Int32] = []
    private var index: [TileKey: Int32] = [:]

    var count: Int { index.count }

    deinit {
        for chunk in 0..<chunkCount { chunks[chunk]!.deallocate() }
        for table in [keys.deinitialize(count: slotCount), UnsafeMutableRawPointer(neighbours), UnsafeMutableRawPointer(alive),
                      UnsafeMutableRawPointer(inUse), UnsafeMutableRawPointer(marks), UnsafeMutableRawPointer(chunks)] {
            table.deallocate()
        }
    }

    /// The cells of `slot`'s generation of `parity`.
    @inline(__always)
    func cells(_ slot: Int32, _ parity: Int) -> UnsafeMutablePointer<UInt64> {
        tessera_tile_cells(chunks, slot, Int32(parity))
    }

    func slot(of key: TileKey) -> Int32? { index[key] }

    /// A new tile of dead cells at `key`, linked to the neighbours present.
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
        inUse[i] = true
        (alive[2 * i], alive[2 * i + 1]) = (0, 0)
        cells(slot, 0).initialize(repeating: 0, count: 2 * Self.words)
        index[key] = slot
        for k in 0..<9 where k != 4 {
            let other = index[key.neighbour(k)] ?? -1
            neighbours[9 * i + k] = other
            if other >= 0 { neighbours[9 * Int(other) + 8 - k] = slot }
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
        marks = moved(marks, count: slotCount, to: next)
        chunks = moved(chunks, count: chunkCount, to: next / Self.chunkSlots + 1)
        capacity = next
    }

    /// Drops the tile in `slot`, whose cells must be dead in both generations.
    func remove(_ slot: Int32) {
        let base = 9 * Int(slot)
        for k in 0..<9 where k != 4 {
            let other = neighbours[base + k]
            if other >= 0 { neighbours[9 * Int(other) + 8 - k] = -1 }
            neighbours[base + k] = -1
        }
        index[keys[Int(slot)]] = nil
        inUse[Int(slot)] = false
        free.append(slot)
    }

    /// The slots of every tile present.
    var slots: some Sequence<Int32> { index.values }
}
