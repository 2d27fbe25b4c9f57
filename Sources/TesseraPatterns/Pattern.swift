import TesseraCore

/// A pattern as read from a file or the built-in library: its cells and what the file
/// said about placing and running them.
public struct Pattern: Sendable, Equatable {
    /// The pattern's cells; its size is the size the file declared.
    public var cells: BitGrid
    /// Golly coordinates of the top-left cell. `nil` means the file gave none and the
    /// pattern is centred as Golly centres it: top-left at (−⌊w/2⌋, −⌊h/2⌋).
    public var position: (x: Int, y: Int)?
    public var rule: Rule?
    /// The bounded grid named by the rule's suffix (`:T…` or `:P…`), if any.
    public var board: BoardShape?
    public var generation: UInt64
    public var comments: [String]
    /// The state of each of `cells` (the same size), for a rule of more than two states,
    /// whose cells not in state 0 `cells` holds; nil for two states.
    public var states: StateGrid?
    /// A macrocell's squares of more than two states where its cells are too many to
    /// hold as a grid: `cells` and `states` are then empty, and only an engine that steps
    /// the squares as they are (`StateHashLife`) runs it.
    public var stateTree: StateQuadTree?
    /// Groups of live cells lying too far apart for one grid to hold them (a macrocell
    /// can place patterns a billion cells apart): each group in a grid of its own, placed
    /// from the pattern's top-left (`topLeft(on:)`). `cells` is then empty. A large
    /// macrocell's are made on first use (`pending`).
    public var parts: [PlacedCells] {
        get { pending?.parts ?? heldParts }
        set { (heldParts, pending, tree) = (newValue, nil, nil) }
    }
    private var heldParts: [PlacedCells] = []
    /// Parts whose cells are made when first asked for, nil where `parts` are held.
    public private(set) var pending: PendingParts?
    /// The quadtree the parts were read from (a large macrocell), which HashLife takes
    /// as it is.
    public private(set) var tree: QuadTree?

    /// Whether the pattern is its `parts`, asked without making them.
    public var hasParts: Bool { pending != nil || !heldParts.isEmpty }

    /// Where each part's cells lie (placed from the top-left), without making them.
    public var partBounds: [CellBounds] { pending?.bounds ?? heldParts.map(\.bounds) }
    /// The size the file declared, when `parts` stand for a box too large to hold
    /// whole: what Golly centres on a bounded grid when the file gives no position.
    public var extent: (width: Int, height: Int)?

    public init(
        cells: BitGrid, position: (x: Int, y: Int)? = nil, rule: Rule? = nil,
        board: BoardShape? = nil, generation: UInt64 = 0, comments: [String] = []
    ) {
        self.cells = cells
        self.position = position
        self.rule = rule
        self.board = board
        self.generation = generation
        self.comments = comments
    }

    /// A pattern of groups far apart, each in a grid of its own (`parts`), where Golly puts them.
    public init(parts: [PlacedCells], rule: Rule?, board: BoardShape? = nil, generation: UInt64, comments: [String] = []) {
        self.init(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board,
                  generation: generation, comments: comments)
        self.parts = parts
    }

    /// A macrocell's cells, `tree`, as `pending` parts in Golly's coordinates.
    public init(tree: QuadTree, pending: PendingParts, rule: Rule?, board: BoardShape?, generation: UInt64, comments: [String]) {
        self.init(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board,
                  generation: generation, comments: comments)
        (self.tree, self.pending) = (tree, pending)
    }

    /// The same cells with their parts placed (Golly's coordinates) from the origin, as
    /// on a board of `topology`: a pattern already there stays as it is, its parts
    /// unmade.
    public func placedAtOrigin(on topology: Topology) -> Pattern {
        let (x, y) = topLeft(on: topology)
        guard x != 0 || y != 0 || !hasParts else {
            var placed = self
            (placed.position, placed.extent) = ((0, 0), nil)
            return placed
        }
        return Pattern(parts: placedParts(on: topology), rule: rule, board: board, generation: generation, comments: comments)
    }

    /// A pattern declared `extent` cells large whose live cells are `parts`, placed from
    /// the declared box's top-left: at `position`, or where Golly places such a box.
    public init(parts: [PlacedCells], extent: (width: Int, height: Int), position: (x: Int, y: Int)?, rule: Rule?,
                board: BoardShape?, generation: UInt64, comments: [String]) {
        self.init(cells: BitGrid(width: 0, height: 0), position: position, rule: rule, board: board,
                  generation: generation, comments: comments)
        (self.parts, self.extent) = (parts, extent)
    }

    /// Golly coordinates of the top-left cell after Golly's placement rule on a bounded
    /// grid: a pattern with no position is centred.
    public var topLeft: (x: Int, y: Int) { topLeft(on: .torus) }

    /// Golly coordinates of the top-left cell on a board of `topology`: bgolly centres a
    /// pattern with no position on a bounded grid, and puts its top-left at the origin
    /// on the unbounded plane.
    public func topLeft(on topology: Topology) -> (x: Int, y: Int) {
        let (width, height) = extent ?? (cells.width, cells.height)
        return position ?? (topology == .infinite ? (0, 0) : (-(width / 2), -(height / 2)))
    }

    /// The pattern with a place of its own where Golly's RLE reader puts one that gives
    /// none on a grid of `width` × `height` cells, 0 for a direction that is unbounded
    /// (a tube's length): centred where the declared box fits the grid, else from the
    /// grid's top-left corner (gollybase/readpattern.cpp, `readrle`). Unchanged on the
    /// unbounded plane (0 × 0), or where the file gives its place. Golly then drops the
    /// cells that lie past the grid; a run here refuses them (`checkFits`).
    public func placedAsGollyDoes(onGrid width: Int, _ height: Int) -> Pattern {
        guard position == nil, width > 0 || height > 0 else { return self }
        let (boxWidth, boxHeight) = extent ?? (cells.width, cells.height)
        let fits = boxWidth > 0 && (boxWidth <= width || width == 0) && boxHeight > 0 && (boxHeight <= height || height == 0)
        var placed = self
        placed.position = fits ? (-(boxWidth / 2), -(boxHeight / 2)) : (-(width / 2), -(height / 2))
        return placed
    }

    /// The pattern's live cells in one or more grids, where Golly puts them.
    public func placedParts(on topology: Topology) -> [PlacedCells] {
        let (x, y) = topLeft(on: topology)
        guard !hasParts else {
            return x == 0 && y == 0 ? parts : parts.map { PlacedCells(cells: $0.cells, left: $0.left + x, top: $0.top + y) }
        }
        return [PlacedCells(cells: cells, left: x, top: y)]
    }

    /// Whether a cell may lie at `coordinate` (Golly's, x or y): within ±2^62, so that no
    /// difference of two placed coordinates overflows.
    public static func isPlaceable(_ coordinate: Int) -> Bool { coordinate.magnitude < BoardShape.maxCoordinate.magnitude }

    /// Throws unless every live cell lands on a board of `shape`.
    /// The error names the pattern's box as it was read (its declared box where it is
    /// held in parts), not a part of it.
    public func checkFits(on shape: BoardShape) throws {
        let (x, y) = topLeft(on: shape.topology), parts = placedParts(on: shape.topology)
        guard parts.allSatisfy({ Self.lands($0, on: shape) }) else {
            let right = parts.map { $0.left + $0.cells.width }.max() ?? x, bottom = parts.map { $0.top + $0.cells.height }.max() ?? y
            let (width, height) = extent ?? (hasParts ? (right - x, bottom - y) : (cells.width, cells.height))
            throw TesseraError(
                "the \(width)x\(height) pattern at (\(x),\(y)) extends beyond the \(shape.width)x\(shape.height) board",
                fix: "give a larger --size")
        }
    }

    /// Whether every live cell of `part` lies on a board of `shape`.
    private static func lands(_ part: PlacedCells, on shape: BoardShape) -> Bool {
        let cells = part.cells
        let x0 = max(0, shape.left - part.left), x1 = min(cells.width, shape.left + shape.width - part.left)
        let y0 = max(0, shape.top - part.top), y1 = min(cells.height, shape.top + shape.height - part.top)
        // The whole grid on the board, as almost always: nothing to count.
        if x0 == 0 && y0 == 0 && x1 == cells.width && y1 == cells.height { return true }
        let inside = x0 < x1 && y0 < y1 ? cells.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0).population : 0
        return inside == cells.population
    }

    /// This pattern's grids laid on a board of `shape`, where Golly places them.
    public func overlays(on shape: BoardShape) -> [Overlay] {
        placedParts(on: shape.topology).map { part in
            // States come with a pattern read whole.
            if let states, !hasParts { return Overlay(states: states, x: part.left - shape.left, y: part.top - shape.top) }
            return Overlay(cells: part.cells, x: part.left - shape.left, y: part.top - shape.top)
        }
    }

    public static func == (a: Pattern, b: Pattern) -> Bool {
        a.cells == b.cells && a.parts == b.parts && a.position?.x == b.position?.x && a.position?.y == b.position?.y
            && a.extent?.width == b.extent?.width && a.extent?.height == b.extent?.height
            && a.rule == b.rule && a.board == b.board && a.generation == b.generation && a.states == b.states
            && a.stateTree == b.stateTree
    }
}

extension Pattern {
    /// The bytes a pattern read whole holds for a `width` x `height` box of `states`
    /// states: its live cells a bit each in rows of whole words, and where there are more
    /// than two states, their planes as well (`Int.max` past what an `Int` counts). The
    /// readers check it against the memory budget, so that what one reads another can.
    static func bytesHeld(width: Int, height: Int, states: Int) -> Int {
        let planes = states > 2 ? 1 + StateGrid.planes(for: states) : 1
        let words = width / 64 + (width % 64 == 0 ? 0 : 1)
        let (row, tooWide) = (8 * planes).multipliedReportingOverflow(by: words)
        let (all, tooMany) = row.multipliedReportingOverflow(by: height)
        return tooWide || tooMany ? .max : all
    }
}
