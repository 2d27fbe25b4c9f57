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
}

/// Where the window onto Golly's unbounded plane lies, and when it must move.
///
/// The unbounded plane runs as a bounded plane, the window, whose edges the live cells
/// never reach: a live cell spreads at most one cell a generation, so with `margin`
/// dead rows and columns between the live cells and every edge, the next `margin`
/// generations on the window are exactly those of the unbounded plane. Before the
/// margin runs low the run moves to a new window around the live cells, with room for
/// them to double; one that the pattern shrank inside of moves to a smaller one. Every
/// tile of a window is cheap while empty (see `BlockActivity`), and a window's
/// corner can lie anywhere in 64-bit coordinates.
public enum PlaneWindow {
    /// The least room a new window leaves around the live cells on every side. Each
    /// margin's worth of generations is one advance (and on a cluster one round trip
    /// to every worker) before the live cells are looked at again: at 1024 a sparse
    /// methuselah spent more time between advances than stepping.
    public static let minMargin = 2048

    /// Dead rows and columns between `live` and the nearest edge of `window`: how many
    /// generations the window can run as the unbounded plane.
    public static func margin(of live: CellBounds, in window: BoardShape) -> Int {
        min(live.left - window.left, live.top - window.top,
            window.left + window.width - live.right, window.top + window.height - live.bottom)
    }

    /// A window around `live` with a margin as wide as the pattern, at least
    /// `least` (`minMargin` unless told), each side at least `minSide` and a multiple
    /// of 256 cells.
    public static func around(_ live: CellBounds, minSide: Int = 1, least: Int = minMargin) throws -> BoardShape {
        let margin = max(least, live.width, live.height)
        func side(_ length: Int) -> Int { (max(length + 2 * margin, minSide) + 255) / 256 * 256 }
        let width = side(live.width), height = side(live.height)
        guard width <= BoardShape.maxSide, height <= BoardShape.maxSide else {
            throw TesseraError("the live cells span \(live.width)x\(live.height) in one group, and a window of the unbounded plane around them would pass its \(BoardShape.maxSide) cells a side",
                               fix: "give the rule a bounded grid such as :T\(BoardShape.maxSide / 2),\(BoardShape.maxSide / 2), or run fewer generations")
        }
        let left = live.left - (width - live.width) / 2, top = live.top - (height - live.height) / 2
        let limit = BoardShape.maxCoordinate
        // Magnitudes first (abs(Int.min) traps); then the far corner cannot overflow.
        guard left.magnitude <= limit.magnitude, top.magnitude <= limit.magnitude,
              (left + width).magnitude <= limit.magnitude, (top + height).magnitude <= limit.magnitude else {
            throw TesseraError("live cells at \(live) are too far from the origin: Tessera's coordinates reach ±2^62",
                               fix: "move the pattern nearer the origin (#CXRLE Pos=x,y)")
        }
        return BoardShape(width: width, height: height, topology: .infinite, left: left, top: top)
    }

    /// Whether to move to a new window before going on: when the live cells have used up
    /// three quarters of the room a window gave them, or fill so little of it that a
    /// window a quarter the size would do.
    public static func shouldMove(_ live: CellBounds, from window: BoardShape, minSide: Int = 1) -> Bool {
        if margin(of: live, in: window) < min(window.width, window.height) / 12 { return true }
        guard let fitting = try? around(live, minSide: minSide) else { return false }
        return window.width > 4 * fitting.width || window.height > 4 * fitting.height
    }
}
