import Testing
import TesseraCore
import Dispatch
@testable import TesseraHashLife

/// A HashLife step walked on every core (`HashLife.Parallel.always`: the helpers walk the
/// same squares in other orders and race to make them) gives the squares one thread's
/// walk gives: the same cells, population, bounds and macrocell tree, through the
/// store's growth, its collections and a stop in the middle of a step.
@Suite struct HashLifeStepHelpersTests {
    typealias Case = HashLifeTests.Case

    /// The cells, population and bounds of `life`.
    func state(_ life: borrowing HashLife) -> (cells: BitGrid, population: UInt64, bounds: CellBounds?) {
        let bounds = life.bounds
        return (bounds.map { life.cells(in: $0) } ?? BitGrid(width: 0, height: 0), life.population, bounds)
    }

    func expectSame(_ a: borrowing HashLife, _ b: borrowing HashLife, _ note: String) {
        let (x, y) = (state(a), state(b))
        #expect(x.bounds == y.bounds, "\(note)")
        #expect(x.population == y.population, "\(note)")
        let sameCells = x.cells == y.cells
        #expect(sameCells, "\(note)")
    }

    /// A machine with more than one core has helpers (CI's has two): else the tests below
    /// would walk on one thread and prove nothing about the helpers.
    @Test func helpersExistWhereThereAreCores() {
        #expect((StepHelpers.shared != nil) == (CPUAffinity.usableCount > 1))
    }

    /// Soups of several rules, in steps of many sizes: each step's squares are new, so
    /// the walks race to make most of them.
    @Test(arguments: [("B3/S23", 31 as UInt64, 48), ("B36/S23", 32, 96), ("B2-a/S12", 33, 40), ("B3/S23", 34, 160)])
    func everyCoreGivesWhatOneThreadGives(rule: String, seed: UInt64, side: Int) throws {
        let c = Case(seed: seed, side: side, rule: try Rule(parsing: rule))
        var alone = try c.hashLife(), helped = try c.hashLife()
        alone.parallel = .never
        helped.parallel = .always
        for step in [1, 7, 64, 3, 256, 100] {
            try alone.advance(UInt64(step))
            try helped.advance(UInt64(step))
            expectSame(alone, helped, "\(rule), seed \(seed), after a step of \(step)")
        }
        // Each square stored once (a square made twice would be two nodes of the tree,
        // which is written node by distinct node).
        let sameTree = alone.quadTree() == helped.quadTree()
        #expect(sameTree, "\(rule), seed \(seed): the macrocell's tree")
    }

    /// The store starts with buckets for 2^14 squares: a step that makes more stops to
    /// grow them and goes on, with helpers as alone. A stop asked in the middle of such a
    /// step ends it with `CancellationError`, the helpers with it; the universe then
    /// steps on to the same cells.
    @Test func aLargeStepGrowsTheStoreAndAStopWithinItEndsIt() throws {
        let c = Case(seed: 36, side: 384)
        var alone = try c.hashLife()
        alone.parallel = .never
        try alone.advance(1024)
        #expect(alone.nodeCount > 1 << 17)
        var helped = try c.hashLife()
        helped.parallel = .always
        // Asked before the step, then every 4096 squares the walking thread makes within
        // it: the first of those stops it, however much of the step the helpers take.
        var asked = 0
        helped.isStopped = {
            asked += 1
            return asked > 1
        }
        #expect(throws: CancellationError.self) { try helped.advance(1024) }
        #expect(asked == 2)
        helped.isStopped = { false }
        try helped.advance(1024)
        expectSame(alone, helped, "after a stop")
    }

    /// A store too small for the run collects between steps with helpers too, and ends
    /// where naive Life does.
    @Test func aSmallStoreCollectsWithHelpers() throws {
        let c = Case(seed: 12, side: 32)
        var roomy = try c.hashLife()
        try roomy.advance(150)
        var tight = try c.hashLife(nodeLimit: roomy.nodeCount / 3)
        tight.parallel = .always
        for _ in 0..<5 { try tight.advance(30) }
        HashLifeTests().expectSame(tight, c.naive(after: 150), c, "collected, with helpers")
        #expect(tight.collections > 0)
    }

    /// Two universes stepping at once in one process: one has the helpers, the other
    /// walks alone, and both end where one thread takes them.
    @Test func twoUniversesAtOnce() async throws {
        let cases = [Case(seed: 41, side: 64), Case(seed: 42, side: 64, rule: try Rule(parsing: "B36/S23"))]
        let expected = try cases.map { c in
            var alone = try c.hashLife()
            alone.parallel = .never
            try alone.advance(300)
            return state(alone)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (c, wanted) in zip(cases, expected) {
                group.addTask {
                    for _ in 0..<3 {
                        var helped = try c.hashLife()
                        helped.parallel = .always
                        try helped.advance(300)
                        let got = self.state(helped)
                        let same = got.cells == wanted.cells && got.population == wanted.population && got.bounds == wanted.bounds
                        #expect(same)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The store's squares made by several threads at once, into a handful of buckets so
/// that they race for the same chains all the time: each square is made once, and
/// every thread finds that one.
@Suite struct ConcurrentSquaresTests {
    @Test func threadsRacingForOneChainMakeEachSquareOnce() throws {
        var store = try NodeStore(limit: 1 << 16, capacity: 16)
        let threads = 4, leaves = 3000
        let found = (0..<threads).map { _ in LeafSlots(count: leaves) }
        store.sharing(threads: threads) { squares in
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var generator = SplitMix64(seed: UInt64(thread) + 1)
                var order = Array(0..<leaves)
                for i in order.indices.reversed() { order.swapAt(i, Int(generator.next() % UInt64(i + 1))) }
                for leaf in order { found[thread][leaf] = squares[thread].leaf(Self.cells(leaf)) }
            }
        }
        for leaf in 0..<leaves {
            let indices = Set(found.map { $0[leaf] })
            #expect(indices.count == 1, "leaf \(leaf): \(indices)")
            #expect(indices.allSatisfy { store.cells(ofLeaf: $0) == Self.cells(leaf) })
        }
        // Made ones and lost ones: at least one per leaf, and node 0.
        #expect(store.count > leaves)
    }

    static func cells(_ leaf: Int) -> UInt64 { UInt64(leaf) &* 0x9E37_79B9_7F4A_7C15 }

    /// Each thread makes its squares in a run of indices it reserved: those it did not
    /// use are lost nodes once the threads are done, which no chain holds and `made`
    /// does not count, even where they hold what a collection left behind (nodes that
    /// look like squares: chained anew, a find would return them).
    @Test func indicesReservedAndNotUsedAreLost() throws {
        var store = try NodeStore(limit: 1 << 16, capacity: 1 << 14)
        for leaf in 0..<5000 { _ = store.leaf(Self.cells(leaf)) }
        _ = store.collect(keeping: [])
        let madeBefore = store.made, threads = 2, each = 10
        let found = (0..<threads).map { _ in LeafSlots(count: each) }
        store.sharing(threads: threads) { squares in
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                for k in 0..<each { found[thread][k] = squares[thread].leaf(Self.cells(100_000 + thread * each + k)) }
            }
        }
        let made = Set(found.flatMap { slots in (0..<each).map { Int(slots[$0]) } })
        #expect(made.count == threads * each)
        #expect(store.count == 1 + threads * Squares.reservedRun)
        #expect(store.made == madeBefore + threads * each)
        for index in 1..<store.count {
            #expect(store.squares.isLost(UInt32(index)) != made.contains(index), "node \(index)")
        }
        // Chained anew, each square is found where it was made, and a square that was
        // only left behind is made anew.
        store.grow()
        for thread in 0..<threads {
            for k in 0..<each { #expect(store.leaf(Self.cells(100_000 + thread * each + k)) == found[thread][k]) }
        }
        let count = store.count
        #expect(Int(store.leaf(Self.cells(7))) == count)
    }
}

/// One slot per leaf, written by one thread and read after every thread has finished.
final class LeafSlots: @unchecked Sendable {
    private var values: [UInt32]
    init(count: Int) { values = [UInt32](repeating: 0, count: count) }
    subscript(index: Int) -> UInt32 {
        get { values[index] }
        set { values.withUnsafeMutableBufferPointer { $0[index] = newValue } }
    }
}

/// A collection keeps the squares its roots reach, renumbered, and, where asked (as
/// Golly's keeps them), the results of those squares and what they reach: the steps
/// after it find them made rather than make them again.
@Suite struct StoreCollectionTests {
    static func cells(_ leaf: Int) -> UInt64 { UInt64(leaf) &* 0x9E37_79B9_7F4A_7C15 }

    /// Results kept where they and what they reach keep `resultsUpTo` nodes or fewer
    /// (the five squares and six of the root come to eleven).
    @Test(arguments: [(0, false), (10, false), (11, true), (Int.max, true)])
    func aCollectionKeepsResultsWhereAsked(resultsUpTo: Int, results: Bool) throws {
        var store = try NodeStore(limit: 1 << 16, capacity: 1 << 10)
        for leaf in 0..<100 { _ = store.leaf(Self.cells(leaf)) }  // what nothing reaches
        let leaves = (1000..<1004).map { store.leaf(Self.cells($0)) }
        let square = store.find(leaves[0], leaves[1], leaves[2], leaves[3])
        let root = store.find(square, square, square, square)
        // A result made of squares nothing else reaches.
        let made = (2000..<2004).map { store.leaf(Self.cells($0)) }
        store.squares.setResult(root, store.find(made[0], made[1], made[2], made[3]))
        let kept = store.collect(keeping: [root], resultsUpTo: resultsUpTo)[0]
        // Node 0, the four leaves, the square and the root; and the result's five.
        #expect(store.count == (results ? 12 : 7))
        let result = store.squares.result(of: kept)
        guard results else { return #expect(result == 0) }
        let quadrants = store[result]
        let cells = [quadrants.nw, quadrants.ne, quadrants.sw, quadrants.se].map { store.cells(ofLeaf: $0) }
        #expect(cells == (2000..<2004).map(Self.cells))
    }
}

/// Squares made by two threads at once lie in the runs of indices each reserved, so a
/// square may lie before its quadrants: forgetting the results of a level still finds
/// every square's level (one pass in index order, each from its quadrant's, took such a
/// square for a low one, kept its result for the wrong number of generations, and
/// metapixels and guns stepped on two cores came out wrong).
@Suite struct StoreLevelsTests {
    @Test func resultsAreForgottenByLevelWhereSquaresLieBeforeTheirQuadrants() throws {
        var store = try NodeStore(limit: 1 << 16, capacity: 1 << 10)
        var leaves: [UInt32] = [], squares4: [UInt32] = [], square5: UInt32 = 0
        store.sharing(threads: 2) { squares in
            _ = squares[0].leaf(StoreCollectionTests.cells(1))  // the first thread's run comes first
            leaves = (0..<16).map { squares[1].leaf(StoreCollectionTests.cells(100 + $0)) }
            squares4 = (0..<4).map { squares[0].find(leaves[4 * $0], leaves[4 * $0 + 1], leaves[4 * $0 + 2], leaves[4 * $0 + 3]) }
            square5 = squares[0].find(squares4[0], squares4[1], squares4[2], squares4[3])
        }
        #expect(square5 < leaves.min()!)
        store.squares.setResult(square5, squares4[0])
        store.squares.setResult(squares4[1], leaves[0])
        store.forgetResults(fromLevel: 5)
        #expect(store.squares.result(of: square5) == 0, "a square of level 5 forgets")
        #expect(store.squares.result(of: squares4[1]) == leaves[0], "a square of level 4 keeps")
    }
}
