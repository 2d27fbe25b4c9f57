import CTesseraKernel
import TesseraCore

/// Gosper's HashLife, as Golly's HashLife runs it (gollybase/hlifealgo.cpp), on Golly's
/// unbounded plane: the universe is a quadtree of squares stored once each
/// (`NodeStore`), and a square of 2^n cells a side memoises its centre half 2^j
/// generations on (j ≤ n − 2), computed from the results of its sub-squares. A pattern
/// that repeats in space and time, such as a gun and its stream of gliders, then costs
/// what its distinct squares cost, not what its cells do: a hundred thousand
/// generations of a Gosper gun take milliseconds, against seconds for any stepper of
/// cells. A chaotic pattern makes new squares at every step and is faster stepped cell
/// by cell (`TileEngine`), which is why a run chooses (see `Algorithm`).
///
/// A step that follows one of half a millisecond or more runs on every core: helper
/// threads walk the same squares in other orders beside this one (`StepHelpers`,
/// `Stepper`), and the store takes squares from all of them at once (`Squares`).
///
/// Exact for every Life-like rule without B0 (which has no meaning on an unbounded
/// plane, and which Golly's HashLife refuses too). Not `Sendable`: one task owns it.
public struct HashLife: ~Copyable {
    var store: NodeStore
    /// The rule the stored cells step by: B0 with S8 is stored inverted and steps by
    /// its complement, as Golly runs it (`Rule.Emulation`).
    private let rule: Rule
    var root: UInt32
    var level: Int
    /// Golly coordinates of the root square's top-left cell.
    var left: Int, top: Int
    public private(set) var generation: UInt64
    /// A result advances 2^min(exponent, level − 2) generations; results in the store are for this exponent.
    private var exponent = -1
    /// The most nodes the store may hold (see `init`).
    public let nodeLimit: Int
    /// Whether to stop, asked between steps and every 4096 squares made within one (on the
    /// thread that steps): a stopped step throws `CancellationError`. By default, whether
    /// the task running it is cancelled.
    public var isStopped: () -> Bool = { Task.isCancelled }
    /// Whether steps run on every core (`StepHelpers.shared`).
    public var parallel = Parallel.automatic
    /// How long the last step took: whether the next is worth the other cores.
    private var lastStepSeconds = 0.0
    /// Occupied 32×32 squares of each square above that size counted so far (see
    /// `occupiedSquares`); emptied when collecting renumbers the squares.
    private var occupiedCounts: [UInt32: Int] = [:]

    /// Nodes the store has room for past `nodeLimit`: a thread past its last look at the
    /// count (`Stepper.look`) still makes the squares of its way back up, known results
    /// below it (up to 19 at the bottom and 5 a level: about 320 at the highest level),
    /// and sixteen threads may do so at once, each in runs of indices it reserved
    /// (`Squares.reservedRun`). Address space only (`NodeStore`).
    static let headroom = 16 * (512 + Squares.reservedRun)

    /// Coordinates stay within ±2^62, so a root square may be at most 2^62 a side
    /// (its corner then anywhere within ±2^62 still fits an `Int`).
    static let highestLevel = 62

    /// The universe of `parts`' live cells at `generation`. `nodeLimit` bounds its
    /// memory: 32 bytes a node with its bucket, as Golly's HashLife takes a memory limit.
    public init(parts: [PlacedCells], rule: Rule, generation: UInt64, nodeLimit: Int) throws {
        try Self.checkRuns(rule)
        let live = parts.filter { $0.cells.width > 0 && $0.cells.height > 0 }
        let bounds = live.dropFirst().reduce(live.first?.bounds) { all, part in all!.union(part.bounds) }
        var level = 4
        while let bounds, 1 << level < max(bounds.width, bounds.height) {
            level += 1
            guard level <= Self.highestLevel else { throw Self.tooFar(bounds) }
        }
        // A step checks the limit every few squares it makes: the store has room past it.
        let squares = try NodeStore(limit: nodeLimit + Self.headroom)
        (self.rule, self.generation) = (rule.steps.even, generation)
        store = squares
        self.nodeLimit = min(nodeLimit, store.limit - Self.headroom)
        (self.level, left, top) = (level, bounds?.left ?? 0, bounds?.top ?? 0)
        root = 0
        if bounds == nil {
            root = store.empty(level)
        } else if live.count == 1 {
            root = build(level: level, cells: live[0].cells)
        } else {
            root = build(level: level, x: left, y: top, parts: live)
        }
    }

    /// The universe of a macrocell's quadtree at `generation`, its squares taken node
    /// for node: a metapixel's 128 million cells are its six thousand nodes, where
    /// reading them as cells and building squares from those took seconds.
    public init(tree: QuadTree, rule: Rule, generation: UInt64, nodeLimit: Int) throws {
        try Self.checkRuns(rule)
        let squares = try NodeStore(limit: max(nodeLimit, 2 * tree.nodes.count) + Self.headroom)
        (self.rule, self.generation) = (rule.steps.even, generation)
        store = squares
        self.nodeLimit = min(max(nodeLimit, 2 * tree.nodes.count), store.limit - Self.headroom)
        (left, top) = (tree.left, tree.top)
        level = max(4, tree.nodes.last?.level ?? 4)
        root = 0
        var made = [UInt32](repeating: 0, count: tree.nodes.count + 1)
        for (i, node) in tree.nodes.enumerated() {
            switch node {
            case .leaf(let cells):
                made[i + 1] = store.leaf(cells)
            case .branch(let level, let children):
                let quadrant = children.map { $0 == 0 ? store.empty(level - 1) : made[$0] }
                made[i + 1] = store.find(quadrant[0], quadrant[1], quadrant[2], quadrant[3])
            }
        }
        switch tree.nodes.last {
        case nil: root = store.empty(level)
        case .leaf?:
            // A lone leaf as the root: the north-west quadrant of the smallest square.
            let empty = store.empty(3)
            root = store.find(made[tree.nodes.count], empty, empty, empty)
        case .branch?: root = made[tree.nodes.count]
        }
    }

    /// Refuses a rule with B0 and without S8, as Golly's HashLife does: the cells it
    /// stores are inverted at every other generation, which a square's result of 2^k
    /// generations cannot follow. Tiles run it, as Golly's QuickLife does.
    private static func checkRuns(_ rule: Rule) throws {
        guard rule.emulation != .alternating else {
            throw TesseraError("HashLife cannot run \(rule): with B0 and without S8 its stored cells are inverted every other generation",
                               fix: "leave out --algorithm hashlife (tiles run it, as Golly's QuickLife does)")
        }
    }

    static func tooFar(_ bounds: CellBounds) -> TesseraError {
        TesseraError("live cells at \(bounds) are too far apart for HashLife: Tessera's coordinates reach ±2^62",
                     fix: "move the pattern nearer the origin (#CXRLE Pos=x,y)")
    }

    /// The node of the 2^level square whose top-left cell is `cells`' top-left one: built
    /// from the leaves up, each 8×8 leaf cut from eight words of its rows, and each
    /// square above made of four below. Top-down, every square of every level asked the
    /// grid whether it held a cell, and every leaf read its eight rows eight cells at a
    /// time: Golly's largest gun (2325×2210 cells) took 1.2 ms to build.
    private mutating func build(level: Int, cells: BitGrid) -> UInt32 {
        var across = (cells.width + 7) / 8, down = (cells.height + 7) / 8
        var squares = [UInt32](repeating: store.empty(3), count: across * down)
        let wordsPerRow = cells.wordsPerRow
        cells.words.withUnsafeBufferPointer { words in
            for band in 0..<down {
                let rows = min(8, cells.height - band * 8)
                for word in 0..<wordsPerRow {
                    func line(_ row: Int) -> UInt64 { row < rows ? words[(band * 8 + row) * wordsPerRow + word] : 0 }
                    let (l0, l1, l2, l3, l4, l5, l6, l7) = (line(0), line(1), line(2), line(3), line(4), line(5), line(6), line(7))
                    guard l0 | l1 | l2 | l3 | l4 | l5 | l6 | l7 != 0 else { continue }
                    for leaf in 0..<min(8, across - word * 8) {
                        let shift = UInt64(leaf * 8)
                        let leafCells = (l0 >> shift & 0xFF) | (l1 >> shift & 0xFF) << 8 | (l2 >> shift & 0xFF) << 16
                            | (l3 >> shift & 0xFF) << 24 | (l4 >> shift & 0xFF) << 32 | (l5 >> shift & 0xFF) << 40
                            | (l6 >> shift & 0xFF) << 48 | (l7 >> shift & 0xFF) << 56
                        if leafCells != 0 { squares[band * across + word * 8 + leaf] = store.leaf(leafCells) }
                    }
                }
            }
        }
        for below in 3..<level {
            let empty = store.empty(below)
            let nextAcross = (across + 1) / 2, nextDown = (down + 1) / 2
            var next = [UInt32](repeating: store.empty(below + 1), count: nextAcross * nextDown)
            for y in 0..<nextDown {
                for x in 0..<nextAcross {
                    let (left, right, upper, lower) = (2 * x, 2 * x + 1, 2 * y, 2 * y + 1)
                    let nw = squares[upper * across + left]
                    let ne = right < across ? squares[upper * across + right] : empty
                    let sw = lower < down ? squares[lower * across + left] : empty
                    let se = right < across && lower < down ? squares[lower * across + right] : empty
                    if nw != empty || ne != empty || sw != empty || se != empty { next[y * nextAcross + x] = store.find(nw, ne, sw, se) }
                }
            }
            (squares, across, down) = (next, nextAcross, nextDown)
        }
        return squares[0]
    }

    /// The node of the 2^level square at (x, y) (Golly coordinates) holding `parts`' cells.
    private mutating func build(level: Int, x: Int, y: Int, parts: [PlacedCells]) -> UInt32 {
        let side = 1 << level
        let square = CellBounds(left: x, top: y, width: side, height: side)
        if level == 3 {
            // Read straight away: an empty leaf is leaf(0), the empty square of level 3.
            var cells: UInt64 = 0
            for part in parts {
                guard let overlap = part.bounds.intersection(square) else { continue }
                for row in overlap.top..<overlap.bottom {
                    cells |= part.cells.bits(x: x - part.left, y: row - part.top, count: 8) << UInt64((row - y) * 8)
                }
            }
            return store.leaf(cells)
        }
        func touches(_ part: PlacedCells) -> Bool {
            guard let overlap = part.bounds.intersection(square) else { return false }
            return !part.cells.isEmpty(x: overlap.left - part.left, y: overlap.top - part.top,
                                       width: overlap.width, height: overlap.height)
        }
        // One part, the usual case, is passed on as it is: no array made per square.
        let touching = parts.count == 1 ? (touches(parts[0]) ? parts : []) : parts.filter(touches)
        if touching.isEmpty { return store.empty(level) }
        let half = side / 2
        let nw = build(level: level - 1, x: x, y: y, parts: touching)
        let ne = build(level: level - 1, x: x + half, y: y, parts: touching)
        let sw = build(level: level - 1, x: x, y: y + half, parts: touching)
        let se = build(level: level - 1, x: x + half, y: y + half, parts: touching)
        return store.find(nw, ne, sw, se)
    }

    // MARK: Stepping

    /// Why a step stopped: the store reached `nodeLimit`.
    public struct OutOfNodes: Error {}
    /// Why a step stopped: it would have made more squares than it was allowed.
    public struct OverBudget: Error {}

    /// Advances `generations` generations, a power of two at a time (the binary digits
    /// of the count, largest first). Throws `OutOfNodes` when the pattern needs more
    /// squares than `nodeLimit` even after unreachable ones are collected; the
    /// universe then stands at the last step it finished.
    public mutating func advance(_ generations: UInt64) throws {
        for power in stride(from: 63, through: 0, by: -1) where generations >> UInt64(power) & 1 == 1 {
            if isStopped() { throw CancellationError() }
            try step(power: power)
        }
    }

    /// Advances 2^power generations, unless that makes the count of squares ever made
    /// (`squaresMade`) pass `madeAtMost` (`OverBudget`) or the store pass `nodeLimit`
    /// after collecting (`OutOfNodes`): the universe then stays where it was.
    public mutating func step(power: Int, madeAtMost: Int = .max) throws {
        precondition((0..<64).contains(power))
        let started = ContinuousClock.now
        defer { lastStepSeconds = (ContinuousClock.now - started).seconds }
        do {
            try advance(power: power, madeAtMost: madeAtMost)
        } catch is OutOfNodes {
            // Squares of earlier steps no longer in the universe: collected, then once more.
            collect()
            try advance(power: power, madeAtMost: madeAtMost)
        }
    }

    /// Whether a step runs on one thread or on every core.
    public enum Parallel: Sendable {
        /// On one thread.
        case never
        /// On every core where the last step took long enough to be worth it.
        case automatic
        /// On every core whatever the step (tests: helpers on small patterns).
        case always
    }

    /// How long a step must have taken for the next to run on every core: waking the
    /// helpers takes some ten microseconds.
    static let parallelFrom = 0.0005

    /// Squares made since the universe was (collected or not): what its steps cost.
    public var squaresMade: Int { store.made }

    private mutating func advance(power: Int, madeAtMost: Int) throws {
        if store.count > nodeLimit / 2 { collect() }
        if exponent != power {
            // A square of level L holds its centre 2^min(exponent, L − 2) on: the results
            // of squares small enough to go at full speed under both exponents hold for
            // both (Golly's `new_ngens` keeps them too).
            store.forgetResults(fromLevel: exponent < 0 ? 0 : min(exponent, power) + 3)
            exponent = power
        }
        while level > 4 && isCentred { shrink() }
        // The result is the root's centre half, 2^power on: the live cells must lie
        // 2^power inside it. Centred in a root of level ≥ power + 2, then one level
        // more, they lie a quarter of the root (≥ 2^power) inside that centre.
        while level < max(5, power + 2) || !isCentred { try expand() }
        try expand()
        root = try result(root, level: level, madeAtMost: madeAtMost)
        level -= 1
        left += 1 << (level - 1)
        top += 1 << (level - 1)
        generation &+= 1 << UInt64(power)
    }

    /// The root's result (see `Stepper`), walked on this thread while the other cores
    /// help where the last step was worth it; the buckets grow where the step fills
    /// them, and the step goes on from where it stopped (the results found so far are kept).
    private mutating func result(_ root: UInt32, level: Int, madeAtMost: Int) throws -> UInt32 {
        let helpers: StepHelpers? = switch parallel {
        case .never: nil
        case .automatic: lastStepSeconds >= Self.parallelFrom ? StepHelpers.shared : nil
        case .always: StepHelpers.shared
        }
        // The count of nodes at which `made` reaches `madeAtMost`.
        let budget = madeAtMost == .max ? Int.max : madeAtMost - (store.made - store.count)
        while true {
            // Copies: the closures below run while `store` is lent to `sharing`.
            let (exponent, isStopped) = (exponent, isStopped)
            let (ceiling, nodeLimit) = (min(nodeLimit, store.capacity), nodeLimit)
            do {
                return try rule.withKernelRule { kernelRule in
                    try store.sharing(threads: 1 + (helpers?.count ?? 0)) { squares in
                        let shared = StepShared(squares: squares[0], rule: kernelRule, exponent: exponent, ceiling: ceiling,
                                                nodeLimit: nodeLimit, budget: budget, isRunStopped: isStopped)
                        var walker = Stepper(shared: shared, squares: squares[0])
                        guard let helpers else { return try walker.result(root, level: level) }
                        return try helpers.run {
                            try walker.result(root, level: level)
                        } helping: { helper in
                            var helping = Stepper(shared: shared, squares: squares[helper], order: Stepper.Order(helper: helper))
                            // Whatever stops a helper stops the walker too, or is none of its business.
                            _ = try? helping.result(root, level: level)
                        } stop: {
                            shared.end()
                        }
                    }
                }
            } catch is StoreFull {
                store.grow()
            }
        }
    }

    /// Whether the live cells lie in the root's centre half: its middle 2×2 of 4×4 squares.
    private var isCentred: Bool {
        mutating get {
            let empty = store.empty(level - 2)
            let (nw, ne, sw, se) = (store[store[root].nw], store[store[root].ne], store[store[root].sw], store[store[root].se])
            return nw.nw == empty && nw.ne == empty && nw.sw == empty && ne.nw == empty && ne.ne == empty && ne.se == empty
                && sw.nw == empty && sw.sw == empty && sw.se == empty && se.ne == empty && se.sw == empty && se.se == empty
        }
    }

    /// The root's centre half as the root: its border held no live cell.
    private mutating func shrink() {
        root = store.centre(root)
        level -= 1
        left += 1 << (level - 1)
        top += 1 << (level - 1)
    }

    /// The root, centred in one twice its side.
    mutating func expand() throws {
        guard level < Self.highestLevel else {
            throw TesseraError("the pattern grew past 2^\(Self.highestLevel) cells a side, the most Tessera's coordinates hold",
                               fix: "run fewer generations")
        }
        let empty = store.empty(level - 1), old = store[root]
        let nw = store.find(empty, empty, empty, old.nw), ne = store.find(empty, empty, old.ne, empty)
        let sw = store.find(empty, old.sw, empty, empty), se = store.find(old.se, empty, empty, empty)
        root = store.find(nw, ne, sw, se)
        left -= 1 << (level - 1)
        top -= 1 << (level - 1)
        level += 1
    }

    /// Drops every square the root no longer reaches.
    private mutating func collect() {
        // With the results where they leave three quarters of the store free.
        root = store.collect(keeping: [root], resultsUpTo: nodeLimit / 4)[0]
        occupiedCounts = [:]
        collections += 1
    }

    /// Times the store was collected: squares the root no longer reached dropped to make room.
    public private(set) var collections = 0

    // MARK: Reading

    /// Squares in the store: what the universe costs in memory, 24 bytes each and a bucket.
    public var nodeCount: Int { store.count }

    /// Live cells in the universe (at most `UInt64.max`): each distinct square above a
    /// leaf counted once, however often it occurs.
    public var population: UInt64 {
        var known: [UInt32: UInt64] = [:]
        func count(_ index: UInt32) -> UInt64 {
            let node = store[index]
            if node.sw == NodeStore.leafMark { return UInt64(store.cells(ofLeaf: index).nonzeroBitCount) }
            if let total = known[index] { return total }
            var total: UInt64 = 0
            for quadrant in [node.nw, node.ne, node.sw, node.se] {
                let (sum, overflow) = total.addingReportingOverflow(count(quadrant))
                total = overflow ? .max : sum
            }
            known[index] = total
            return total
        }
        return count(root)
    }

    /// Squares of 32×32 cells (aligned to the root's corner) that hold a live cell:
    /// the area a stepper of cells would have to work on, where the population alone
    /// cannot tell a soup from a few gliders.
    public var occupiedSquares: Int {
        mutating get {
            // Counted once per distinct square, and kept from step to step (a square never
            // changes): a gun's stream is the same few squares step after step, however
            // many places they fill. Counting afresh every step, a million generations of
            // the gun took 15 ms instead of 7.
            var counts = occupiedCounts
            occupiedCounts = [:]
            defer { occupiedCounts = counts }
            return liveSquareCount(level: 5, counts: &counts)
        }
    }

    /// The live cells' bounding box in Golly coordinates; nil when none is alive.
    public var bounds: CellBounds? {
        // Per node: the live cells' box relative to its corner (x0, y0, x1, y1 past the end).
        var boxes: [UInt32: (Int, Int, Int, Int)?] = [:]
        func box(_ index: UInt32, level: Int) -> (Int, Int, Int, Int)? {
            if let known = boxes[index] { return known }
            guard !store.isEmpty(index) else { return nil }
            var found: (Int, Int, Int, Int)? = nil
            if level == 3 {
                let cells = store.cells(ofLeaf: index)
                if cells != 0 {
                    var (x0, y0, x1, y1) = (8, 8, 0, 0)
                    for row in 0..<8 where cells >> UInt64(8 * row) & 0xFF != 0 {
                        let bits = UInt8(truncatingIfNeeded: cells >> UInt64(8 * row))
                        (x0, x1) = (min(x0, bits.trailingZeroBitCount), max(x1, 8 - bits.leadingZeroBitCount))
                        (y0, y1) = (min(y0, row), row + 1)
                    }
                    found = (x0, y0, x1, y1)
                }
            } else {
                let node = store[index], half = 1 << (level - 1)
                for (child, dx, dy) in [(node.nw, 0, 0), (node.ne, half, 0), (node.sw, 0, half), (node.se, half, half)] {
                    guard let (x0, y0, x1, y1) = box(child, level: level - 1) else { continue }
                    let moved = (x0 + dx, y0 + dy, x1 + dx, y1 + dy)
                    found = found.map { (min($0.0, moved.0), min($0.1, moved.1), max($0.2, moved.2), max($0.3, moved.3)) } ?? moved
                }
            }
            boxes[index] = found
            return found
        }
        guard let (x0, y0, x1, y1) = box(root, level: level) else { return nil }
        return CellBounds(left: left + x0, top: top + y0, width: x1 - x0, height: y1 - y0)
    }

    /// Walks the squares that hold live cells from the root down, each with its level
    /// and the Golly coordinates of its corner; `enter` says whether to go on into its
    /// quadrants (a leaf has none).
    private func walkLive(_ enter: (_ index: UInt32, _ level: Int, _ x: Int, _ y: Int) -> Bool) {
        func visit(_ index: UInt32, level: Int, x: Int, y: Int) {
            let node = store[index]
            guard !store.isEmpty(index), enter(index, level, x, y), level > 3 else { return }
            let half = 1 << (level - 1)
            visit(node.nw, level: level - 1, x: x, y: y)
            visit(node.ne, level: level - 1, x: x + half, y: y)
            visit(node.sw, level: level - 1, x: x, y: y + half)
            visit(node.se, level: level - 1, x: x + half, y: y + half)
        }
        visit(root, level: level, x: left, y: top)
    }

    /// A viewer's dots (`Viewport`, in Golly's coordinates): lit where a live cell lies
    /// under one. A square wholly under one dot lights it without being opened, so a
    /// frame of a pattern zoomed far out reads a few squares, not its cells.
    public func dots(in view: Viewport) -> BitGrid {
        var dots = BitGrid(width: view.width, height: view.height)
        walkLive { index, level, x, y in
            let square = TileRect(x: x, y: y, width: 1 << level, height: 1 << level)
            if let (column, row) = view.dot(holding: square) {
                dots[column, row] = true
                return false
            }
            guard view.dots(covering: square) != nil else { return false }
            guard level == 3 else { return true }
            let cells = store.cells(ofLeaf: index)
            for bit in 0..<64 where cells >> UInt64(bit) & 1 == 1 {
                if let (column, row) = view.dots(covering: TileRect(x: x + bit % 8, y: y + bit / 8, width: 1, height: 1)) {
                    dots[column.lowerBound, row.lowerBound] = true
                }
            }
            return false
        }
        return dots
    }

    /// The cells of `area` (Golly coordinates).
    public func cells(in area: CellBounds) -> BitGrid {
        var grid = BitGrid(width: area.width, height: area.height)
        walkLive { index, level, x, y in
            let side = 1 << level
            guard x < area.right, y < area.bottom, x + side > area.left, y + side > area.top else { return false }
            guard level == 3 else { return true }
            let cells = store.cells(ofLeaf: index)
            for row in 0..<8 where cells >> UInt64(8 * row) & 0xFF != 0 {
                grid.insertBits(cells >> UInt64(8 * row) & 0xFF, count: 8, x: x - area.left, y: y + row - area.top)
            }
            return false
        }
        return grid
    }

    /// The live cells as grids where they lie: one over their bounding box when that
    /// holds at most `largestGrid` cells and is not mostly empty squares of 2^`partLevel`
    /// cells a side, else one for each such square that holds any (a glider stream a
    /// million cells long is a diagonal of small grids, not a square of terabytes); none
    /// when none is alive.
    public func placedCells(partLevel: Int = 10) -> [PlacedCells] {
        guard let bounds else { return [] }
        let (area, overflow) = bounds.width.multipliedReportingOverflow(by: bounds.height)
        // A gun's stream fills only the squares along the diagonal of its box, about a
        // tenth of them: one grid over the box would be mostly zeros, made and read for
        // nothing.
        var counts: [UInt32: Int] = [:]
        guard overflow || area > Self.largestGrid || area > 2 * (liveSquareCount(level: partLevel, counts: &counts) << (2 * partLevel)) else {
            return [PlacedCells(cells: cells(in: bounds), left: bounds.left, top: bounds.top)]
        }
        return liveSquares(level: partLevel).map { placedCells(in: $0) }
    }

    /// The squares of 2^`level` cells a side (aligned to the root's corner; the root,
    /// where it is smaller) that hold live cells, in Golly's coordinates, row of squares
    /// by row from north to south, west to east in each.
    public func liveSquares(level squareLevel: Int) -> [CellBounds] {
        var squares: [CellBounds] = []
        walkLive { _, level, x, y in
            guard level <= squareLevel else { return true }
            squares.append(CellBounds(left: x, top: y, width: 1 << level, height: 1 << level))
            return false
        }
        return squares.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }

    /// The live cells of `square`, one of `liveSquares`, cut to their bounding box.
    public func placedCells(in square: CellBounds) -> PlacedCells {
        // A live square holds live cells: trimming it leaves some.
        PlacedCells(trimming: cells(in: square), left: square.left, top: square.top)!
    }

    /// The live cells of `row`, a row of `liveSquares` (west to east): one grid from the
    /// first to the last where at least half of that span is live squares, as a
    /// breeder's rows are (one walk down the tree for the row, and whole rows for the
    /// writer, rather than a walk and a trimmed copy for each square), else one for each.
    public func placedCells(inRow row: some BidirectionalCollection<CellBounds>) -> [PlacedCells] {
        guard let first = row.first, let last = row.last else { return [] }
        let span = CellBounds(left: first.left, top: first.top, width: last.right - first.left, height: first.height)
        guard 2 * row.count * first.width >= span.width else { return row.map { placedCells(in: $0) } }
        return [placedCells(in: span)]
    }

    /// Squares of `level` (aligned to the root's corner) that hold a live cell, at most
    /// `Int.max`; a root smaller than one counts as one. `counts` keeps what each larger
    /// square was found to hold, so a square is counted once however often it occurs.
    private func liveSquareCount(level squareLevel: Int, counts: inout [UInt32: Int]) -> Int {
        func count(_ index: UInt32, level: Int) -> Int {
            guard !store.isEmpty(index) else { return 0 }
            if level <= squareLevel { return 1 }
            if let known = counts[index] { return known }
            let node = store[index]
            var total = 0
            for quadrant in [node.nw, node.ne, node.sw, node.se] {
                let (sum, overflow) = total.addingReportingOverflow(count(quadrant, level: level - 1))
                total = overflow ? .max : sum
            }
            counts[index] = total
            return total
        }
        return count(root, level: level)
    }

    /// The most cells `placedCells` puts in one grid over the bounding box (32 MiB).
    static let largestGrid = 1 << 28
}
