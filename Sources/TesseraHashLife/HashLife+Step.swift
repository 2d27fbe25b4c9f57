#if canImport(Glibc)
import Glibc
#endif
import CTesseraKernel
import Synchronization
import TesseraCore

/// What the threads of one step share: the store's squares (as counted; each thread
/// makes its own through `Stepper.squares`), the rule, the step's size and its limits,
/// and whether the step is over. The rule's compiled form outlives the
/// step (the universe's rule holds it), and the rest is immutable or atomic; the run's
/// own stop check is called only on the thread that made it. Hence `Sendable`.
final class StepShared: @unchecked Sendable {
    let squares: Squares
    let rule: UnsafePointer<tessera_rule>
    /// A result advances 2^min(exponent, level − 2) generations.
    let exponent: Int
    /// The count of nodes past which the step stops: the store's limit (`OutOfNodes`;
    /// the store has room past it for the squares each thread makes between two looks)
    /// or its buckets' capacity (`StoreFull`).
    let ceiling: Int, nodeLimit: Int
    /// The count of nodes past which the step has made more than it was allowed (`OverBudget`).
    let budget: Int
    /// Whether the run was stopped, asked every so many squares by `walker` alone.
    private let isRunStopped: () -> Bool
    private let walker = pthread_self()
    private let over = Atomic<Bool>(false)

    init(squares: Squares, rule: UnsafePointer<tessera_rule>, exponent: Int, ceiling: Int, nodeLimit: Int, budget: Int,
         isRunStopped: @escaping () -> Bool) {
        (self.squares, self.rule, self.exponent) = (squares, rule, exponent)
        (self.ceiling, self.nodeLimit, self.budget, self.isRunStopped) = (ceiling, nodeLimit, budget, isRunStopped)
    }

    /// Whether the walk that gives the step's result is done (or failed): helpers stop.
    var isOver: Bool { over.load(ordering: .relaxed) }

    func end() { over.store(true, ordering: .relaxed) }

    /// Whether the run was stopped, asked on the thread that walks for the result.
    var isRunStoppedHere: Bool { pthread_equal(pthread_self(), walker) != 0 && isRunStopped() }
}

/// Why a step stopped: its threads filled the store's buckets, which grow between steps.
struct StoreFull: Error {}
/// Why a helper stopped: the step it helped is over.
struct StepOver: Error {}

/// One thread's walk through a step: HashLife's recursion over the shared squares, each
/// square's nine and then four sub-squares taken in this walk's `order`.
struct Stepper {
    let shared: StepShared
    /// Which way this walk takes the nine (and then the four) sub-squares of each
    /// square: the walker from the top-left, helpers in turn from the bottom-right or
    /// as the walker, so that two walks meet in the middle of each square rather than
    /// make the same results.
    struct Order {
        var backwards = false

        /// The order of helper `helper` (1, 2, …), beside the walker's (0).
        init(helper: Int = 0) { backwards = helper % 2 == 1 }
    }
    let order: Order
    /// The squares as this walk's thread finds and makes them.
    let squares: Squares
    private var untilLook = 4096

    init(shared: StepShared, squares: Squares, order: Order = Order()) {
        (self.shared, self.squares, self.order) = (shared, squares, order)
    }

    /// The centre half of a square of `level` ≥ 5, 2^min(exponent, level − 2)
    /// generations on: memoised in the node.
    mutating func result(_ index: UInt32, level: Int) throws -> UInt32 {
        let known = squares.result(of: index)
        if known != 0 { return known }
        try look()
        let made: UInt32
        if level == 5 {
            made = baseResult(index)
        } else {
            let node = squares.quadrants(index)
            let (nw, ne, sw, se) = (squares.quadrants(node.nw), squares.quadrants(node.ne),
                                    squares.quadrants(node.sw), squares.quadrants(node.se))
            // The nine overlapping squares half this one's side, as a 3×3.
            let k01: Squares.Quadrants = (nw.ne, ne.nw, nw.se, ne.sw), k10: Squares.Quadrants = (nw.sw, nw.se, sw.nw, sw.ne)
            let k11: Squares.Quadrants = (nw.se, ne.sw, sw.ne, se.nw), k12: Squares.Quadrants = (ne.sw, ne.se, se.nw, se.ne)
            let k21: Squares.Quadrants = (sw.ne, se.nw, sw.se, se.sw)
            squares.prefetch(k01, k10, k11, k12, k21)
            let (n01, n10, n11, n12, n21) = (squares.find(k01), squares.find(k10), squares.find(k11), squares.find(k12), squares.find(k21))
            // At full speed each of the two halves of the step advances a quarter of the
            // side; slower, the first half only centres, and the second advances it all.
            let full = shared.exponent >= level - 2
            @inline(__always) func inner(_ square: UInt32) throws -> UInt32 {
                full ? try sub(square, level: level - 1) : squares.centre(square)
            }
            var i00: UInt32 = 0, i01: UInt32 = 0, i02: UInt32 = 0, i10: UInt32 = 0, i11: UInt32 = 0
            var i12: UInt32 = 0, i20: UInt32 = 0, i21: UInt32 = 0, i22: UInt32 = 0
            if order.backwards {
                (i22, i21, i20) = (try inner(node.se), try inner(n21), try inner(node.sw))
                (i12, i11, i10) = (try inner(n12), try inner(n11), try inner(n10))
                (i02, i01, i00) = (try inner(node.ne), try inner(n01), try inner(node.nw))
            } else {
                (i00, i01, i02) = (try inner(node.nw), try inner(n01), try inner(node.ne))
                (i10, i11, i12) = (try inner(n10), try inner(n11), try inner(n12))
                (i20, i21, i22) = (try inner(node.sw), try inner(n21), try inner(node.se))
            }
            let ka: Squares.Quadrants = (i00, i01, i10, i11), kb: Squares.Quadrants = (i01, i02, i11, i12)
            let kc: Squares.Quadrants = (i10, i11, i20, i21), kd: Squares.Quadrants = (i11, i12, i21, i22)
            squares.prefetch(ka, kb, kc, kd)
            let (a, b, c, d) = (squares.find(ka), squares.find(kb), squares.find(kc), squares.find(kd))
            var ra: UInt32 = 0, rb: UInt32 = 0, rc: UInt32 = 0, rd: UInt32 = 0
            if order.backwards {
                (rd, rc) = (try sub(d, level: level - 1), try sub(c, level: level - 1))
                (rb, ra) = (try sub(b, level: level - 1), try sub(a, level: level - 1))
            } else {
                (ra, rb) = (try sub(a, level: level - 1), try sub(b, level: level - 1))
                (rc, rd) = (try sub(c, level: level - 1), try sub(d, level: level - 1))
            }
            made = squares.find(ra, rb, rc, rd)
        }
        squares.setResult(index, made)
        return made
    }

    /// A sub-square's result: most are known, and looked up here without a call.
    @inline(__always) private mutating func sub(_ index: UInt32, level: Int) throws -> UInt32 {
        let known = squares.result(of: index)
        return known != 0 ? known : try result(index, level: level)
    }

    /// Stops the step where the store is full or the budget spent, a helper where the
    /// step is over, and (every 4096 squares, on the walking thread) the walk where the
    /// run was stopped.
    private mutating func look() throws {
        let count = shared.squares.count
        if count >= shared.ceiling { throw count >= shared.nodeLimit ? HashLife.OutOfNodes() : StoreFull() }
        if count >= shared.budget { throw HashLife.OverBudget() }
        if shared.isOver { throw StepOver() }
        untilLook -= 1
        if untilLook <= 0 {
            untilLook = 4096
            // One step of a chaotic pattern can run for minutes: a stopping signal is
            // heard within one, not only between steps.
            if shared.isRunStoppedHere { throw CancellationError() }
        }
    }

    /// The result of a square of level 5, computed from its sixteen leaves in one go
    /// (`tessera_square_result`): no square of level 4 is made on the way.
    private func baseResult(_ index: UInt32) -> UInt32 {
        let node = squares.quadrants(index)
        let (nw, ne, sw, se) = (squares.quadrants(node.nw), squares.quadrants(node.ne),
                                squares.quadrants(node.sw), squares.quadrants(node.se))
        let centre = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 16) { leaves in
            // Rows of four leaves, from the top-left: two for each pair of quadrants side by side.
            func band(_ first: Int, _ west: Squares.Quadrants, _ east: Squares.Quadrants) {
                leaves[first] = squares.cells(ofLeaf: west.nw)
                leaves[first + 1] = squares.cells(ofLeaf: west.ne)
                leaves[first + 2] = squares.cells(ofLeaf: east.nw)
                leaves[first + 3] = squares.cells(ofLeaf: east.ne)
                leaves[first + 4] = squares.cells(ofLeaf: west.sw)
                leaves[first + 5] = squares.cells(ofLeaf: west.se)
                leaves[first + 6] = squares.cells(ofLeaf: east.sw)
                leaves[first + 7] = squares.cells(ofLeaf: east.se)
            }
            band(0, nw, ne)
            band(8, sw, se)
            return tessera_square_result(leaves.baseAddress!, Int32(1 << min(shared.exponent, 3)), shared.rule)
        }
        return squares.find(squares.leaf(centre.nw), squares.leaf(centre.ne), squares.leaf(centre.sw), squares.leaf(centre.se))
    }
}
