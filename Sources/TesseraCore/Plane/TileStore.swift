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
/// Owned by one plane and never shared; deliberately not `Sendable`.
final class TileStore {
    static let words = 64
    /// Slots per chunk of cell memory: 64 KiB, made as tiles arrive, so cell pointers
    /// stay put while the store grows.
    private static let chunkSlots = 64

    private(set) var keys: [TileKey] = []
    /// `neighbours[9 * slot + k]`: the slot of neighbour k (as `TileKey.neighbour`), -1 if none.
    private(set) var neighbours: [Int32] = []
    /// `alive[2 * slot + parity]`: where the cells of that parity's generation are
    /// alive, as `tessera_tile_step_avx2` reports it (bit k: on the edge shared with
    /// neighbour k; bit 4: anywhere).
    var alive: [UInt32] = []
    private(set) var inUse: [Bool] = []
    private var chunks: [UnsafeMutablePointer<UInt64>] = []
    private var free: [Int32] = []
    private(set) var index: [TileKey: Int32] = [:]

    var count: Int { index.count }

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// The cells of `slot`'s generation of `parity`.
    @inline(__always)
    func cells(_ slot: Int32, _ parity: Int) -> UnsafeMutablePointer<UInt64> {
        let slot = Int(slot)
        return chunks[slot / Self.chunkSlots] + (slot % Self.chunkSlots * 2 + parity) * Self.words
    }

    func slot(of key: TileKey) -> Int32? { index[key] }

    /// A new tile of dead cells at `key`, linked to the neighbours present.
    func add(_ key: TileKey) -> Int32 {
        let slot: Int32
        if let reused = free.popLast() {
            slot = reused
            keys[Int(slot)] = key
            inUse[Int(slot)] = true
            alive[2 * Int(slot)] = 0
            alive[2 * Int(slot) + 1] = 0
        } else {
            slot = Int32(keys.count)
            if keys.count % Self.chunkSlots == 0 {
                chunks.append(.allocate(capacity: Self.chunkSlots * 2 * Self.words))
            }
            keys.append(key)
            inUse.append(true)
            alive += [0, 0]
            neighbours += repeatElement(-1, count: 9)
        }
        cells(slot, 0).initialize(repeating: 0, count: 2 * Self.words)
        index[key] = slot
        let base = 9 * Int(slot)
        for k in 0..<9 where k != 4 {
            let other = index[key.neighbour(k)] ?? -1
            neighbours[base + k] = other
            if other >= 0 { neighbours[9 * Int(other) + 8 - k] = slot }
        }
        neighbours[base + 4] = slot
        return slot
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
