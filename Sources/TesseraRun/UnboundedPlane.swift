import TesseraCluster
import TesseraCore
import TesseraPatterns

/// What runs one window of the unbounded plane: a cluster's workers, or `LocalBoard`
/// in tests (a run in this process steps the plane as `LocalPlane`, with no window).
package protocol WindowRunner: Sendable {
    func advance(_ generations: UInt64) async throws
    /// The live cells' bounds (board coordinates) as the last advance left them.
    func liveBounds() async throws -> TileRect?
    /// The cells of `rect` (board coordinates).
    func cells(in rect: TileRect) async throws -> BitGrid
    /// A rectangle holding every live cell of `rect` (board coordinates), perhaps
    /// loosely; nil when none is alive there.
    func liveBounds(in rect: TileRect) async throws -> TileRect?
    /// Replaces the window with `setup`'s, its cells and all.
    func move(to setup: RunSetup) async throws
    /// Tiles the present window is cut into: more than it was made with once the
    /// coordinator cut it again for workers that joined.
    func tileCount() async -> Int
}

/// Golly's unbounded plane, run as a window that moves (see `PlaneWindow`).
package enum UnboundedPlane {
    /// Where an unbounded run stands: its window, the generation reached, and where
    /// the live cells are (board coordinates of the window; nil when none are).
    package struct Position: Sendable {
        package var setup: RunSetup
        package var generation: UInt64
        package var live: TileRect?

        package init(setup: RunSetup) {
            (self.setup, generation, live) = (setup, setup.generation, setup.startingBounds)
        }

        package var bounds: CellBounds? { live.map { CellBounds($0, of: setup.shape) } }
    }

    /// The live cells, each window's in a grid of its own where they lie in Golly's
    /// coordinates: read from `runner` only where they may be.
    package static func parts(at position: Position, from runner: some WindowRunner) async throws -> [PlacedCells] {
        guard position.live != nil else { return [] }
        guard let atlas = position.setup.atlas else {
            let (live, bounds) = (position.live!, position.bounds!)
            return [PlacedCells(cells: try await runner.cells(in: live), left: bounds.left, top: bounds.top)]
        }
        var parts: [PlacedCells] = []
        for island in atlas.islands {
            // Where its cells may be, narrowed to where they are before reading them.
            guard let reach = try await runner.liveBounds(in: island.reach(after: position.generation - position.setup.generation))
            else { continue }
            let corner = island.golly(reach)
            if let part = PlacedCells(trimming: try await runner.cells(in: reach), left: corner.left, top: corner.top) {
                parts.append(part)
            }
        }
        return parts
    }

    /// Live cells' bounding boxes past this many cells (4096², 2 MB) are read as
    /// `liveParts`, not whole.
    static let largestWholeRead = 1 << 24
    /// What `liveParts` reads whole: 4 Mi cells, half a megabyte.
    static let largestPart = 1 << 22

    /// The live cells of `rect` (board coordinates of the window) as grids around where
    /// they are, in Golly's coordinates: a rectangle holding any is halved across its
    /// longer side until it is small enough to read. Acorn's gliders 100000 generations
    /// on are 50000 cells apart: their bounding box, read whole, would be 2.5 G cells;
    /// read in parts it is what is alive.
    package static func liveParts(in rect: TileRect, of shape: BoardShape, from runner: some WindowRunner) async throws -> [PlacedCells] {
        guard let found = try await runner.liveBounds(in: rect), let area = found.intersection(rect) else { return [] }
        guard area.width * area.height > largestPart else {
            let corner = CellBounds(area, of: shape)
            return PlacedCells(trimming: try await runner.cells(in: area), left: corner.left, top: corner.top).map { [$0] } ?? []
        }
        let halves = area.width >= area.height
            ? [TileRect(x: area.x, y: area.y, width: area.width / 2, height: area.height),
               TileRect(x: area.x + area.width / 2, y: area.y, width: area.width - area.width / 2, height: area.height)]
            : [TileRect(x: area.x, y: area.y, width: area.width, height: area.height / 2),
               TileRect(x: area.x, y: area.y + area.height / 2, width: area.width, height: area.height - area.height / 2)]
        var parts: [PlacedCells] = []
        for half in halves { parts += try await liveParts(in: half, of: shape, from: runner) }
        return parts
    }

    /// `setup` at `generation` in new windows around the live cells `runner` holds in
    /// `live` of its window `shape` (`RunSetup.moved`; when they spread far and wide, a
    /// window for each group of them, as `regrouped` makes).
    static func remade(_ setup: RunSetup, generation: UInt64, live: TileRect, of shape: BoardShape, tileCount: Int,
                       from runner: some WindowRunner) async throws -> RunSetup {
        guard live.width * live.height > largestWholeRead else {
            return try setup.moved(cells: try await runner.cells(in: live), at: CellBounds(live, of: shape), generation: generation,
                                   tileCount: tileCount)
        }
        let parts = try await liveParts(in: live, of: shape, from: runner)
        return try setup.regrouped(parts: parts, generation: generation, tileCount: tileCount)
    }

    /// Advances `generations` generations: runs the window as far as its margin allows,
    /// looks where the live cells went, and moves the window before they could reach
    /// its edge. An empty plane stays empty (no B0 rule), so its generations cost nothing.
    package static func advance(_ generations: UInt64, from start: Position, on runner: some WindowRunner) async throws -> Position {
        var at = start, remaining = generations
        while remaining > 0 {
            try Task.checkCancellation()
            guard let live = at.live, let bounds = at.bounds else {
                at.generation += remaining
                break
            }
            let margin: Int
            if let atlas = at.setup.atlas {
                // Windows far apart: each runs as the plane while every one has room.
                margin = atlas.margin(after: at.generation - at.setup.generation)
                if margin < 1 {
                    let parts = try await parts(at: at, from: runner)
                    if let kept = at.setup.keepingWindows(parts: parts, generation: at.generation) {
                        // Every window still has room: the same board, its margins counted afresh.
                        at.setup = kept
                        continue
                    }
                    at.setup = try at.setup.regrouped(parts: parts, generation: at.generation, tileCount: await runner.tileCount())
                    try await runner.move(to: at.setup)
                    at.live = at.setup.startingBounds
                    continue
                }
            } else {
                margin = PlaneWindow.margin(of: bounds, in: at.setup.shape)
                if margin < 1 || PlaneWindow.shouldMove(bounds, from: at.setup.shape) {
                    at.setup = try await remade(at.setup, generation: at.generation, live: live, of: at.setup.shape,
                                                tileCount: await runner.tileCount(), from: runner)
                    try await runner.move(to: at.setup)
                    at.live = at.setup.startingBounds
                    continue
                }
            }
            let chunk = min(remaining, UInt64(margin))
            try await runner.advance(chunk)
            remaining -= chunk
            at.generation += chunk
            at.live = try await runner.liveBounds()
        }
        return at
    }

    /// Writes the live cells' bounding box, placed where they are (`#CXRLE Pos=x,y`),
    /// so Golly reopens it as the same pattern on its unbounded plane.
    package static func write(_ output: BoardOutput, at position: Position, from runner: some WindowRunner) async throws {
        if position.setup.atlas != nil {
            return try output.write(parts: try await parts(at: position, from: runner), rule: position.setup.rule,
                                    generation: position.generation)
        }
        var live = position.live ?? TileRect(x: 0, y: 0, width: 0, height: 0)
        if position.generation == position.setup.generation, position.live != nil {
            // Not stepped since it was made: where the pattern and soup may be, not
            // where their live cells are.
            let tight = try await runner.cells(in: live).liveBounds
            live = tight.map { TileRect(x: live.x + $0.x, y: live.y + $0.y, width: $0.width, height: $0.height) }
                ?? TileRect(x: 0, y: 0, width: 0, height: 0)
        }
        let shape = BoardShape(width: live.width, height: live.height, topology: .infinite,
                               left: position.setup.shape.left + live.x, top: position.setup.shape.top + live.y)
        let whole = TileRect(x: 0, y: 0, width: live.width, height: live.height)
        try await output.placed(on: shape).write(generation: position.generation, live: whole) { rect in
            try await runner.cells(in: TileRect(x: live.x + rect.x, y: live.y + rect.y, width: rect.width, height: rect.height))
        }
    }
}

/// A window on the cluster's workers; a move gives them the new window's tiles.
struct ClusterWindow: WindowRunner {
    let coordinator: Coordinator
    let generations: UInt64
    let balancing: Balancing

    func advance(_ generations: UInt64) async throws { try await coordinator.advance(generations, balancing: balancing) }
    func liveBounds() async throws -> TileRect? { await coordinator.liveBounds }

    func liveBounds(in rect: TileRect) async throws -> TileRect? { try await coordinator.liveBounds(in: rect) }
    func cells(in rect: TileRect) async throws -> BitGrid { try await coordinator.cells(in: rect) }
    func move(to setup: RunSetup) async throws { try await coordinator.replan(setup.plan(generations: generations)) }
    func tileCount() async -> Int { await coordinator.tiling.tiles.count }
}
