import TesseraCore

/// What a worker tells the coordinator when it connects.
package struct Hello: Sendable, Equatable {
    package let pid: UInt32
    /// Where peers send this worker's halo strips, e.g. `tcp://10.0.0.2:41234`.
    package let endpoint: String
    package let host: String

    package init(pid: UInt32, endpoint: String, host: String) {
        self.pid = pid
        self.endpoint = endpoint
        self.host = host
    }
}

/// Everything a worker needs to build its tiles and find its peers.
package struct Assignment: Sendable, Equatable {
    /// How a worker's tiles start: the four things an assignment can mean.
    package enum Start: Sendable, Equatable {
        /// Made afresh by the worker from a soup and the pattern parts that touch its own
        /// tiles, painted where they lie: a huge tile costs what they cover.
        case painted(soup: Soup?, overlays: [Overlay])
        /// Made afresh from cells that follow as `load`, tile by tile.
        case loaded
        /// The same board going on at `generation`, with tiles moved between workers: a
        /// worker keeps the tiles it still hosts, and each new one comes as a `tileState`.
        case goesOn
        /// Rolled back to the in-memory snapshot at `generation`: each tile from this
        /// worker's own snapshot, or the copy it keeps for its buddy.
        case restored
    }

    package let worker: Int
    package let tiling: Tiling
    package let rule: Rule
    package let halo: Int
    package let generation: UInt64
    package let start: Start
    /// Each worker's inbox endpoint, by worker index.
    package let endpoints: [String]
    /// The worker index that owns each tile, in `tiling.tiles` order.
    package let owners: [Int]
    /// Which of the coordinator's assignments this is, counting up: every halo strip
    /// carries its sender's, and a worker takes only strips of its own. One sent before
    /// a rollback may still be on its way when the tiles are rebuilt, at a generation
    /// they will reach again; taken, it would let a tile run ahead of its neighbours.
    package let epoch: UInt64
    /// The run's secret, the same in every assignment of the run: this worker's halo
    /// connections present it, and its halo port takes messages only from peers that do.
    package let haloToken: HaloToken

    package init(worker: Int, tiling: Tiling, rule: Rule, halo: Int, generation: UInt64, start: Start,
                 endpoints: [String], owners: [Int], epoch: UInt64 = 0, haloToken: HaloToken) {
        (self.worker, self.tiling, self.rule, self.halo, self.generation) = (worker, tiling, rule, halo, generation)
        (self.start, self.endpoints, self.owners, self.epoch, self.haloToken) = (start, endpoints, owners, epoch, haloToken)
    }

    package func owner(of tile: TileID) -> Int { owners[tile.row * tiling.columns + tile.column] }
    package var myTiles: [TileID] { tiling.tiles.filter { owner(of: $0) == worker } }
}

/// What a worker snapshots, and for whom it keeps copies. Every worker that hosts tiles
/// sends a copy of each to `buddy`, the next such worker in a ring, and keeps the copies
/// from the worker before it: a lost worker's tiles survive on its buddy.
package struct SnapshotOrder: Sendable, Equatable {
    /// The generation the run is at: the snapshot's.
    package let generation: UInt64
    /// The inbox endpoint of the worker that keeps this one's copies.
    package let buddy: String
    /// The worker whose copies this one keeps, and which tiles they are.
    package let keepsFor: String
    package let keeps: [TileID]
    /// The newest snapshot every worker completed: kept along with this one, and every
    /// older one dropped, so a loss during this snapshot still finds that one whole.
    package let retains: UInt64?

    package init(generation: UInt64, buddy: String, keepsFor: String, keeps: [TileID], retains: UInt64?) {
        (self.generation, self.buddy, self.keepsFor, self.keeps, self.retains) = (generation, buddy, keepsFor, keeps, retains)
    }
}

/// Cells of one tile: new cells for it (`load`) or its part of a `collect`.
package struct TileCells: Sendable, Equatable {
    package let tile: TileID
    package let generation: UInt64
    /// The cells in any state but 0.
    package let cells: BitGrid
    /// Each cell's state, for a rule of more than two states; nil for two.
    package let states: StateGrid?

    package init(tile: TileID, generation: UInt64, cells: BitGrid, states: StateGrid? = nil) {
        (self.tile, self.generation, self.cells, self.states) = (tile, generation, cells, states)
    }
}

/// One tile's live cells at `generation`, as pieces placed on the board (`Overlay`):
/// an in-memory snapshot of a huge, mostly empty tile holds what lives on it, not its
/// area.
package struct TileParts: Sendable, Equatable {
    package let tile: TileID
    package let generation: UInt64
    package let parts: [Overlay]

    package init(tile: TileID, generation: UInt64, parts: [Overlay]) {
        (self.tile, self.generation, self.parts) = (tile, generation, parts)
    }
}

/// What one shard of a sparse plane spread over workers (`ShardMap`) sends another
/// before a stretch: its live cells within the stretch's depth of the other's tiles,
/// in Golly's coordinates, as of `generation` (the stretch's first). Sent every stretch,
/// empty or not, so each shard knows when it has all it waits for.
package struct Bands: Sendable, Equatable {
    package let generation: UInt64
    /// The epoch of the shard assignment it was sent under (`ShardAssignment.epoch`).
    package let epoch: UInt64
    package let parts: [Overlay]

    package init(generation: UInt64, epoch: UInt64 = 0, parts: [Overlay]) {
        (self.generation, self.epoch, self.parts) = (generation, epoch, parts)
    }
}

/// One worker's shard of a sparse plane spread over several: the map that says which
/// shard owns each tile, its own cells, and where the other shards take their bands.
package struct ShardAssignment: Sendable, Equatable {
    /// This worker's shard: its index in `map` and in `endpoints`.
    package let shard: Int
    package let map: ShardMap
    package let rule: Rule
    /// The bounded grid, nil on Golly's unbounded plane.
    package let board: BoardShape?
    /// Generations a stretch runs between trades of bands (1...64).
    package let depth: Int
    package let generation: UInt64
    /// Each shard's halo inbox, by shard.
    package let endpoints: [String]
    /// As `Assignment.epoch`: bands sent under an earlier assignment are dropped.
    package let epoch: UInt64
    package let haloToken: HaloToken
    /// The starting cells on this shard's tiles, in Golly's coordinates: the first of
    /// `partCount`, the rest in `shardCells` messages that follow.
    package let parts: [Overlay]
    package let partCount: Int

    /// The most parts one message carries: 4096 tiles' cells, at most 2 MiB.
    package static let chunk = 4096

    /// `parts` in runs of at most `chunk`, in order: one (perhaps empty) at least.
    package static func chunks(of parts: [Overlay]) -> [ArraySlice<Overlay>] {
        stride(from: 0, to: max(1, parts.count), by: chunk).map { parts[$0..<min(parts.count, $0 + chunk)] }
    }

    package init(shard: Int, map: ShardMap, rule: Rule, board: BoardShape?, depth: Int, generation: UInt64,
                 endpoints: [String], epoch: UInt64, haloToken: HaloToken, parts: [Overlay], partCount: Int? = nil) {
        (self.shard, self.map, self.rule, self.board, self.depth) = (shard, map, rule, board, depth)
        (self.generation, self.endpoints, self.epoch, self.haloToken, self.parts) = (generation, endpoints, epoch, haloToken, parts)
        self.partCount = partCount ?? parts.count
    }

    /// The same assignment with all its parts, `parts`.
    package func holding(_ parts: [Overlay]) -> ShardAssignment {
        ShardAssignment(shard: shard, map: map, rule: rule, board: board, depth: depth, generation: generation,
                        endpoints: endpoints, epoch: epoch, haloToken: haloToken, parts: parts, partCount: parts.count)
    }
}

/// A shard's figures after a run: what the coordinator sums for the run's summary and
/// its progress.
package struct ShardFigures: Sendable, Equatable {
    package var population: Int
    /// Tiles present (live ones, and the quiet ones beside them).
    package var tiles: Int
    /// The live cells' bounds in Golly's coordinates; nil when none is alive.
    package var bounds: CellBounds?

    package init(population: Int, tiles: Int, bounds: CellBounds?) {
        (self.population, self.tiles, self.bounds) = (population, tiles, bounds)
    }
}

/// One tile's dots of a frame, placed at dot (x, y) of the viewport.
package struct FramePart: Sendable, Equatable {
    package let tile: TileID
    package let x: Int, y: Int
    package let dots: BitGrid
    /// Each dot's lowest state but 0 (`StateGrid.stateDots`), row by row, where the
    /// rule has more than two states; empty otherwise.
    package let states: [UInt8]

    package init(tile: TileID, x: Int, y: Int, dots: BitGrid, states: [UInt8] = []) {
        (self.tile, self.x, self.y, self.dots, self.states) = (tile, x, y, dots, states)
    }
}

/// How far a process has come: in heartbeats, so progress shows while a long advance runs.
package struct RunProgress: Sendable, Equatable {
    /// The generation every tile of the sender has reached.
    package var generation: UInt64
    /// Seconds spent stepping cells and waiting for halos, since the sender started.
    package var computeSeconds: Double
    package var waitSeconds: Double

    package init(generation: UInt64, computeSeconds: Double = 0, waitSeconds: Double = 0) {
        (self.generation, self.computeSeconds, self.waitSeconds) = (generation, computeSeconds, waitSeconds)
    }
}

/// How a worker spent a run.
package struct WorkerReport: Sendable, Equatable {
    package var computeSeconds: Double
    package var waitSeconds: Double
    package var bytesSent: UInt64
    package var populations: [TileID: Int]
    /// Seconds each tile spent stepping cells, over its life on this worker: the
    /// coordinator balances the load by them.
    package var tileSeconds: [TileID: Double] = [:]
    /// A shard host's figures, in place of tiles'.
    package var shard: ShardFigures?

    package init(computeSeconds: Double = 0, waitSeconds: Double = 0, bytesSent: UInt64 = 0, populations: [TileID: Int] = [:]) {
        self.computeSeconds = computeSeconds
        self.waitSeconds = waitSeconds
        self.bytesSent = bytesSent
        self.populations = populations
    }
}

/// What a coordinator tells a presenter process that may drive it.
package struct PresenterWelcome: Sendable, Equatable {
    package let tiling: Tiling
    package let rule: Rule
    package let generation: UInt64
    package let population: Int
    package let workers: Int

    package init(tiling: Tiling, rule: Rule, generation: UInt64, population: Int, workers: Int) {
        (self.tiling, self.rule, self.generation, self.population, self.workers) = (tiling, rule, generation, population, workers)
    }
}

/// What a presenter process asks of the coordinator it drives.
package enum PresenterRequest: Sendable, Equatable {
    case advance(generations: UInt64)
    case frame(Viewport)
    case collect(rows: Range<Int>)
    case load(generation: UInt64, board: BitGrid)
    /// The presenter is done: the coordinator finishes the run.
    case finish
    /// The same frame's dots in their states (rules of more than two states).
    case stateFrame(Viewport)
    /// The whole board in its states, as `collectStates`.
    case collectStates
    /// Replaces the board's cells with `board`'s states at `generation`.
    case loadStates(generation: UInt64, board: StateGrid)
}

/// The coordinator's answer to a `PresenterRequest` (none for `finish`).
package enum PresenterReply: Sendable, Equatable {
    case advanced(generation: UInt64, population: Int)
    case frame(BitGrid)
    case board(BitGrid)
    case loaded(generation: UInt64, population: Int)
    /// A frame's dots in their states, a byte a dot; none where the run shows two states.
    case stateFrame(dots: [UInt8], states: Int)
    case states(StateGrid)
}

/// What a viewer asks the presenter to do.
package enum ViewerCommand: Sendable, Equatable {
    case togglePause
    case step
    case faster
    case slower
    case nextPattern
    /// Sets the cell to `state`, or to 0 where it is in `state` already: a toggle for two states.
    case toggleCell(x: Int, y: Int, state: Int)
    case save
    case rewind
}

/// One generation-consistent picture of the board, reduced to a viewer's viewport,
/// with the run's vital signs.
package struct Frame: Sendable, Equatable {
    package var generation: UInt64
    package var population: Int
    package var generationsPerSecond: Double
    package var cellUpdatesPerSecond: Double
    package var workers: Int
    package var tiles: (columns: Int, rows: Int)
    package var paused: Bool
    /// Seconds between generations; 0 is as fast as it goes.
    package var delay: Double
    /// The cells `0` fits, in viewport coordinates: the whole board, or on the unbounded
    /// plane the live cells' bounding box.
    package var board: (x: Int, y: Int, width: Int, height: Int)
    package var viewport: Viewport
    package var dots: BitGrid
    /// The same dots in their states, a byte each in rows (0 where none), and how many
    /// states the rule has; empty and 0 for a rule of two, or where the run shows none.
    package var states: [UInt8] = []
    package var stateCount = 0
    /// A line for the viewer to show once (where a save went, say).
    package var note: String

    package init(generation: UInt64, population: Int, generationsPerSecond: Double, cellUpdatesPerSecond: Double,
                 workers: Int, tiles: (columns: Int, rows: Int), paused: Bool, delay: Double,
                 board: (x: Int, y: Int, width: Int, height: Int), viewport: Viewport, dots: BitGrid, note: String) {
        self.generation = generation
        self.population = population
        self.generationsPerSecond = generationsPerSecond
        self.cellUpdatesPerSecond = cellUpdatesPerSecond
        self.workers = workers
        self.tiles = tiles
        self.paused = paused
        self.delay = delay
        self.board = board
        self.viewport = viewport
        self.dots = dots
        self.note = note
    }

    package static func == (a: Frame, b: Frame) -> Bool {
        a.generation == b.generation && a.population == b.population && a.generationsPerSecond == b.generationsPerSecond
            && a.cellUpdatesPerSecond == b.cellUpdatesPerSecond && a.workers == b.workers
            && a.tiles == b.tiles && a.paused == b.paused && a.delay == b.delay && a.board == b.board
            && a.viewport == b.viewport && a.dots == b.dots && a.states == b.states && a.stateCount == b.stateCount
            && a.note == b.note
    }
}
