import TesseraCore

/// A board's tiles as actors in this process, trading halos in memory.
public final class TileCluster: Sendable {
    public let tiling: Tiling
    public let halo: Int
    public let rule: Rule
    public let actors: [TileID: TileActor]

    /// - Parameters:
    ///   - skipping: whether tiles skip the blocks that cannot change.
    ///   - start: where the initial cells of a tile's rectangle (board coordinates) come from.
    public init(tiling: Tiling, rule: Rule, halo: Int, generation: UInt64 = 0,
                implementation: Kernel.Implementation = Kernel.best, overlap: Bool? = nil, blocking: Bool? = nil,
                skipping: Bool = true, start: (TileRect) throws -> TileStart) async throws {
        try tiling.validate(halo: halo, reach: rule.reach)
        try Self.checkMemory(tiling.tiles, of: tiling, halo: halo, rule: rule)
        self.tiling = tiling
        self.halo = halo
        self.rule = rule
        var actors: [TileID: TileActor] = [:]
        for tile in tiling.tiles {
            let rect = tiling.rect(of: tile)
            actors[tile] = try TileActor(
                id: tile, rect: rect, depth: halo, rule: rule,
                deadSides: Self.deadSides(of: tile, in: tiling), start: try start(rect),
                generation: generation, implementation: implementation, overlap: overlap,
                blocking: blocking, skipping: skipping)
        }
        self.actors = actors
        for (tile, actor) in actors {
            var links: [Direction: any HaloLink] = [:]
            for side in Direction.allCases {
                if let other = tiling.neighbour(of: tile, side) { links[side] = LocalHaloLink(target: actors[other]!) }
            }
            await actor.connect(links)
        }
    }

    /// - Parameter cells: the initial cells of a tile's rectangle (board coordinates).
    public convenience init(tiling: Tiling, rule: Rule, halo: Int, generation: UInt64 = 0,
                            implementation: Kernel.Implementation = Kernel.best, overlap: Bool? = nil, blocking: Bool? = nil,
                            skipping: Bool = true, cells: (TileRect) throws -> BitGrid) async throws {
        try await self.init(tiling: tiling, rule: rule, halo: halo, generation: generation, implementation: implementation,
                            overlap: overlap, blocking: blocking, skipping: skipping) { .cells(try cells($0)) }
    }

    /// Whether a tile of `rect` advances its rounds by temporal blocking unless told otherwise.
    public static func blockingPays(rect: TileRect, halo: Int) -> Bool {
        TileEngine.blockingPays(rect: rect, depth: halo)
    }

    /// What every tile of `tiling` takes in memory.
    public static func byteCount(of tiling: Tiling, halo: Int, rule: Rule) -> Int {
        tiling.tiles.reduce(0) { $0 + TileEngine.byteCount(rect: tiling.rect(of: $1), depth: halo, rule: rule) }
    }

    /// Refuses, before allocating anything, to build `tiles` if they would not fit in
    /// memory, with `fix` if given.
    public static func checkMemory(_ tiles: [TileID], of tiling: Tiling, halo: Int, rule: Rule, extraBytes: Int = 0,
                                   fix: String? = nil) throws {
        let bytes = tiles.reduce(extraBytes) { $0 + TileEngine.byteCount(rect: tiling.rect(of: $1), depth: halo, rule: rule) }
        try MemoryBudget.check(
            bytes: bytes, what: "\(tiles.count) tiles of a \(tiling.shape.width)x\(tiling.shape.height) board",
            fix: fix ?? "use a smaller --size or spread the tiles over more machines")
    }

    /// The sides of `tile` where a plane board ends.
    public static func deadSides(of tile: TileID, in tiling: Tiling) -> Set<Direction> {
        guard tiling.shape.topology.hasDeadEdges else { return [] }
        var sides: Set<Direction> = []
        if tile.row == 0 { sides.insert(.north) }
        if tile.row == tiling.rows - 1 { sides.insert(.south) }
        if tile.column == 0 { sides.insert(.west) }
        if tile.column == tiling.columns - 1 { sides.insert(.east) }
        return sides
    }

    /// Advances every tile `generations` generations; returns when all have. When one
    /// tile fails, the others are cancelled (their waits for halos end at once) and its
    /// error is thrown.
    public func run(generations: UInt64) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for actor in actors.values {
                group.addTask { try await actor.run(generations: generations) }
            }
            // The first error ends the loop; leaving the group cancels the rest. (`waitForAll`
            // would wait for every child first, and the others wait for halos forever.)
            for try await _ in group {}
        }
    }

    /// Blocks the tiles stepped one at a time so far, and the rows (256 cells each) of them.
    public func blocksStepped() async -> (blocks: Int, rows: Int) {
        var total = (blocks: 0, rows: 0)
        for actor in actors.values {
            let stepped = await actor.blocksStepped
            total = (total.blocks + stepped.blocks, total.rows + stepped.rows)
        }
        return total
    }

    /// Memory the tiles' cells hold, nil where the system does not say.
    public func residentBytes() async -> Int? {
        var total = 0
        for actor in actors.values {
            guard let bytes = await actor.residentBytes else { return nil }
            total += bytes
        }
        return total
    }

    /// Halo bytes the tiles sent (cells only, as `HaloStrip.cellBytes` counts them).
    public func sentBytes() async -> Int {
        var total = 0
        for actor in actors.values { total += await actor.sentBytes }
        return total
    }

    public func population() async throws -> Int {
        var total = 0
        for actor in actors.values { total += try await actor.population() }
        return total
    }

    /// The smallest rectangle (board coordinates) holding every live cell, of those in
    /// `area` if given; nil when none is.
    public func liveBounds(in area: TileRect? = nil) async throws -> TileRect? {
        var found: TileRect? = nil
        for actor in actors.values {
            if let part = try await actor.liveBounds(in: area) { found = found.map { $0.union(part) } ?? part }
        }
        return found
    }

    /// The board reduced to `view`'s dots (board coordinates), each tile drawing its
    /// own: no cell leaves a tile.
    public func dots(in view: Viewport) async throws -> BitGrid {
        var dots = BitGrid(width: view.width, height: view.height)
        for actor in actors.values {
            if let part = try await actor.dots(in: view) { dots.formUnion(part.dots, atX: part.x, y: part.y) }
        }
        return dots
    }

    /// The whole board, assembled from every tile's cells.
    public func board() async throws -> BitGrid {
        try await board(rows: 0..<tiling.shape.height)
    }

    /// Rows `rows` of the board, full width.
    public func board(rows: Range<Int>) async throws -> BitGrid {
        try await cells(in: TileRect(x: 0, y: rows.lowerBound, width: tiling.shape.width, height: rows.count))
    }

    /// The cells of `rect` (board coordinates), from the tiles it crosses: a few live
    /// cells on a huge board are read as what lies around them, not as whole rows.
    public func cells(in rect: TileRect) async throws -> BitGrid {
        var grid = BitGrid(width: rect.width, height: rect.height)
        for (_, actor) in actors.sorted(by: { $0.key < $1.key }) {
            guard let part = try await actor.cells(in: rect) else { continue }
            part.cells.copy(into: &grid, atX: part.x - rect.x, y: part.y - rect.y)
        }
        return grid
    }

    /// The whole board's states, for a rule of more than two (`Rule.steppedAsStates`).
    public func states() async throws -> StateGrid {
        var grid = StateGrid(width: tiling.shape.width, height: tiling.shape.height, states: rule.states)
        for (_, actor) in actors.sorted(by: { $0.key < $1.key }) {
            guard let part = try await actor.cells(in: actor.rect), let states = part.states else { continue }
            grid.replace(with: states, atX: part.x, y: part.y)
        }
        return grid
    }
}
