import CTesseraKernel
import TesseraCore

/// HashLife over the states of a rule tree (a Golly rule file, JvN29, Nobili32) on the
/// unbounded plane, as Golly's RuleLoader and JvN engines run them: squares stored once
/// each, each remembering its centre half a number of generations on, so a machine that
/// repeats (signals running along a wire, a replicator's tape) costs what is new in it,
/// not its box. Needs a rule under which empty space stays empty.
///
/// A square of level 1 is 2x2 cells and holds their states; a square of level k > 1
/// holds its four quadrants, squares of level k - 1. Stepping 2^s generations, a square
/// of level k remembers its centre 2^min(s, k-2) generations on (Golly's hyperspeed off:
/// a step size of its own); a new step size forgets what was remembered.
package struct StateHashLife {
    package let tree: RuleTree
    /// The quadrants (nw, ne, sw, se) of a square of level 2 or more; a 2x2 square's
    /// four states.
    var quadrants: [SIMD4<UInt32>] = []
    private var levels: [UInt8] = []
    /// A square's centre after the step size's generations; `none` where not worked out.
    private var results: [UInt32] = []
    /// Open addressing over the squares' numbers (`none` for a free slot), by level and
    /// quadrants: a square is made once.
    private var slots = [UInt32](repeating: StateHashLife.none, count: 1 << 12)
    /// The empty square of each level (index 0 unused).
    var empties: [UInt32] = [0]
    /// The step size whose results `results` holds (2^stepExponent generations).
    private var stepExponent = -1
    private static let none = UInt32.max

    /// The square of all the cells, and its level (2^level cells a side).
    var root: UInt32 = 0
    var level = 0
    /// Golly's coordinates of the root's top-left cell.
    package private(set) var left = 0, top = 0
    /// Squares made since the last collection.
    package var squares: Int { levels.count }

    /// The cells of `grid`, whose top-left cell is at Golly's (`left`, `top`).
    package init(tree: RuleTree, grid: StateGrid, left: Int, top: Int) {
        self.tree = tree
        var level = 3
        while 1 << level < max(grid.width, grid.height) { level += 1 }
        let occupied = grid.occupied
        (self.left, self.top, self.level) = (left, top, level)
        root = build(level, x: 0, y: 0, grid, occupied)
    }

    /// A macrocell's squares as they are (`Pattern.stateTree`): nothing the size of
    /// their cells is made.
    package init(tree: RuleTree, squares: StateQuadTree) {
        self.tree = tree
        (left, top) = (squares.left, squares.top)
        guard let last = squares.nodes.last else {
            (root, level) = (empty(3), 3)
            return
        }
        // Node numbers (from 1) to squares; 0 is the empty square of whatever level asks.
        var made: [UInt32] = [0]
        for node in squares.nodes {
            guard node.level > 1 else {
                made.append(make(1, node.children))
                continue
            }
            let below = empty(node.level - 1), c = node.children
            func square(_ i: Int) -> UInt32 { c[i] == 0 ? below : made[Int(c[i])] }
            made.append(make(node.level, SIMD4(square(0), square(1), square(2), square(3))))
        }
        (root, level) = (made[made.count - 1], last.level)
        // A root of four cells, as the smallest a step pads from.
        if level == 1 { (root, level) = (make(2, SIMD4(root, empty(1), empty(1), empty(1))), 2) }
    }

    private mutating func build(_ level: Int, x: Int, y: Int, _ grid: StateGrid, _ occupied: BitGrid) -> UInt32 {
        let side = 1 << level
        let (width, height) = (min(side, grid.width - x), min(side, grid.height - y))
        if width <= 0 || height <= 0 || occupied.isEmpty(x: x, y: y, width: width, height: height) { return empty(level) }
        if level == 1 {
            func state(_ dx: Int, _ dy: Int) -> UInt32 {
                x + dx < grid.width && y + dy < grid.height ? UInt32(grid[x + dx, y + dy]) : 0
            }
            return make(1, SIMD4(state(0, 0), state(1, 0), state(0, 1), state(1, 1)))
        }
        let half = side / 2
        return make(level, SIMD4(build(level - 1, x: x, y: y, grid, occupied), build(level - 1, x: x + half, y: y, grid, occupied),
                                 build(level - 1, x: x, y: y + half, grid, occupied),
                                 build(level - 1, x: x + half, y: y + half, grid, occupied)))
    }

    // MARK: Squares

    mutating func make(_ level: Int, _ quadrants: SIMD4<UInt32>) -> UInt32 {
        let mask = slots.count - 1
        var slot = StateQuadTree.hash(level: level, children: quadrants) & mask
        while true {
            let found = slots[slot]
            if found == Self.none { break }
            if self.quadrants[Int(found)] == quadrants && levels[Int(found)] == UInt8(level) { return found }
            slot = (slot + 1) & mask
        }
        let made = UInt32(levels.count)
        self.quadrants.append(quadrants)
        levels.append(UInt8(level))
        results.append(Self.none)
        slots[slot] = made
        if 2 * levels.count > slots.count { grow() }
        return made
    }

    private mutating func grow() {
        slots = [UInt32](repeating: Self.none, count: 2 * slots.count)
        let mask = slots.count - 1
        for square in levels.indices {
            var slot = StateQuadTree.hash(level: Int(levels[square]), children: quadrants[square]) & mask
            while slots[slot] != Self.none { slot = (slot + 1) & mask }
            slots[slot] = UInt32(square)
        }
    }

    /// Starts loading what making these squares of `level` reads (each one's slot, then
    /// the square that slot holds, where most makes end): a square's sub-squares are made
    /// independently, and their misses then overlap rather than follow one another, as
    /// in the two-state store (`NodeStore.prefetch`).
    @inline(__always) private func prefetch(_ level: Int, _ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>, _ c: SIMD4<UInt32>, _ d: SIMD4<UInt32>,
                                            _ e: SIMD4<UInt32>? = nil) {
        slots.withUnsafeBufferPointer { slots in
            quadrants.withUnsafeBufferPointer { stored in
                let mask = slots.count - 1
                @inline(__always) func slot(_ square: SIMD4<UInt32>) -> Int { StateQuadTree.hash(level: level, children: square) & mask }
                @inline(__always) func head(_ slot: Int) {
                    if slots[slot] != Self.none { tessera_prefetch(stored.baseAddress! + Int(slots[slot])) }
                }
                let (sa, sb, sc, sd, se) = (slot(a), slot(b), slot(c), slot(d), e.map(slot))
                tessera_prefetch(slots.baseAddress! + sa); tessera_prefetch(slots.baseAddress! + sb)
                tessera_prefetch(slots.baseAddress! + sc); tessera_prefetch(slots.baseAddress! + sd)
                if let se { tessera_prefetch(slots.baseAddress! + se) }
                head(sa); head(sb); head(sc); head(sd)
                if let se { head(se) }
            }
        }
    }

    mutating func empty(_ level: Int) -> UInt32 {
        while empties.count <= level {
            let below = empties.count - 1
            empties.append(below == 0 ? make(1, .zero) : make(below + 1, SIMD4(repeating: empties[below])))
        }
        return empties[level]
    }

    /// The square of level `level` - 1 at the centre of `square`.
    private mutating func centre(_ square: UInt32, _ level: Int) -> UInt32 {
        let q = quadrants[Int(square)]
        let (nw, ne, sw, se) = (quadrants[Int(q[0])], quadrants[Int(q[1])], quadrants[Int(q[2])], quadrants[Int(q[3])])
        return make(level - 1, SIMD4(nw[3], ne[2], sw[1], se[0]))
    }

    // MARK: Stepping

    /// Advances 2^exponent generations.
    package mutating func step(exponent: Int) {
        if exponent != stepExponent {
            results = [UInt32](repeating: Self.none, count: results.count)
            stepExponent = exponent
        }
        // Room for what may grow in 2^exponent generations: the cells within the root's
        // central quarter, the root at least 2^(exponent+3) cells a side.
        while level < exponent + 3 || !centred() { pad() }
        let half = 1 << (level - 2)
        root = result(root, level)
        level -= 1
        (left, top) = (left + half, top + half)
        if squares > 1 << 22 { collect() }
    }

    /// Whether every cell in a state but 0 lies within the root's central quarter (its
    /// central square of side 2^(level-2)).
    private mutating func centred() -> Bool {
        guard level >= 4 else { return false }
        let middle = centre(root, level)
        for (square, below) in [(root, level), (middle, level - 1)] {
            let emptyBelow = empty(below - 2)
            let q = quadrants[Int(square)]
            for (i, quadrant) in [q[0], q[1], q[2], q[3]].enumerated() {
                let g = quadrants[Int(quadrant)]
                // The grandchildren away from the centre: all but the one facing it.
                for j in 0..<4 where j != 3 - i && g[j] != emptyBelow { return false }
            }
        }
        return true
    }

    /// The root one level up, the cells at its centre.
    mutating func pad() {
        let e = empty(level - 1)
        let q = quadrants[Int(root)]
        root = make(level + 1, SIMD4(make(level, SIMD4(e, e, e, q[0])), make(level, SIMD4(e, e, q[1], e)),
                                     make(level, SIMD4(e, q[2], e, e)), make(level, SIMD4(q[3], e, e, e))))
        let half = 1 << (level - 1)
        (left, top) = (left - half, top - half)
        level += 1
    }

    /// The centre of `square` (level `level`) 2^min(stepExponent, level-2) generations on.
    private mutating func result(_ square: UInt32, _ level: Int) -> UInt32 {
        let known = results[Int(square)]
        if known != Self.none { return known }
        let made: UInt32
        if level == 2 {
            made = leafResult(square)
        } else {
            let q = quadrants[Int(square)]
            let (nw, ne, sw, se) = (quadrants[Int(q[0])], quadrants[Int(q[1])], quadrants[Int(q[2])], quadrants[Int(q[3])])
            let l = level - 1
            // The nine overlapping squares of level `level` - 1.
            let n00 = q[0], n02 = q[1], n20 = q[2], n22 = q[3]
            let k01 = SIMD4(nw[1], ne[0], nw[3], ne[2]), k10 = SIMD4(nw[2], nw[3], sw[0], sw[1])
            let k11 = SIMD4(nw[3], ne[2], sw[1], se[0]), k12 = SIMD4(ne[2], ne[3], se[0], se[1])
            let k21 = SIMD4(sw[1], se[0], sw[3], se[2])
            prefetch(l, k01, k10, k11, k12, k21)
            let (n01, n10, n11, n12, n21) = (make(l, k01), make(l, k10), make(l, k11), make(l, k12), make(l, k21))
            // At full speed each of the nine is stepped, and then the four they make;
            // slower, the nine give their centres and only the four are stepped. (In
            // fixed lanes, not arrays: two allocations a square were a tenth of a run.)
            let full = stepExponent >= level - 2
            func inner(_ square: UInt32) -> UInt32 { full ? result(square, l) : centre(square, l) }
            var r = SIMD16<UInt32>()
            (r[0], r[1], r[2]) = (inner(n00), inner(n01), inner(n02))
            (r[3], r[4], r[5]) = (inner(n10), inner(n11), inner(n12))
            (r[6], r[7], r[8]) = (inner(n20), inner(n21), inner(n22))
            let (ka, kb) = (SIMD4(r[0], r[1], r[3], r[4]), SIMD4(r[1], r[2], r[4], r[5]))
            let (kc, kd) = (SIMD4(r[3], r[4], r[6], r[7]), SIMD4(r[4], r[5], r[7], r[8]))
            prefetch(l, ka, kb, kc, kd)
            let (a, b, c, d) = (make(l, ka), make(l, kb), make(l, kc), make(l, kd))
            let c00 = result(a, l)
            let c01 = result(b, l)
            let c10 = result(c, l)
            let c11 = result(d, l)
            made = make(l, SIMD4(c00, c01, c10, c11))
        }
        results[Int(square)] = made
        return made
    }

    /// The centre 2x2 of a 4x4 square one generation on, by the rule tree.
    private mutating func leafResult(_ square: UInt32) -> UInt32 {
        let q = quadrants[Int(square)]
        var cells = SIMD16<UInt32>()
        for i in 0..<4 {
            let states = quadrants[Int(q[i])]
            let (x, y) = (2 * (i & 1), 2 * (i >> 1))
            cells[y * 4 + x] = states[0]
            cells[y * 4 + x + 1] = states[1]
            cells[(y + 1) * 4 + x] = states[2]
            cells[(y + 1) * 4 + x + 1] = states[3]
        }
        let moore = tree.neighbourhood == .moore
        func next(_ x: Int, _ y: Int) -> UInt32 {
            tree.nodes.withUnsafeBufferPointer { nodes in
                var i = Int(tree.root)
                func read(_ dx: Int, _ dy: Int) { i = Int(nodes[i + Int(cells[(y + dy) * 4 + x + dx])]) }
                // The input orders of Golly's ruletreealgo: nw, ne, sw, se, n, w, e, s, c;
                // von Neumann's n, w, e, s, c.
                if moore {
                    read(-1, -1); read(1, -1); read(-1, 1); read(1, 1)
                }
                read(0, -1); read(-1, 0); read(1, 0); read(0, 1); read(0, 0)
                return UInt32(i)
            }
        }
        return make(1, SIMD4(next(1, 1), next(2, 1), next(1, 2), next(2, 2)))
    }

    /// Keeps only the squares the root is made of; what was remembered goes.
    private mutating func collect() {
        var kept = StateHashLife(tree: tree, left: left, top: top, level: level)
        var copied: [UInt32: UInt32] = [:]
        func copy(_ square: UInt32, _ level: Int) -> UInt32 {
            if let done = copied[square] { return done }
            let q = quadrants[Int(square)]
            let made = level == 1 ? kept.make(1, q)
                : kept.make(level, SIMD4(copy(q[0], level - 1), copy(q[1], level - 1), copy(q[2], level - 1), copy(q[3], level - 1)))
            copied[square] = made
            return made
        }
        kept.root = copy(root, level)
        self = kept
    }

    private init(tree: RuleTree, left: Int, top: Int, level: Int) {
        (self.tree, self.left, self.top, self.level) = (tree, left, top, level)
    }

    // MARK: Reading the cells

    /// The box of the cells in a state but 0, in Golly's coordinates; nil where none is.
    /// Each distinct square's box is found once: a machine's millions of cells are its
    /// thousands of squares.
    package mutating func liveBounds() -> (x: Int, y: Int, width: Int, height: Int)? {
        _ = empty(level)
        var boxes: [UInt32: SIMD4<Int>] = [:]
        guard let box = bounds(root, level, &boxes) else { return nil }
        return (left + box[0], top + box[1], box[2] - box[0], box[3] - box[1])
    }

    /// The box (x0, y0, x1, y1) of a square's cells in a state but 0, from its corner.
    private func bounds(_ square: UInt32, _ level: Int, _ boxes: inout [UInt32: SIMD4<Int>]) -> SIMD4<Int>? {
        if square == empties[level] { return nil }
        if let known = boxes[square] { return known }
        let q = quadrants[Int(square)], half = level == 1 ? 1 : 1 << (level - 1)
        var box: SIMD4<Int>? = nil
        for i in 0..<4 {
            let part: SIMD4<Int>? = level == 1 ? (q[i] == 0 ? nil : SIMD4(0, 0, 1, 1)) : bounds(q[i], level - 1, &boxes)
            guard let part else { continue }
            let offset = SIMD4((i & 1) * half, (i >> 1) * half, (i & 1) * half, (i >> 1) * half)
            let moved = part &+ offset
            box = box.map { SIMD4(min($0[0], moved[0]), min($0[1], moved[1]), max($0[2], moved[2]), max($0[3], moved[3])) } ?? moved
        }
        boxes[square] = box
        return box
    }

    /// Each cell in a state but 0: its Golly coordinates and state.
    package mutating func forEachCell(_ body: (Int, Int, Int) -> Void) {
        visit(root, level, left, top, body)
    }

    private mutating func visit(_ square: UInt32, _ level: Int, _ x: Int, _ y: Int, _ body: (Int, Int, Int) -> Void) {
        if square == empty(level) { return }
        let q = quadrants[Int(square)]
        if level == 1 {
            for i in 0..<4 where q[i] != 0 { body(x + (i & 1), y + (i >> 1), Int(q[i])) }
            return
        }
        let half = 1 << (level - 1)
        visit(q[0], level - 1, x, y, body)
        visit(q[1], level - 1, x + half, y, body)
        visit(q[2], level - 1, x, y + half, body)
        visit(q[3], level - 1, x + half, y + half, body)
    }
}
