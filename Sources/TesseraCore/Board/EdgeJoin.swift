/// How a grid's edges meet where it is neither a torus, nor a plane bounded all round,
/// nor the unbounded plane: Golly's shifted torus, Klein bottle, cross-surface, sphere,
/// infinite tube and strip of the plane (its lifealgo.cpp). Such a board steps whole, in
/// this process: before every generation a border one cell wide is filled from the
/// grid's edges as Golly fills it (`fillBorder`), the padded board steps with nothing
/// beyond it, and the border is dropped.
public enum EdgeJoin: Hashable, Sendable {
    /// A torus whose top and bottom edges meet `horizontal` cells apart (`:T4+1,3`), or
    /// whose left and right edges meet `vertical` cells apart (`:T4,3+1`); one is 0.
    case shiftedTorus(horizontal: Int, vertical: Int)
    /// A Klein bottle whose top and bottom edges meet reversed (`:K4*,3`), or else its
    /// left and right (`:K4,3*`); `shifted` by one cell (`*+1`), which Golly does only
    /// where the twisted side is even.
    case kleinBottle(twistsTopAndBottom: Bool, shifted: Bool)
    /// Both pairs of edges meet reversed (`:C4,3`).
    case crossSurface
    /// A square whose top edge meets its left, and right edge its bottom (`:S3`).
    case sphere
    /// An infinite tube: unbounded across, its top and bottom edges meeting, `side` rows
    /// from Golly's row −⌊side/2⌋ (`:T0,68`); or, not `across`, unbounded down, its left
    /// and right edges meeting (`:T68,0`). Such a board is a window onto it that grows
    /// along the tube.
    case tube(across: Bool, side: Int)
    /// A strip of the plane: unbounded across, `side` rows from Golly's row −⌊side/2⌋
    /// with nothing alive beyond them (`:P0,30`); or, not `across`, unbounded down
    /// (`:P30,0`). A window onto it that grows along it, as a tube's.
    case strip(across: Bool, side: Int)

    /// Where the grid is unbounded one way (a tube or a strip): whether it runs across,
    /// and its side the other way.
    public var unboundedAlong: (across: Bool, side: Int)? {
        switch self {
        case .tube(let across, let side), .strip(let across, let side): (across, side)
        default: nil
        }
    }

    public var name: String {
        switch self {
        case .shiftedTorus: "shifted torus"
        case .kleinBottle: "Klein bottle"
        case .crossSurface: "cross-surface"
        case .sphere: "sphere"
        case .tube: "tube"
        case .strip: "strip"
        }
    }

    /// Golly's canonical suffix for a grid of this size with these edges.
    public func gollySuffix(width: Int, height: Int) -> String {
        switch self {
        case .shiftedTorus(let h, _) where h != 0: ":T\(width)\(h > 0 ? "+" : "")\(h),\(height)"
        case .shiftedTorus(_, let v): ":T\(width),\(height)\(v > 0 ? "+" : "")\(v)"
        case .kleinBottle(true, let shifted): ":K\(width)*\(shifted ? "+1" : ""),\(height)"
        case .kleinBottle(false, let shifted): ":K\(width),\(height)*\(shifted ? "+1" : "")"
        case .crossSurface: ":C\(width),\(height)"
        case .sphere: ":S\(width)"
        case .tube(let across, let side): across ? ":T0,\(side)" : ":T\(side),0"
        case .strip(let across, let side): across ? ":P0,\(side)" : ":P\(side),0"
        }
    }

    /// Fills the border of a `width` x `height` grid as Golly does before a generation:
    /// `state(x, y)` reads the grid's cell (0 ≤ x < width, 0 ≤ y < height), and `set(x,
    /// y, state)` writes the border's, at x = -1 or width, or y = -1 or height.
    public func fillBorder(width: Int, height: Int, state: (Int, Int) -> Int, set: (Int, Int, Int) -> Void) {
        let (right, bottom) = (width - 1, height - 1)
        // Wraps a column or row back into the grid.
        func column(_ x: Int) -> Int { ((x % width) + width) % width }
        func row(_ y: Int) -> Int { ((y % height) + height) % height }
        switch self {
        case .shiftedTorus(let shift, 0) where shift != 0:
            for x in 0..<width {
                set(x, -1, state(column(x - shift), bottom))
                set(x, height, state(column(x + shift), 0))
            }
            for y in 0..<height {
                set(-1, y, state(right, y))
                set(width, y, state(0, y))
            }
            set(-1, -1, state(column(right - shift), bottom))
            set(width, -1, state(column(-shift), bottom))
            set(-1, height, state(column(right + shift), 0))
            set(width, height, state(column(shift), 0))
        case .shiftedTorus(_, let shift):
            for x in 0..<width {
                set(x, height, state(x, 0))
                set(x, -1, state(x, bottom))
            }
            for y in 0..<height {
                set(-1, y, state(right, row(y - shift)))
                set(width, y, state(0, row(y + shift)))
            }
            set(-1, -1, state(right, row(bottom - shift)))
            set(width, -1, state(0, row(bottom + shift)))
            set(-1, height, state(right, row(-shift)))
            set(width, height, state(0, row(shift)))
        case .kleinBottle(true, true):
            for x in 0..<width {
                // Reversed, then one cell on.
                let shifted = right - x == 0 ? right : right - x - 1
                set(x, -1, state(shifted, bottom))
                set(x, height, state(shifted, 0))
            }
            for y in 0..<height {
                set(width, y, state(0, y))
                set(-1, y, state(right, y))
            }
            set(-1, -1, state(right, bottom))
            set(-1, height, state(right, 0))
            let corner = right == 0 ? right : right - 1
            set(width, -1, state(corner, bottom))
            set(width, height, state(corner, 0))
        case .kleinBottle(false, true):
            for x in 0..<width {
                set(x, height, state(x, 0))
                set(x, -1, state(x, bottom))
            }
            for y in 0..<height {
                let shifted = bottom - y == 0 ? bottom : bottom - y - 1
                set(-1, y, state(right, shifted))
                set(width, y, state(0, shifted))
            }
            set(-1, -1, state(right, bottom))
            set(width, -1, state(0, bottom))
            let corner = bottom == 0 ? bottom : bottom - 1
            set(-1, height, state(right, corner))
            set(width, height, state(0, corner))
        case .kleinBottle(true, false), .crossSurface:
            for x in 0..<width {
                set(x, height, state(right - x, 0))
                set(x, -1, state(right - x, bottom))
            }
            if self == .crossSurface {
                for y in 0..<height {
                    set(width, y, state(0, bottom - y))
                    set(-1, y, state(right, bottom - y))
                }
                // The grid's corners, to the same corners of the border.
                set(-1, -1, state(0, 0))
                set(width, -1, state(right, 0))
                set(width, height, state(right, bottom))
                set(-1, height, state(0, bottom))
            } else {
                for y in 0..<height {
                    set(width, y, state(0, y))
                    set(-1, y, state(right, y))
                }
                set(-1, -1, state(0, bottom))
                set(width, -1, state(right, bottom))
                set(-1, height, state(0, 0))
                set(width, height, state(right, 0))
            }
        case .kleinBottle(false, false):
            for x in 0..<width {
                set(x, height, state(x, 0))
                set(x, -1, state(x, bottom))
            }
            for y in 0..<height {
                set(width, y, state(0, bottom - y))
                set(-1, y, state(right, bottom - y))
            }
            set(-1, -1, state(right, 0))
            set(width, -1, state(0, 0))
            set(-1, height, state(right, bottom))
            set(width, height, state(0, bottom))
        case .tube(let across, _):
            // Only the joined edges: the window's others lie where nothing lives.
            if across {
                for x in 0..<width {
                    set(x, -1, state(x, bottom))
                    set(x, height, state(x, 0))
                }
            } else {
                for y in 0..<height {
                    set(-1, y, state(right, y))
                    set(width, y, state(0, y))
                }
            }
        case .strip:
            // Nothing lives beyond a strip's sides, and its window's ends lie where nothing lives.
            break
        case .sphere:
            // Square: the top edge's cell x sits beside the left edge's row x.
            for x in 0..<width {
                set(-1, x, state(x, 0))
                set(x, -1, state(0, x))
                set(width, x, state(x, bottom))
                set(x, height, state(right, x))
            }
            set(-1, -1, state(0, 0))
            set(width, -1, state(right, 0))
            set(width, height, state(right, bottom))
            set(-1, height, state(0, bottom))
        }
    }
}
