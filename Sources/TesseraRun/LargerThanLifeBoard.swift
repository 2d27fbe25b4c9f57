import TesseraCore
import TesseraPatterns

/// Larger than Life in this process (Golly's ltlalgo): a bounded grid stepped whole, or
/// on the unbounded plane a dead-edge window around the live cells that grows before a
/// live cell comes within the range of its edge, so that the window steps exactly as the
/// plane would. One bit a cell, and scratch of a few rows.
actor LargerThanLifeBoard: LocalUniverse {
    private let rule: Rule
    private let ltl: LargerThanLife
    /// The bounded grid, nil on the unbounded plane.
    private let board: BoardShape?
    private(set) var generation: UInt64
    private var cells: BitGrid
    /// Golly's coordinates of `cells[0, 0]`.
    private var origin: (x: Int, y: Int)

    init(_ setup: RunSetup) throws {
        guard let ltl = setup.rule.largerThanLife else { preconditionFailure("a Larger than Life board for \(setup.rule)") }
        (rule, self.ltl, generation) = (setup.rule, ltl, setup.generation)
        if setup.isUnbounded {
            guard !ltl.bornFromNothing else {
                throw TesseraError("Larger than Life rule \(ltl) has B0, which Golly allows only on a bounded grid",
                                   fix: "give the rule a suffix such as \(ltl):T400,400")
            }
            board = nil
            let parts = setup.startingParts
            guard let box = Self.bounds(of: parts) else {
                (cells, origin) = (BitGrid(width: 0, height: 0), (0, 0))
                return
            }
            let margin = Self.margin(for: ltl, width: box.width, height: box.height)
            origin = (box.left - margin, box.top - margin)
            cells = BitGrid(width: box.width + 2 * margin, height: box.height + 2 * margin)
            for part in parts { cells.formUnion(part.cells, atX: part.left - origin.x, y: part.top - origin.y) }
        } else {
            board = setup.shape
            origin = (setup.shape.left, setup.shape.top)
            cells = setup.start.cells(x: 0, y: 0, width: setup.shape.width, height: setup.shape.height, of: setup.shape)
        }
    }

    /// Room around the live cells: the range at least, and a quarter of their size, so
    /// that a growing pattern moves its window a logarithmic number of times.
    private static func margin(for ltl: LargerThanLife, width: Int, height: Int) -> Int {
        max(2 * ltl.range + 2, 64, max(width, height) / 4)
    }

    private static func bounds(of parts: [PlacedCells]) -> CellBounds? {
        var box: CellBounds?
        for part in parts {
            guard let live = part.cells.liveBounds else { continue }
            let next = CellBounds(left: part.left + live.x, top: part.top + live.y, width: live.width, height: live.height)
            box = box.map { $0.union(next) } ?? next
        }
        return box
    }

    func advance(_ generations: UInt64) async throws {
        var next = BitGrid(width: cells.width, height: cells.height)
        for done in 0..<generations {
            if done % 64 == 0 { try Task.checkCancellation() }
            if board == nil {
                guard cells.width > 0, cells.liveBounds != nil else {
                    generation += generations - done
                    return
                }
                if reachesEdge() {
                    regrow()
                    next = BitGrid(width: cells.width, height: cells.height)
                }
            }
            try step(into: &next)
            swap(&cells, &next)
            generation += 1
        }
    }

    /// One generation into `next`: of the live cells' region alone where it is
    /// confined (`ActiveRegion`), the rest dead; the whole board where B0 makes every
    /// cell matter.
    private func step(into next: inout BitGrid) throws {
        let wraps = board?.topology == .torus
        guard !ltl.bornFromNothing,
              let region = ActiveRegion.of(cells.liveBounds, reach: ltl.range, width: cells.width, height: cells.height, wraps: wraps),
              region.width < cells.width || region.height < cells.height else {
            return try ltl.step(cells, into: &next, wraps: wraps)
        }
        next = BitGrid(width: cells.width, height: cells.height)
        guard region.width > 0, region.height > 0 else { return }
        let part = cells.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
        var stepped = BitGrid(width: region.width, height: region.height)
        try ltl.step(part, into: &stepped, wraps: false)
        stepped.copy(into: &next, atX: region.x, y: region.y)
    }

    /// Whether a live cell lies within the range of the window's edge, where the next
    /// generation could be born outside it.
    private func reachesEdge() -> Bool {
        let band = ltl.range + 1
        guard cells.width > 2 * band, cells.height > 2 * band else { return true }
        return !cells.isEmpty(x: 0, y: 0, width: cells.width, height: band)
            || !cells.isEmpty(x: 0, y: cells.height - band, width: cells.width, height: band)
            || !cells.isEmpty(x: 0, y: 0, width: band, height: cells.height)
            || !cells.isEmpty(x: cells.width - band, y: 0, width: band, height: cells.height)
    }

    /// A new window around the live cells, with room again.
    private func regrow() {
        guard let live = cells.liveBounds else { return }
        let margin = Self.margin(for: ltl, width: live.width, height: live.height)
        var grown = BitGrid(width: live.width + 2 * margin, height: live.height + 2 * margin)
        grown.formUnion(cells.cropped(x: live.x, y: live.y, width: live.width, height: live.height), atX: margin, y: margin)
        origin = (origin.x + live.x - margin, origin.y + live.y - margin)
        cells = grown
    }

    func population() -> Int { cells.population }
    func fill() -> Double { 1 }

    // MARK: As viewers and files see it

    func extent() -> (x: Int, y: Int, width: Int, height: Int) {
        if let board { return (0, 0, board.width, board.height) }
        return Viewport.board(fitting: liveCells())
    }

    private func liveCells() -> CellBounds? {
        cells.liveBounds.map { CellBounds(left: origin.x + $0.x, top: origin.y + $0.y, width: $0.width, height: $0.height) }
    }

    var tiles: (columns: Int, rows: Int) { (1, 1) }
    nonisolated var isEditable: Bool { false }

    /// A dot is lit where a cell under it lives.
    func frame(_ viewport: Viewport) -> BitGrid {
        // The viewport is a bounded grid's own coordinates, or Golly's.
        let (left, top) = board == nil ? (viewport.x - origin.x, viewport.y - origin.y) : (viewport.x, viewport.y)
        return cells.dots(in: viewport, left: left, top: top)
    }

    func liveBounds() -> TileRect? { board == nil ? nil : cells.liveBounds }
    func cells(in rect: TileRect) -> BitGrid { cells.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
    func collect() -> BitGrid { cells }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) throws {
        throw TesseraError("changing the cells of a Larger than Life run is not supported yet", fix: "edit the pattern file")
    }

    func write(_ output: BoardOutput) async throws {
        guard board != nil else {
            let parts = cells.liveBounds.map {
                [PlacedCells(cells: cells.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height),
                             left: origin.x + $0.x, top: origin.y + $0.y)]
            } ?? []
            return try output.write(parts: parts, rule: rule, generation: generation)
        }
        try await output.write(generation: generation, live: cells.liveBounds) { self.cells(in: $0) }
    }
}
