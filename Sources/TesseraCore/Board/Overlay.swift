/// Cells laid over a board with their top-left at (x, y), counted from the board's
/// top-left corner: a pattern small enough to send to every worker, which then cuts
/// each of its tiles' cells from it instead of the coordinator cutting and sending them.
public struct Overlay: Hashable, Sendable {
    /// The cells in any state but 0.
    public let cells: BitGrid
    /// Each cell's state, for a rule of more than two states (the same size as `cells`);
    /// nil for two.
    public let states: StateGrid?
    public let x: Int
    public let y: Int

    public init(cells: BitGrid, x: Int, y: Int) {
        (self.cells, self.states, self.x, self.y) = (cells, nil, x, y)
    }

    public init(states: StateGrid, x: Int, y: Int) {
        (self.cells, self.states, self.x, self.y) = (states.occupied, states, x, y)
    }

    /// `part`'s cells at its place in Golly's coordinates (as the wire carries a sparse
    /// plane's parts).
    public init(_ part: PlacedCells) {
        self.init(cells: part.cells, x: part.left, y: part.top)
    }

    /// The overlay's cells in the `width`×`height` rectangle at (x, y) of the board.
    public func cells(x: Int, y: Int, width: Int, height: Int) -> BitGrid {
        var grid = BitGrid(width: width, height: height)
        cells.copy(into: &grid, atX: self.x - x, y: self.y - y)
        return grid
    }

    /// Live cells of the overlay inside `rect` of the board.
    public func population(in rect: TileRect) -> Int {
        cropped(to: rect)?.cells.population ?? 0
    }

    /// Whether no live cell of the overlay lies inside `rect` of the board: a look, with
    /// nothing copied (a part of a large pattern is tens of megabytes).
    public func isEmpty(in rect: TileRect) -> Bool {
        guard let part = box.intersection(rect) else { return true }
        return cells.isEmpty(x: part.x - x, y: part.y - y, width: part.width, height: part.height)
    }

    /// The part of the overlay inside `rect` of the board; nil when none of it is.
    public func cropped(to rect: TileRect) -> Overlay? {
        guard let part = box.intersection(rect) else { return nil }
        let (left, top) = (part.x - x, part.y - y)
        if let states { return Overlay(states: states.cropped(x: left, y: top, width: part.width, height: part.height), x: part.x, y: part.y) }
        return Overlay(cells: cells.cropped(x: left, y: top, width: part.width, height: part.height), x: part.x, y: part.y)
    }

    /// Where the overlay lies on the board.
    private var box: TileRect { TileRect(x: x, y: y, width: cells.width, height: cells.height) }
}

/// Where a board's starting cells come from: a soup (or nothing) with overlays laid
/// over it (several where a pattern is read in parts). The coordinator and the workers
/// cut tiles from it the same way.
public struct StartingCells: Hashable, Sendable {
    public let soup: Soup?
    public let overlays: [Overlay]

    public init(soup: Soup?, overlays: [Overlay]) {
        (self.soup, self.overlays) = (soup, overlays)
    }

    public init(soup: Soup?, overlay: Overlay?) {
        self.init(soup: soup, overlays: overlay.map { [$0] } ?? [])
    }

    /// The `width`×`height` rectangle at (x, y) of a board of `shape`, counted from its top-left.
    public func cells(x: Int, y: Int, width: Int, height: Int, of shape: BoardShape) -> BitGrid {
        var grid = soup?.cells(x: shape.left + x, y: shape.top + y, width: width, height: height)
            ?? BitGrid(width: width, height: height)
        for overlay in overlays { grid.formUnion(overlay.cells(x: x, y: y, width: width, height: height)) }
        return grid
    }
}
