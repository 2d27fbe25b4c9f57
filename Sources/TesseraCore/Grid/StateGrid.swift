import CTesseraKernel
import Synchronization

/// A rectangle of cells of more than two states, at ⌈log2 states⌉ bits a cell: plane k
/// holds bit k of every cell's state, each plane a `BitGrid`.
public struct StateGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var planes: [BitGrid]
    /// The cells whose state differs from the generation before, where a step recorded
    /// it (`step(_ tree:…)`), so that the next step copies what nothing near has changed;
    /// nil where unknown. Not part of the cells' value: equal grids may differ here.
    public var changes: BitGrid?
    /// What a step knows of where these cells came from: a number for the cells a tree
    /// step made, and the number of the cells it made them from (0: not known). Any other
    /// change of the cells forgets both; a copy keeps them, as it keeps the cells. A step
    /// into the cells it was made from finds them holding the generation before.
    private var madeAs: UInt64 = 0, madeFrom: UInt64 = 0
    private static let made = Atomic<UInt64>(0)

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
            (madeAs, madeFrom) = (0, 0)
            for k in planes.indices { planes[k][x, y] = newValue >> k & 1 == 1 }
        }
    }

    /// The cells in any state but 0.
    public var occupied: BitGrid {
        var grid = planes[0]
        for plane in planes.dropFirst() { grid.formUnion(plane) }
        return grid
    }

    /// The smallest rectangle holding every cell in a state but 0, read from the planes
    /// themselves (`occupied` would make a grid of them first); nil when there is none.
    public var liveBounds: TileRect? {
        let wordsPerRow = planes[0].wordsPerRow
        let bounds = Self.withWords(planes[...], []) { planes in
            // Up to three planes (eight states) as constants, not a loop over the array
            // for every word the search reads.
            let (p0, p1, p2) = (planes[0]!, planes.count > 1 ? planes[1]! : planes[0]!, planes.count > 2 ? planes[2]! : planes[0]!)
            guard planes.count <= 3 else {
                return BitCopy.liveBounds(x: 0, width: width, rows: 0..<height) { y, index in
                    planes.reduce(0) { $0 | $1![y * wordsPerRow + index] }
                }
            }
            return BitCopy.liveBounds(x: 0, width: width, rows: 0..<height) { y, index in
                let at = y * wordsPerRow + index
                return p0[at] | p1[at] | p2[at]
            }
        }
        return bounds.map { TileRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }

    /// The cells in state 1.
    public var alive: BitGrid {
        var grid = planes[0]
        for plane in planes.dropFirst() { grid.subtract(plane) }
        return grid
    }

    public static func == (a: StateGrid, b: StateGrid) -> Bool { a.width == b.width && a.height == b.height && a.planes == b.planes }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(planes)
    }

    /// The cells of a rectangle, and what changed there where known.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> StateGrid {
        var part = StateGrid(width: width, height: height, planes: planes.map { $0.cropped(x: x, y: y, width: width, height: height) })
        part.changes = changes?.cropped(x: x, y: y, width: width, height: height)
        return part
    }

    /// Marks the cells within `reach` of the edges as changed, where changes are known:
    /// a part cut from a larger board cannot know what changed beyond its edges.
    public mutating func markEdgesChanged(reach: Int) {
        guard var marked = changes, width > 0, height > 0 else { return }
        let r = min(reach, width, height)
        for y in 0..<height {
            if y < r || y >= height - r {
                marked.setRun(y: y, x: 0, count: width)
            } else {
                marked.setRun(y: y, x: 0, count: r)
                marked.setRun(y: y, x: width - r, count: r)
            }
        }
        changes = marked
    }

    /// The record of changes of a board of cells that were all 0 and stay so, but for
    /// `part`'s, placed at (x, y): none, or unknown where `part`'s is.
    public mutating func placeChanges(of part: StateGrid, atX x: Int, y: Int) {
        guard let theirs = part.changes else { return changes = nil }
        var mine = BitGrid(width: width, height: height)
        theirs.copy(into: &mine, atX: x, y: y)
        changes = mine
    }

    /// `other`'s cells, every state 0 included, written over these with its top-left at
    /// (x, y) (clipped to these): nothing is known then of what changed.
    public mutating func replace(with other: StateGrid, atX x: Int, y: Int) {
        precondition(other.planes.count <= planes.count)
        (madeAs, madeFrom, changes) = (0, 0, nil)
        for k in other.planes.indices { other.planes[k].copy(into: &planes[k], atX: x, y: y) }
        guard other.planes.count < planes.count else { return }
        let empty = BitGrid(width: other.width, height: other.height)
        for k in other.planes.count..<planes.count { empty.copy(into: &planes[k], atX: x, y: y) }
    }

    /// Sets the cells of a rectangle (clipped to these) to state 0.
    public mutating func clear(x: Int, y: Int, width: Int, height: Int) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(self.width, x.addingReportingOverflow(width).overflow ? self.width : x + width)
        let y1 = min(self.height, y.addingReportingOverflow(height).overflow ? self.height : y + height)
        guard x0 < x1, y0 < y1 else { return }
        replace(with: StateGrid(width: x1 - x0, height: y1 - y0, states: 2), atX: x0, y: y0)
    }

    /// Whether every cell's state is below `count`: what planes from elsewhere (a peer, a
    /// file) must show before a rule's step reads them (a rule tree indexes its nodes by
    /// state). Compared a word at a time, from the top plane down.
    public func holdsOnly(below count: Int) -> Bool {
        guard count < 1 << planes.count else { return true }
        guard count > 0 else { return planes.allSatisfy { !$0.words.contains { $0 != 0 } } }
        for i in planes[0].words.indices {
            var above: UInt64 = 0, equal = ~UInt64(0)
            for k in planes.indices.reversed() {
                let bits = planes[k].words[i]
                if count >> k & 1 == 1 { equal &= bits } else { above |= equal & bits; equal &= ~bits }
            }
            if above | equal != 0 { return false }
        }
        return true
    }

    /// The cells as layers (`TileState.layers`): the planes, one at least.
    public var layers: [BitGrid] { planes }

    /// Cells from their planes (`layers`), all of one size.
    public init(layers: [BitGrid]) {
        precondition(!layers.isEmpty)
        self.init(width: layers[0].width, height: layers[0].height, planes: layers)
    }

    /// The cells of `cells` (the same size) that are in state 0 set to state 1, the
    /// rest as they are: plane 0 gains the cells no plane holds yet. One grid more than
    /// the planes, where placing a grid of ones would take as many again.
    public mutating func setOnes(_ cells: BitGrid) {
        precondition(cells.width == width && cells.height == height)
        (madeAs, madeFrom) = (0, 0)
        var ones = cells
        for plane in planes.dropFirst() { ones.subtract(plane) }
        planes[0].formUnion(ones)
    }

    /// `other`'s cells not in state 0 written over these, with its top-left at (x, y).
    public mutating func place(_ other: StateGrid, atX x: Int, y: Int) {
        precondition(other.planes.count <= planes.count)
        (madeAs, madeFrom) = (0, 0)
        let occupied = other.occupied
        for k in planes.indices { planes[k].overwrite(k < other.planes.count ? other.planes[k] : nil, under: occupied, atX: x, y: y) }
    }

    /// One generation of Larger than Life with history states into `next`, the same
    /// size: the live cells (state 1) counted and decided by `rule`, then the states
    /// counted on as in Generations.
    public func step(_ rule: LargerThanLife, into next: inout StateGrid, wraps: Bool, onEveryCore: Bool = false) throws {
        var decided = BitGrid(width: width, height: height)
        try rule.step(alive, into: &decided, wraps: wraps, onEveryCore: onEveryCore)
        stepPlanes(into: &next) { sources, targets in
            decided.words.withUnsafeBufferPointer {
                tessera_states_after($0.baseAddress!, Int32(rule.states), sources, targets, Int32(planes.count), planes[0].words.count)
            }
        }
    }

    /// One generation of a Generations rule of `states` states, whose live cells step by
    /// `alive` (`Generations.alive`, compiled once by the caller, not a generation),
    /// into `next`, the same size: a torus where `wraps`, else dead beyond the edges;
    /// bands of its rows on every core where `onEveryCore` (`RowBands`).
    public func step(alive: Rule, states: Int, into next: inout StateGrid, wraps: Bool,
                     using kernel: Kernel.Implementation = Kernel.best, onEveryCore: Bool = false) throws {
        guard width > 0, height > 0 else { return }
        try kernel.checkSupported()
        let (bits, stride, width, height) = (Int32(planes.count), planes[0].wordsPerRow, Int32(width), Int32(height))
        let stepped = stepPlanes(into: &next, fillsEveryWord: true) { sources, targets in
            alive.withKernelRule { rule in
                let memory = BandMemory(rule: rule, sources: sources, targets: targets)
                return RowBands.step(rows: Int(height), width: Int(width), onEveryCore: onEveryCore) { rows in
                    tessera_generations_step(memory.rule, Int32(states), memory.sources, memory.targets, bits, stride, width, height,
                                             wraps ? 1 : 0, kernel == .avx2 ? 1 : 0, Int32(rows.lowerBound), Int32(rows.upperBound)) != 0
                }
            }
        }
        guard stepped else { throw TesseraError("no memory for a Generations step of a \(width)-wide board", fix: "free some memory") }
    }

    /// One generation of a rule from a Golly rule file into `next`, the same size: a torus
    /// where `wraps`, else state 0 beyond the edges; bands of its rows on every core
    /// where `onEveryCore` (`RowBands`).
    public func step(_ tree: RuleTree, into next: inout StateGrid, wraps: Bool, onEveryCore: Bool = false) throws {
        guard width > 0, height > 0 else { return }
        precondition(planes.count <= 8, "a rule tree's states fit a byte")
        var changed = BitGrid(width: width, height: height)
        let holdsBefore = madeFrom != 0 && next.madeAs == madeFrom
        // The step looks up only the words near a change: bands only where those are
        // many (a quiet circuit's step costs less than waking the helpers), counted only
        // where a board is large enough for bands at all.
        let banded = onEveryCore && width * height >= RowBands.leastTreeCells
            && (changes.map { $0.words.reduce(0) { $0 + ($1 != 0 ? 64 : 0) } } ?? width * height) >= RowBands.leastTreeCells
        let stepped = stepPlanes(into: &next, fillsEveryWord: true) { sources, targets in
            tree.nodes.withUnsafeBufferPointer { nodes in
                changed.withUnsafeMutableWords { changed in
                    let (root, moore, bits, stride) = (tree.root, tree.neighbourhood == .moore ? Int32(1) : 0, Int32(planes.count),
                                                       planes[0].wordsPerRow)
                    let (width, height) = (Int32(width), Int32(height))
                    func step(_ changes: UnsafePointer<UInt64>?) -> Bool {
                        let memory = BandMemory(rule: nodes.baseAddress!, sources: sources, targets: targets, changes: changes,
                                                changed: changed.baseAddress)
                        return RowBands.step(rows: Int(height), width: Int(width), onEveryCore: banded,
                                             least: RowBands.leastTreeCells) { rows in
                            tessera_tree_step(memory.rule, root, moore, memory.sources, memory.targets, bits, stride, width, height,
                                              wraps ? 1 : 0, memory.changes, memory.changes != nil && holdsBefore ? 1 : 0,
                                              memory.changed, Int32(rows.lowerBound), Int32(rows.upperBound)) != 0
                        }
                    }
                    guard let changes else { return step(nil) }
                    return changes.words.withUnsafeBufferPointer { step($0.baseAddress) }
                }
            }
        }
        guard stepped else { throw TesseraError("no memory for a step of a \(width)-wide board", fix: "free some memory") }
        next.changes = changed
        // Numbered, so that the step from them knows what it steps into.
        (next.madeAs, next.madeFrom) = (Self.made.add(1, ordering: .relaxed).newValue, madeAs)
    }

    /// Runs `body` on pointers to each plane's words and to the words of `next`'s planes
    /// (the same size), which it fills (zeroed first unless it writes every word): no
    /// plane is copied.
    private func stepPlanes<R>(into next: inout StateGrid, fillsEveryWord: Bool = false,
                               _ body: ([UnsafePointer<UInt64>?], [UnsafeMutablePointer<UInt64>?]) -> R) -> R {
        precondition(next.width == width && next.height == height && next.planes.count == planes.count)
        var targets = next.planes
        next.planes = []
        let result = Self.withWords(planes[...], []) { sources in
            targets.withUnsafeMutableBufferPointer { grids in
                Self.withMutableWords(grids, 0, []) { targets in
                    if !fillsEveryWord { for target in targets { target?.update(repeating: 0, count: planes[0].words.count) } }
                    return body(sources, targets)
                }
            }
        }
        next.planes = targets
        next.changes = nil
        (next.madeAs, next.madeFrom) = (0, 0)
        return result
    }

    private static func withWords<R>(_ grids: ArraySlice<BitGrid>, _ gathered: [UnsafePointer<UInt64>?],
                                     _ body: ([UnsafePointer<UInt64>?]) -> R) -> R {
        guard let first = grids.first else { return body(gathered) }
        return first.words.withUnsafeBufferPointer { withWords(grids.dropFirst(), gathered + [$0.baseAddress], body) }
    }

    private static func withMutableWords<R>(_ grids: UnsafeMutableBufferPointer<BitGrid>, _ k: Int, _ gathered: [UnsafeMutablePointer<UInt64>?],
                                            _ body: ([UnsafeMutablePointer<UInt64>?]) -> R) -> R {
        guard k < grids.count else { return body(gathered) }
        return grids[k].withUnsafeMutableWords { withMutableWords(grids, k + 1, gathered + [$0.baseAddress], body) }
    }

    /// A frame's dots over these cells, a byte a dot: the lowest state but 0 under it (a
    /// live cell shows over the history and dying states around it), 0 where there is
    /// none; 255 stands for any state past it. The viewport's corner is (`left`, `top`)
    /// of these cells.
    public func stateDots(in view: Viewport, left: Int, top: Int) -> [UInt8] {
        let occupied = self.occupied
        var dots = [UInt8](repeating: 0, count: view.width * view.height)
        occupied.forEachLitDot(in: view, left: left, top: top) { column, row, under in
            var lowest = Int.max
            rows: for y in under.y..<under.y + under.height {
                for x in under.x..<under.x + under.width where occupied[x, y] {
                    lowest = min(lowest, self[x, y])
                    if lowest == 1 { break rows }
                }
            }
            dots[row * view.width + column] = UInt8(clamping: lowest)
        }
        return dots
    }
}
