import Synchronization

/// Cells as Golly's macrocell files hold them: a quadtree whose equal squares are
/// stored once, so a huge regular pattern (a metapixel, a gun after a million
/// generations) is a few thousand nodes. HashLife takes it as it is, node for node;
/// everything else reads the cells it holds (`PendingParts`).
public struct QuadTree: Sendable, Equatable {
    public enum Node: Sendable, Equatable {
        /// 8x8 cells: row r in bits 8r..<8r+8, column c at bit c.
        case leaf(UInt64)
        /// A square 2^level cells a side: its quadrants nw, ne, sw, se as numbers of
        /// earlier nodes (from 1), 0 where a quadrant is empty.
        case branch(level: Int, children: [Int])

        public var level: Int {
            switch self {
            case .leaf: 3
            case .branch(let level, _): level
            }
        }
    }

    /// Children before parents; the last is the root.
    public let nodes: [Node]
    /// Golly coordinates of the root's top-left cell.
    public let left: Int, top: Int

    public init(nodes: [Node], left: Int, top: Int) {
        (self.nodes, self.left, self.top) = (nodes, left, top)
    }

    /// The deepest root: its corners still fit in 64-bit coordinates.
    public static let maxLevel = 62

    /// The level of the smallest root, centred as Golly centres a macrocell's (x in
    /// [−s/2, s/2), y in [−s/2 + 1, s/2 + 1) for side s), that holds `span`: `least` at least
    /// (4 for a two-state file, whose leaves are 8x8; 2 for one of states),
    /// `maxLevel` at most.
    public static func gollyRootLevel(holding span: CellBounds, least: Int = 4) -> Int {
        var level = least
        while level < maxLevel {
            let half = 1 << (level - 1)
            if -half <= span.left, span.right <= half, -half + 1 <= span.top, span.bottom <= half + 1 { break }
            level += 1
        }
        return level
    }

    /// Golly's corner of a root of `level`: (−s/2, −s/2 + 1).
    public static func gollyRootCorner(level: Int) -> (left: Int, top: Int) {
        let side = 1 << level
        return (-side / 2, -side / 2 + 1)
    }
}

/// Parts of a pattern whose places are known at once and whose cells are made when
/// first asked for: a macrocell's live squares, which a HashLife run never needs as
/// cells. Made once, behind a lock, hence `Sendable`.
public final class PendingParts: Sendable {
    /// Each part's live cells' bounds (Golly's coordinates), in the order of `parts`.
    public let bounds: [CellBounds]
    private let make: @Sendable () -> [PlacedCells]
    private let made = Mutex<[PlacedCells]?>(nil)

    public init(bounds: [CellBounds], make: @escaping @Sendable () -> [PlacedCells]) {
        (self.bounds, self.make) = (bounds, make)
    }

    public var parts: [PlacedCells] {
        made.withLock { made in
            if let made { return made }
            let parts = make()
            made = parts
            return parts
        }
    }
}
