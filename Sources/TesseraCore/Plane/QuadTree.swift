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
