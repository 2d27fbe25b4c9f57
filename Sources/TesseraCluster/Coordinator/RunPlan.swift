import TesseraCore
import TesseraTiles

/// What a cluster run computes: the tiles, the rule, and where the starting cells come from.
package struct RunPlan: Sendable {
    package let tiling: Tiling
    package let rule: Rule
    package let halo: Int
    /// The generation the starting cells are at.
    package let generation: UInt64
    package let generations: UInt64
    /// Workers generate their own cells from the soup and the overlay when there is no `cells`.
    package let soup: Soup?
    package let overlays: [Overlay]
    /// Each tile's starting cells, computed by the coordinator and sent to the worker.
    package let cells: (@Sendable (TileRect) -> BitGrid)?
    /// With `cells`, each tile's states, for a rule of more than two.
    package var states: (@Sendable (TileRect) -> StateGrid)?
    /// A sparse plane spread over the workers as shards, in place of `tiling`'s tiles.
    package var shards: ShardPlan?

    package init(tiling: Tiling, rule: Rule, halo: Int, generation: UInt64, generations: UInt64,
                soup: Soup?, overlays: [Overlay] = [], cells: (@Sendable (TileRect) -> BitGrid)?) {
        self.overlays = overlays
        self.tiling = tiling
        self.rule = rule
        self.halo = halo
        self.generation = generation
        self.generations = generations
        self.soup = soup
        self.cells = cells
    }

    /// `cells` (Golly's coordinates) at `generation` as a sparse plane spread over the
    /// workers (`ShardPlan`); `tiling` is the board's bounds, or any on the unbounded plane.
    package static func sharded(_ shards: ShardPlan, tiling: Tiling, rule: Rule, generation: UInt64, generations: UInt64) -> RunPlan {
        var plan = RunPlan(tiling: tiling, rule: rule, halo: shards.depth, generation: generation, generations: generations,
                           soup: nil, cells: nil)
        plan.shards = shards
        return plan
    }

    /// The same run's board and rule as shards `shards`, dealt at `generation`.
    package func resharded(_ shards: ShardPlan, at generation: UInt64) -> RunPlan {
        Self.sharded(shards, tiling: tiling, rule: rule, generation: generation, generations: generations)
    }

    /// Refuses worker counts that would leave a worker without a tile.
    package static func check(workers: Int, tiling: Tiling) throws {
        let tiles = tiling.columns * tiling.rows
        guard workers <= tiles else {
            throw TesseraError("\(workers) workers but only \(tiles) tile\(tiles == 1 ? "" : "s") (\(tiling.columns)x\(tiling.rows)) of the \(tiling.shape.width)x\(tiling.shape.height) board",
                               fix: "use fewer workers, more --tiles, or a larger board")
        }
    }

    /// Tiles in row-major order, cut into `workers` contiguous runs so neighbours mostly
    /// share a worker and trade halos in memory.
    package func owners(workers: Int) -> [Int] {
        let count = tiling.columns * tiling.rows
        return (0..<count).map { $0 * workers / count }
    }

    /// A `columns`×`rows` split into `count` tiles that cuts the least: fewest cells along
    /// tile borders; ties go to whole-row strips, whose halos are contiguous rows.
    package static func defaultTiles(count: Int, shape: BoardShape) -> (columns: Int, rows: Int) {
        var best: (cost: Int, columns: Int, rows: Int)? = nil
        for columns in 1...max(1, count) where count % columns == 0 {
            let rows = count / columns
            guard columns <= shape.width, rows <= shape.height else { continue }
            let cost = (columns - 1) * shape.height + (rows - 1) * shape.width
            if best == nil || cost < best!.cost || (cost == best!.cost && columns < best!.columns) {
                best = (cost, columns, rows)
            }
        }
        return best.map { ($0.columns, $0.rows) } ?? (1, 1)
    }
}

/// A sparse plane (`SparsePlane`) spread over the workers: each gets a shard, a range
/// of the tiles' Morton order (`ShardMap.splitting` of the live tiles), and trades
/// bands with the others every `depth` generations. Its live tiles are found and
/// ordered once, where it is made, so that dealing them to however many workers are
/// there is a cut of one list, quick on the coordinator's actor.
package struct ShardPlan: Sendable {
    /// The live tiles' places in Morton order (`ShardMap.code`), ascending, and each
    /// one's live cells in Golly's coordinates.
    package let codes: [UInt128]
    package let tiles: [Overlay]
    /// The bounded grid, nil on Golly's unbounded plane.
    package let board: BoardShape?
    /// Generations between trades of bands (1...64): deeper bands cost cells stepped
    /// twice, shallower ones messages.
    package let depth: Int
    /// Each tile's cost, where one was measured (`Coordinator.unevenShards`): the shards
    /// are then runs of equal cost, not of equal counts.
    package var weights: [Double]?

    /// `parts` (Golly's coordinates) under `rule`, on `board` (nil: the unbounded plane).
    package init(parts: [PlacedCells], rule: Rule, board: BoardShape?, depth: Int = 32) throws {
        precondition((1...64).contains(depth))
        let plane = try SparsePlane(parts: parts, rule: rule, board: board)
        let live = plane.liveTileParts().map { (code: ShardMap.code(of: $0.key), cells: $0.cells) }.sorted { $0.code < $1.code }
        codes = live.map(\.code)
        tiles = live.map { Overlay($0.cells) }
        (self.board, self.depth) = (board, depth)
    }

    /// The map of `shards` shards, and each one's live tiles.
    package func split(into shards: Int) -> (map: ShardMap, tiles: [[Overlay]]) {
        let map = weights.map { ShardMap.splitting(codes: codes, weights: $0, into: shards) }
            ?? ShardMap.splitting(codes: codes, into: shards)
        var given = Array(repeating: [Overlay](), count: shards), shard = 0
        for (code, tile) in zip(codes, tiles) {
            while shard + 1 < shards, map.starts[shard + 1] <= code { shard += 1 }
            given[shard].append(tile)
        }
        return (map, given)
    }
}
