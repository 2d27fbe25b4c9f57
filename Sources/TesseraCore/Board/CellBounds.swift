/// A rectangle of cells in Golly's coordinates, 64-bit.
public struct CellBounds: Hashable, Sendable, CustomStringConvertible {
    public let left: Int, top: Int, width: Int, height: Int

    public init(left: Int, top: Int, width: Int, height: Int) {
        (self.left, self.top, self.width, self.height) = (left, top, width, height)
    }

    /// The rectangle `rect` of a board of `shape`, in Golly's coordinates.
    public init(_ rect: TileRect, of shape: BoardShape) {
        self.init(left: shape.left + rect.x, top: shape.top + rect.y, width: rect.width, height: rect.height)
    }

    /// Past the right column and below the bottom row.
    public var right: Int { left + width }
    public var bottom: Int { top + height }

    public func union(_ other: CellBounds) -> CellBounds {
        let x0 = min(left, other.left), y0 = min(top, other.top)
        return CellBounds(left: x0, top: y0, width: max(right, other.right) - x0, height: max(bottom, other.bottom) - y0)
    }

    /// The cells in both; nil when they do not meet.
    public func intersection(_ other: CellBounds) -> CellBounds? {
        let x0 = max(left, other.left), y0 = max(top, other.top)
        let x1 = min(right, other.right), y1 = min(bottom, other.bottom)
        return x0 < x1 && y0 < y1 ? CellBounds(left: x0, top: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// This rectangle as a rectangle of a board of `shape`.
    public func rect(on shape: BoardShape) -> TileRect {
        TileRect(x: left - shape.left, y: top - shape.top, width: width, height: height)
    }

    public var description: String { "\(width)x\(height) at (\(left),\(top))" }

    /// The smallest rectangle holding all of `boxes`; nil when there are none.
    ///
    /// An array and a loop, not a generic sequence: another module would call the
    /// generic code unspecialized, which looks up `Optional<CellBounds>`'s metadata and
    /// conformances by name at run time, a tenth of a small run's 3 ms.
    public static func enclosing(_ boxes: [CellBounds]) -> CellBounds? {
        guard var all = boxes.first else { return nil }
        for box in boxes.dropFirst() { all = all.union(box) }
        return all
    }
}

/// Cells whose top-left cell lies at Golly (`left`, `top`).
public struct PlacedCells: Sendable, Equatable {
    public var cells: BitGrid
    public var left: Int, top: Int

    public init(cells: BitGrid, left: Int, top: Int) {
        (self.cells, self.left, self.top) = (cells, left, top)
    }

    public var bounds: CellBounds { CellBounds(left: left, top: top, width: cells.width, height: cells.height) }

    /// `overlay`'s cells, its place taken as Golly's coordinates (as the wire carries
    /// a sparse plane's parts).
    public init(_ overlay: Overlay) {
        self.init(cells: overlay.cells, left: overlay.x, top: overlay.y)
    }

    /// The live cells of `cells`, whose top-left cell lies at Golly (`left`, `top`), cut
    /// to their bounding box; nil when none is alive.
    public init?(trimming cells: BitGrid, left: Int, top: Int) {
        guard let box = cells.liveBounds else { return nil }
        self.init(cells: cells.cropped(x: box.x, y: box.y, width: box.width, height: box.height), left: left + box.x, top: top + box.y)
    }
}

