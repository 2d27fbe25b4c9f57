import CTesseraKernel

/// A rectangle of cells of more than two states, at ⌈log2 states⌉ bits a cell: plane k
/// holds bit k of every cell's state, each plane a `BitGrid`.
public struct StateGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var planes: [BitGrid]

    /// The most cells a board of states holds, read or stepped (whole, in this process):
    /// past it a generation takes seconds, and a pattern so spread out is one for a
    /// sparse map, which these families lack yet.
    public static let mostCells = 1 << 31

    /// Cells all in state 0, with planes enough for `states` states.
    public init(width: Int, height: Int, states: Int) {
        self.init(width: width, height: height,
                  planes: Array(repeating: BitGrid(width: width, height: height), count: Self.planes(for: states)))
    }

    private init(width: Int, height: Int, planes: [BitGrid]) {
        (self.width, self.height, self.planes) = (width, height, planes)
    }

    /// The planes `states` states take: ⌈log2 states⌉, one at least.
    public static func planes(for states: Int) -> Int { max(1, Int.bitWidth - (states - 1).leadingZeroBitCount) }

    /// The cells of `ones` in state 1, the rest 0.
    public init(ones: BitGrid, states: Int) {
        self.init(width: ones.width, height: ones.height, states: states)
        planes[0] = ones
    }

    public subscript(x: Int, y: Int) -> Int {
        get { planes.indices.reduce(0) { $0 | (planes[$1][x, y] ? 1 << $1 : 0) } }
        set {
            precondition(newValue >= 0 && newValue < 1 << planes.count, "state \(newValue) past the planes")
            for k in planes.indices { planes[k][x, y] = newValue >> k & 1 == 1 }
        }
    }

    /// The cells in any state but 0.
    public var occupied: BitGrid {
        var grid = planes[0]
        for plane in planes.dropFirst() { grid.formUnion(plane) }
        return grid
    }

    /// The cells in state 1.
    public var alive: BitGrid {
        var grid = planes[0]
        for plane in planes.dropFirst() { grid.subtract(plane) }
        return grid
    }

    public func cropped(x: Int, y: Int, width: Int, height: Int) -> StateGrid {
        StateGrid(width: width, height: height, planes: planes.map { $0.cropped(x: x, y: y, width: width, height: height) })
    }

    /// `other`'s cells not in state 0 written over these, with its top-left at (x, y).
    public mutating func place(_ other: StateGrid, atX x: Int, y: Int) {
        precondition(other.planes.count <= planes.count)
        let occupied = other.occupied
        for k in planes.indices {
            var region = planes[k].cropped(x: x, y: y, width: other.width, height: other.height)
            region.subtract(occupied)
            if k < other.planes.count { region.formUnion(other.planes[k]) }
            region.copy(into: &planes[k], atX: x, y: y)
        }
    }

    /// One generation of Larger than Life with history states into `next`, the same
    /// size: the live cells (state 1) counted and decided by `rule`, then the states
    /// counted on as in Generations.
    public func step(_ rule: LargerThanLife, into next: inout StateGrid, wraps: Bool) throws {
        var decided = BitGrid(width: width, height: height)
        try rule.step(alive, into: &decided, wraps: wraps)
        stepPlanes(into: &next) { sources, targets in
            decided.words.withUnsafeBufferPointer {
                tessera_states_after($0.baseAddress!, Int32(rule.states), sources, targets, Int32(planes.count), planes[0].words.count)
            }
        }
    }

    /// One generation of a Generations rule of `states` states, whose live cells step by
    /// `alive` (`Generations.alive`, compiled once by the caller, not a generation),
    /// into `next`, the same size: a torus where `wraps`, else dead beyond the edges.
    public func step(alive: Rule, states: Int, into next: inout StateGrid, wraps: Bool) throws {
        guard width > 0, height > 0 else { return }
        let stepped = stepPlanes(into: &next) { sources, targets in
            alive.withKernelRule {
                tessera_generations_step($0, Int32(states), sources, targets, Int32(planes.count), planes[0].wordsPerRow,
                                         Int32(width), Int32(height), wraps ? 1 : 0)
            }
        }
        guard stepped != 0 else { throw TesseraError("no memory for a Generations step of a \(width)-wide board", fix: "free some memory") }
    }

    /// One generation of a rule from a Golly rule file into `next`, the same size: a torus
    /// where `wraps`, else state 0 beyond the edges.
    public func step(_ tree: RuleTree, into next: inout StateGrid, wraps: Bool) throws {
        guard width > 0, height > 0 else { return }
        precondition(planes.count <= 8, "a rule tree's states fit a byte")
        let stepped = stepPlanes(into: &next) { sources, targets in
            tree.nodes.withUnsafeBufferPointer {
                tessera_tree_step($0.baseAddress!, tree.root, tree.neighbourhood == .moore ? 1 : 0, sources, targets,
                                  Int32(planes.count), planes[0].wordsPerRow, Int32(width), Int32(height), wraps ? 1 : 0)
            }
        }
        guard stepped != 0 else { throw TesseraError("no memory for a step of a \(width)-wide board", fix: "free some memory") }
    }

    /// Runs `body` on pointers to each plane's words and to the same of fresh words, which
    /// become `next`'s planes: the planes end to end, plane k at k times a plane's words.
    private func stepPlanes<R>(into next: inout StateGrid,
                               _ body: ([UnsafePointer<UInt64>?], [UnsafeMutablePointer<UInt64>?]) -> R) -> R {
        precondition(next.width == width && next.height == height && next.planes.count == planes.count)
        let count = planes[0].words.count
        let source = planes.flatMap(\.words)
        var target = [UInt64](repeating: 0, count: source.count)
        let result = source.withUnsafeBufferPointer { source in
            target.withUnsafeMutableBufferPointer { target in
                body(planes.indices.map { source.baseAddress! + $0 * count }, planes.indices.map { target.baseAddress! + $0 * count })
            }
        }
        next.planes = planes.indices.map { BitGrid(width: width, height: height, words: Array(target[$0 * count..<($0 + 1) * count])) }
        return result
    }
}
