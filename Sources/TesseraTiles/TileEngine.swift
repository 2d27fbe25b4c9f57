import TesseraCore

/// The cells of one tile plus a halo `depth` cells deep on every side, double-buffered.
/// Each exchange fills the halo from the neighbours; the tile can then advance up to
/// `depth` generations alone, because Life information moves one cell per generation.
///
/// Owned by exactly one `TileActor`; not `Sendable`.
final class TileEngine {
    let rect: TileRect
    let depth: Int
    let rule: Rule
    /// Sides beyond which a plane board ends: their halo is kept dead every generation.
    let deadSides: Set<Direction>
    let implementation: Kernel.Implementation
    private var current: CellBuffer
    private var next: CellBuffer

    init(rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>, cells: BitGrid,
         implementation: Kernel.Implementation) {
        self.rect = rect
        self.depth = depth
        self.rule = rule
        self.deadSides = deadSides
        self.implementation = implementation
        current = CellBuffer(width: rect.width + 2 * depth, height: rect.height + 2 * depth)
        next = CellBuffer(width: rect.width + 2 * depth, height: rect.height + 2 * depth)
        current.insert(cells, atX: depth, y: depth)
    }

    static func byteCount(rect: TileRect, depth: Int) -> Int {
        2 * CellBuffer.byteCount(width: rect.width + 2 * depth, height: rect.height + 2 * depth)
    }

    /// Buffer span along one axis for a side component: -1 before, 0 along, +1 after the interior.
    private func span(_ component: Int, length: Int, halo: Bool) -> Range<Int> {
        switch component {
        case -1: return halo ? 0..<depth : depth..<(2 * depth)
        case 1: return halo ? (depth + length)..<(length + 2 * depth) : length..<(length + depth)
        default: return depth..<(depth + length)
        }
    }

    private func region(_ side: Direction, halo: Bool) -> (x: Range<Int>, y: Range<Int>) {
        (span(side.dx, length: rect.width, halo: halo), span(side.dy, length: rect.height, halo: halo))
    }

    /// The interior cells next to `side`: what the neighbour on that side needs as halo.
    func edge(_ side: Direction) -> BitGrid {
        let (xs, ys) = region(side, halo: false)
        return current.extract(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
    }

    /// Fills the halo on `side` with the neighbour's edge cells.
    func fillHalo(_ side: Direction, with cells: BitGrid) {
        let (xs, ys) = region(side, halo: true)
        precondition(cells.width == xs.count && cells.height == ys.count, "halo strip of the wrong size")
        current.insert(cells, atX: xs.lowerBound, y: ys.lowerBound)
    }

    /// Advances `generations` (at most `depth`) generations since the last halo fill.
    func advance(_ generations: Int) {
        precondition(generations <= depth)
        for g in 0..<generations {
            Kernel.step(current, into: next, rows: (g + 1)..<(current.height - 1 - g), rule: rule,
                        using: implementation)
            swap(&current, &next)
            killDeadSides()
        }
    }

    private func killDeadSides() {
        guard !deadSides.isEmpty else { return }
        let fullWidth = current.rowWords * 64
        if deadSides.contains(.north) { current.clear(x: 0, y: 0, width: fullWidth, height: depth) }
        if deadSides.contains(.south) {
            current.clear(x: 0, y: depth + rect.height, width: fullWidth, height: depth)
        }
        if deadSides.contains(.west) { current.clear(x: 0, y: 0, width: depth, height: current.height) }
        if deadSides.contains(.east) {
            let x = depth + rect.width
            current.clear(x: x, y: 0, width: fullWidth - x, height: current.height)
        }
    }

    var population: Int {
        current.population(x: depth, y: depth, width: rect.width, height: rect.height)
    }

    var cells: BitGrid {
        current.extract(x: depth, y: depth, width: rect.width, height: rect.height)
    }
}
