/// The squares of a macrocell of more than two states, as its file gives them: what a
/// HashLife over a rule tree's states takes as it is, where the cells would be too many
/// to hold as a grid (Goucher's Codd replicator: 7562569x819 cells, 22 thousand squares).
public struct StateQuadTree: Sendable, Equatable {
    public struct Node: Sendable, Equatable {
        public let level: Int
        /// Level 1: the four cells' states, nw, ne, sw, se; above: the quadrants as
        /// numbers of earlier nodes, from 1, 0 where a quadrant is empty.
        public let children: SIMD4<UInt32>

        public init(level: Int, children: SIMD4<UInt32>) { (self.level, self.children) = (level, children) }
    }

    /// Children before parents; the last is the root.
    public let nodes: [Node]
    /// Golly's coordinates of the root's top-left cell.
    public let left: Int, top: Int

    public init(nodes: [Node], left: Int, top: Int) { (self.nodes, self.left, self.top) = (nodes, left, top) }

    /// A square's hash, by its level and children, for the tables that make each square
    /// once (the reader's, HashLife's).
    @inlinable
    package static func hash(level: Int, children: SIMD4<UInt32>) -> Int {
        var h = UInt64(level) &+ 0x9E37_79B9_7F4A_7C15
        for i in 0..<4 { h = (h ^ UInt64(children[i])) &* 0xFF51_AFD7_ED55_8CCD }
        return Int(truncatingIfNeeded: h ^ h >> 29)
    }

    /// The highest state a cell holds.
    public var highestState: Int {
        Int(nodes.lazy.filter { $0.level == 1 }.map { $0.children.max() }.max() ?? 0)
    }
}
