import TesseraCore
import TesseraPatterns

/// A Generations rule in this process (Golly's generationsalgo): the cells as bit planes
/// of their states, a bounded grid stepped whole, or on the unbounded plane a dead-edge
/// window around the cells in any state that grows before one comes next to its edge.
actor GenerationsBoard: LocalUniverse {
    private let rule: Rule
    private let generations: Generations
    /// The bounded grid, nil on the unbounded plane.
    private let board: BoardShape?
    private(set) var generation: UInt64
    private var cells: StateGrid
    /// Golly's coordinates of `cells[0, 0]`.
    private var origin: (x: Int, y: Int)

    init(_ setup: RunSetup) throws {
        guard let generations = setup.rule.generations else { preconditionFailure("a Generations board for \(setup.rule)") }
        (rule, self.generations, generation) = (setup.rule, generations, setup.generation)
        let states = generations.states
        if setup.isUnbounded {
            board = nil
            let parts = setup.startingParts
            let box = parts.compactMap { part in
                part.cells.liveBounds.map { CellBounds(left: part.left + $0.x, top: part.top + $0.y, width: $0.width, height: $0.height) }
            }.reduce(nil as CellBounds?) { sum, next in sum.map { $0.union(next) } ?? next }
            guard let box else {
                (cells, origin) = (StateGrid(width: 0, height: 0, states: states), (0, 0))
                return
            }
            let margin = Self.margin(width: box.width, height: box.height)
            origin = (box.left - margin, box.top - margin)
            var ones = BitGrid(width: box.width + 2 * margin, height: box.height + 2 * margin)
            for part in parts { ones.formUnion(part.cells, atX: part.left - origin.x, y: part.top - origin.y) }
            cells = StateGrid(ones: ones, states: states)
        } else {
            board = setup.shape
            origin = (setup.shape.left, setup.shape.top)
            cells = StateGrid(ones: setup.start.cells(x: 0, y: 0, width: setup.shape.width, height: setup.shape.height, of: setup.shape),
                              states: states)
        }
        // The pattern's cells past state 1, where it lies.
        if let pattern = setup.pattern, let patternStates = pattern.states, !pattern.hasParts {
            let (left, top) = pattern.topLeft(on: setup.shape.topology)
            cells.place(patternStates, atX: left - origin.x, y: top - origin.y)
        }
    }

    /// Room around the cells: a quarter of their size, and 64 at least.
    private static func margin(width: Int, height: Int) -> Int { max(64, max(width, height) / 4) }

    func advance(_ generations: UInt64) async throws {
        var next = StateGrid(width: cells.width, height: cells.height, states: self.generations.states)
        for done in 0..<generations {
            if done % 64 == 0 { try Task.checkCancellation() }
            if board == nil {
                let occupied = cells.occupied
                guard cells.width > 0, occupied.liveBounds != nil else {
                    generation += generations - done
                    return
                }
                if Self.reachesEdge(occupied) {
                    regrow(occupied)
                    next = StateGrid(width: cells.width, height: cells.height, states: self.generations.states)
                }
            }
            try step(into: &next)
            swap(&cells, &next)
            generation += 1
        }
    }

    /// One generation into `next`: of the occupied cells' region alone where it is
    /// confined (`ActiveRegion`; Generations has no B0), the rest dead.
    private func step(into next: inout StateGrid) throws {
        let wraps = board?.topology == .torus, states = generations.states
        guard let region = ActiveRegion.of(cells.occupied.liveBounds, reach: 1, width: cells.width, height: cells.height, wraps: wraps),
              region.width < cells.width || region.height < cells.height else {
            return try cells.step(generations, into: &next, wraps: wraps)
        }
        next = StateGrid(width: cells.width, height: cells.height, states: states)
        guard region.width > 0, region.height > 0 else { return }
        let part = cells.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
        var stepped = StateGrid(width: region.width, height: region.height, states: states)
        try part.step(generations, into: &stepped, wraps: false)
        next.place(stepped, atX: region.x, y: region.y)
    }

    /// Whether a cell lies next to the window's edge, where the next generation could
    /// be born outside it.
    private static func reachesEdge(_ occupied: BitGrid) -> Bool {
        let band = 2
        guard occupied.width > 2 * band, occupied.height > 2 * band else { return true }
        return !occupied.isEmpty(x: 0, y: 0, width: occupied.width, height: band)
            || !occupied.isEmpty(x: 0, y: occupied.height - band, width: occupied.width, height: band)
            || !occupied.isEmpty(x: 0, y: 0, width: band, height: occupied.height)
            || !occupied.isEmpty(x: occupied.width - band, y: 0, width: band, height: occupied.height)
    }

    private func regrow(_ occupied: BitGrid) {
        guard let live = occupied.liveBounds else { return }
        let margin = Self.margin(width: live.width, height: live.height)
        var grown = StateGrid(width: live.width + 2 * margin, height: live.height + 2 * margin, states: generations.states)
        grown.place(cells.cropped(x: live.x, y: live.y, width: live.width, height: live.height), atX: margin, y: margin)
        origin = (origin.x + live.x - margin, origin.y + live.y - margin)
        cells = grown
    }

    /// The cells in any state but 0.
    func population() -> Int { cells.occupied.population }
    func fill() -> Double { 1 }

    // MARK: As viewers and files see it

    func extent() -> (x: Int, y: Int, width: Int, height: Int) {
        if let board { return (0, 0, board.width, board.height) }
        return Viewport.board(fitting: cells.occupied.liveBounds.map {
            CellBounds(left: origin.x + $0.x, top: origin.y + $0.y, width: $0.width, height: $0.height)
        })
    }

    var tiles: (columns: Int, rows: Int) { (1, 1) }
    nonisolated var isEditable: Bool { false }

    /// A dot is lit where a cell under it is in any state but 0.
    func frame(_ viewport: Viewport) -> BitGrid {
        let occupied = cells.occupied
        let (left, top) = board == nil ? (viewport.x - origin.x, viewport.y - origin.y) : (viewport.x, viewport.y)
        return occupied.dots(in: viewport, left: left, top: top)
    }

    func liveBounds() -> TileRect? { board == nil ? nil : cells.occupied.liveBounds }
    func cells(in rect: TileRect) -> BitGrid { cells.occupied.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
    func collect() -> BitGrid { cells.occupied }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) throws {
        throw TesseraError("changing the cells of a Generations run is not supported yet", fix: "edit the pattern file")
    }

    func write(_ output: BoardOutput) async throws {
        try output.write(states: cells, left: origin.x, top: origin.y, rule: rule, generation: generation)
    }
}
