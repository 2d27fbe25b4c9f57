import TesseraCore
import TesseraPatterns

/// Golly's unbounded plane, or a bounded grid a sparse map holds (`RunSetup.runsSparse`),
/// stepped in this process as a sparse map of tiles (`SparsePlane`): nothing the size of
/// the pattern's extent or the board's.
actor LocalPlane: LocalUniverse {
    private var plane: SparsePlane
    /// Threads a generation's tiles are shared among, when enough are due.
    private let threads: Int
    /// On a bounded grid.
    nonisolated let isEditable: Bool
    /// Generations stepped on one thread between looks at cancellation and at how
    /// many tiles are due.
    private static let slice: UInt64 = 16

    init(_ setup: RunSetup, threads: Int = CPUAffinity.usableCount) throws {
        if setup.isUnbounded || setup.soup == nil {
            plane = try SparsePlane(parts: setup.startingSparseParts, rule: setup.rule, board: setup.isUnbounded ? nil : setup.shape,
                                    generation: setup.generation)
        } else {
            let start = setup.start
            plane = try Self.filled(setup.shape, rule: setup.rule, generation: setup.generation) {
                start.cells(x: $0.x, y: $0.y, width: $0.width, height: $0.height, of: setup.shape)
            }
        }
        self.threads = max(1, threads)
        isEditable = !setup.isUnbounded
    }

    /// The bounded grid `board` with `cells` (board coordinates) asked a band of 64
    /// rows at a time: a soup, or a viewer's board.
    private static func filled(_ board: BoardShape, rule: Rule, generation: UInt64,
                               cells: (TileRect) -> BitGrid) throws -> SparsePlane {
        let plane = try SparsePlane(rule: rule, board: board, generation: generation)
        for top in stride(from: 0, to: board.height, by: 64) {
            let band = cells(TileRect(x: 0, y: top, width: board.width, height: min(64, board.height - top)))
            plane.add(PlacedCells(cells: band, left: board.left, top: board.top + top))
        }
        return plane
    }

    func countPopulation() -> Int { plane.population }

    func fill() -> Double {
        guard let box = plane.bounds else { return 0 }
        return min(1, Double(plane.tileCount) * 4096 / (Double(box.width) * Double(box.height)))
    }
    var tileCount: Int { plane.tileCount }
    var generation: UInt64 { plane.generation }

    /// Advances `generations` generations; a cancelled task stops between slices.
    /// While a generation's tiles are stepped on other threads, this actor may serve a
    /// read (a frame): it reads the present generation, which the stepping tasks never
    /// write (`SparsePlane.Work`), and nothing else changes the plane until they end.
    func advance(_ generations: UInt64) async throws {
        var left = generations
        while left > 0 {
            try Task.checkCancellation()
            if plane.dueCount == 0 {
                // Nothing alive, or still lifes and blinkers only: the rest costs nothing.
                plane.advance(left)
                return
            }
            if threads > 1, plane.dueCount >= SparsePlane.sharedFrom, let work = plane.work() {
                await work.run(among: threads)
                plane.finish()
                left -= 1
            } else {
                let slice = min(left, Self.slice)
                plane.advance(slice)
                left -= slice
            }
        }
    }

    // MARK: As viewers see it

    /// A bounded board, or the live cells' bounding box on the unbounded plane.
    func extent() -> (x: Int, y: Int, width: Int, height: Int) {
        guard let board = plane.board else { return Viewport.board(fitting: plane.bounds) }
        return (0, 0, board.width, board.height)
    }

    /// The tiles there are, and no rows: a sparse map has no columns and rows of tiles.
    var tiles: (columns: Int, rows: Int) { (plane.tileCount, 0) }

    func frame(_ viewport: Viewport) -> BitGrid { plane.frame(viewport) }

    func collect() throws -> BitGrid {
        guard let board = plane.board else { throw TesseraError.unboundedIsNotEditable }
        return cells(in: TileRect(x: 0, y: 0, width: board.width, height: board.height))
    }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) throws {
        guard let board = plane.board else { throw TesseraError.unboundedIsNotEditable }
        plane = try Self.filled(board, rule: plane.rule, generation: generation, cells: cells)
    }

    /// Where a bounded grid's cells live, in its coordinates.
    func liveBounds() -> TileRect? { plane.boardBounds() }

    /// A bounded grid's cells in `rect` (its coordinates).
    func cells(in rect: TileRect) -> BitGrid { plane.cells(inBoard: rect) }

    /// The live cells, in parts (Golly's coordinates): one grid where their bounding box
    /// is small, else runs of tiles.
    func liveParts() -> [PlacedCells] { plane.wholeOrLiveParts() }

    /// Writes the live cells as Golly writes them (`SparsePlane.write(to:)`).
    func write(_ output: BoardOutput) async throws { try await plane.write(to: output) }
}

extension RunSetup {
    /// Whether a run in this process steps it as a sparse map (`LocalPlane`) rather than
    /// as a dense board (`LocalBoard`): on the unbounded plane always; on a bounded grid
    /// that a sparse map holds (`SparsePlane.holds`), where the dense board would not fit
    /// in memory, or where a pattern covers less than 1% of it. A soup, or a pattern
    /// that fills its board, steps 2-3 times faster dense, whose kernel blocks
    /// generations in cache.
    package var runsSparse: Bool {
        if isUnbounded { return true }
        guard SparsePlane.holds(shape, rule: rule), soup == nil, let pattern else { return false }
        if !tilesFitInMemory { return true }
        let live = pattern.hasParts ? pattern.parts.reduce(0) { $0 + $1.cells.population } : pattern.cells.population
        return live.multipliedReportingOverflow(by: 100).partialValue < shape.cellCount
    }
}
