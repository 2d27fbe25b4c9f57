/// Which shard (a worker) owns each tile of a sparse plane spread over several: ranges
/// of the tiles' Morton order (their coordinates' bits interleaved), so a shard's tiles
/// lie together and most of their neighbours are its own. Every tile of the plane has an
/// owner, made or not: life that arrives in a tile is its owner's at once, with no one
/// to ask, and the map stays one number a shard however far the pattern spreads.
///
/// A stretch of `depth` generations (at most a tile's side) is exact on every shard when
/// each first sends the others its live cells within `depth` of their tiles
/// (`SparsePlane.bands`), takes theirs as ghosts (`add`), steps, and drops what is not
/// its own (`crop`): a cell `depth` generations on depends only on the cells within
/// `depth` of it, all of which it then held.
public struct ShardMap: Sendable, Equatable {
    /// Where each shard's range of Morton codes starts: shard i owns
    /// `starts[i]..<starts[i + 1]`, the last one everything from its start.
    public let starts: [UInt128]

    public init(starts: [UInt128]) {
        precondition(starts.first == 0 && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 })
        self.starts = starts
    }

    public var shards: Int { starts.count }

    public func owner(of key: TileKey) -> Int { owner(ofCode: Self.code(of: key)) }

    /// The shard of the tile at `code` in Morton order.
    public func owner(ofCode code: UInt128) -> Int {
        // The last shard whose range starts at or before the code.
        var (low, high) = (0, starts.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= code { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The tile's place in Morton order: its column's and row's bits (each offset so
    /// that the most negative comes first) interleaved, the row's above the column's.
    public static func code(of key: TileKey) -> UInt128 {
        let (x, y) = (UInt64(bitPattern: Int64(key.x)) ^ (1 << 63), UInt64(bitPattern: Int64(key.y)) ^ (1 << 63))
        return spread(x) | spread(y) << 1
    }

    /// The bits of `value` spread to the even bits of 128.
    private static func spread(_ value: UInt64) -> UInt128 {
        UInt128(spread(UInt32(truncatingIfNeeded: value))) | UInt128(spread(UInt32(truncatingIfNeeded: value >> 32))) << 64
    }

    private static func spread(_ value: UInt32) -> UInt64 {
        var v = UInt64(value)
        v = (v | v << 16) & 0x0000_FFFF_0000_FFFF
        v = (v | v << 8) & 0x00FF_00FF_00FF_00FF
        v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v | v << 2) & 0x3333_3333_3333_3333
        v = (v | v << 1) & 0x5555_5555_5555_5555
        return v
    }

    /// `tiles` cut into runs of Morton order of equal counts, one a shard, with at least
    /// `least` tiles each: a small pattern stays on one shard (its halos in memory), a
    /// big one spreads over them all. Shards left without tiles own nothing.
    public static func splitting(_ tiles: [TileKey], into shards: Int, least: Int = 64) -> ShardMap {
        splitting(codes: tiles.map(code(of:)).sorted(), into: shards, least: least)
    }

    /// The same, cut into runs of equal total `weights` (one for each code, at least 0)
    /// rather than equal counts: each tile's measured cost, so that a shard of busy tiles
    /// is cut finer and quiet ones gather. With no weight at all, equal counts.
    public static func splitting(codes: [UInt128], weights: [Double], into shards: Int, least: Int = 64) -> ShardMap {
        precondition(weights.count == codes.count)
        let used = min(shards, max(1, codes.count / max(1, least)))
        let total = weights.reduce(0, +)
        guard used > 1, total > 0 else { return splitting(codes: codes, into: shards, least: least) }
        var starts: [UInt128] = [0], sum = 0.0
        for (code, weight) in zip(codes, weights) {
            // A shard begins at the first tile past its share of the weight.
            if starts.count < used, sum >= total * Double(starts.count) / Double(used), code > starts.last! { starts.append(code) }
            sum += weight
        }
        starts += Array(repeating: .max, count: shards - starts.count)
        return ShardMap(starts: starts)
    }

    /// The same, of tiles given by their places in Morton order, ascending.
    public static func splitting(codes: [UInt128], into shards: Int, least: Int = 64) -> ShardMap {
        let used = min(shards, max(1, codes.count / max(1, least)))
        var starts: [UInt128] = [0]
        for share in 1..<max(1, used) { starts.append(codes[share * codes.count / used]) }
        starts += Array(repeating: .max, count: shards - starts.count)
        return ShardMap(starts: starts)
    }
}
