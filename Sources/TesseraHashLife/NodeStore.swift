#if canImport(Glibc)
import Glibc
#endif
import CTesseraKernel
import TesseraCore

/// The squares of a HashLife universe, each stored once (hash-consed): a square of
/// 2^level cells a side is its four quadrants, and a square of 8×8 cells (level 3, a
/// leaf) its 64 cells. Equal squares get equal indices, so a pattern that repeats in
/// space costs one node per distinct square, and the step's memo (`result`) is shared
/// by every place the square occurs.
///
/// Nodes live in one flat buffer, chained into hash buckets through `next`; index 0 is
/// no node (an empty bucket, an unknown result). This owner grows the buckets, collects
/// and forgets results, alone; a step's threads find and make squares through `squares`
/// at once. Noncopyable and a struct, so the tree walks' accesses to it need no
/// run-time exclusivity checks, as a class's would.
struct NodeStore: ~Copyable {
    typealias Node = Squares.Node

    static let leafMark = Squares.leafMark
    /// The most nodes one store holds: indices are 32 bits, and `leafMark` is none.
    static let largestCount = Int(UInt32.max - 1)

    /// The nodes and buckets as this owner finds them; made anew when the buckets grow.
    private(set) var squares: Squares
    /// Runs `step` with the squares as each of `threads` threads finds and makes them,
    /// all at once (`Squares.shared`), or as this thread alone for one; then marks the
    /// indices they reserved and did not use as lost nodes, which no chain holds and
    /// `made` does not count.
    mutating func sharing<Value>(threads: Int, _ step: ([Squares]) throws -> Value) rethrows -> Value {
        guard threads > 1 else { return try step([squares]) }
        // A slot of 64 bytes each, so that no two threads write one cache line.
        let stride = 64 / MemoryLayout<Squares.Reserved>.stride
        let slots = UnsafeMutablePointer<Squares.Reserved>.allocate(capacity: threads * stride)
        slots.initialize(repeating: Squares.Reserved(), count: threads * stride)
        defer {
            for thread in 0..<threads {
                let unused = slots[thread * stride]
                for index in unused.next..<unused.end { nodes[index].sw = 0 }
                madeBefore -= unused.end - unused.next
            }
            slots.deallocate()
        }
        return try step((0..<threads).map { squares.shared(reserving: slots + $0 * stride) })
    }
    var nodes: UnsafeMutablePointer<Node> { squares.nodes }
    /// Nodes the buckets are sized for: doubles as the store fills, up to `limit`.
    private(set) var capacity: Int
    /// The most nodes this store holds: its address space is set aside for that many.
    var limit: Int { squares.limit }
    var count: Int { squares.count }
    /// Nodes made since the store was: what stepping has cost, however many were collected.
    var made: Int { madeBefore + count - 1 }
    /// Nodes made before the last collection, less those it kept.
    private var madeBefore = 0
    /// The empty square of each level, made on first use (index by level; 0: not yet).
    private var empties = [UInt32](repeating: 0, count: 64)
    private let space: Reservation
    /// The next free index, which the threads of a step take in turn.
    private let counter: UnsafeMutablePointer<Int64>

    /// Buckets for 2^14 nodes to start (64 KB): a methuselah makes tens of thousands and
    /// re-buckets them two or three times, which costs less than touching more pages
    /// (R-pentomino, acorn and eaters.rle ran 3–10% faster than from 2^17 buckets, in
    /// interleaved runs); growing from 4096 had re-bucketed five times, a tenth of acorn's
    /// stepping.
    init(limit: Int, capacity: Int = 1 << 14) throws {
        // Address space for the limit, taken as memory only where touched: nodes are
        // made in order and never move (no copy when the store grows). The buckets come
        // first and grow downwards from the nodes' start. The first 8 MiB of nodes and
        // 2 MiB of buckets are in 4 KiB pages, and what follows in huge pages where the
        // system gives them: most of Golly's files make a few thousand squares
        // (eaters.rle 2466, 80 KB) and the methuselahs and small breeders tens of
        // thousands, for which a huge page is 2 MiB of memory mostly unused (with 2 MiB
        // of small nodes, one-cell-thick-quadratic-growth's 76229 squares took 9.0 MiB
        // against 6.9), while the millions of a big store cost a fault per 4 KiB in
        // small pages (this VM: 2 MiB of small pages 1.6 ms, one huge page 0.3 ms).
        var limit = min(limit, Self.largestCount)
        var space: Reservation?, bucketBytes = 0
        while true {
            bucketBytes = Self.bucketBytes(limit: limit)
            space = Reservation(bytes: bucketBytes + limit * MemoryLayout<Node>.stride, hugePageAt: bucketBytes + Self.smallNodeBytes,
                                smallBefore: Self.smallNodeBytes + Self.smallBucketBytes)
            // A system that lends less address space (ulimit -v, strict overcommit) gets a smaller store.
            guard space == nil, limit > 1 << 16 else { break }
            limit /= 2
        }
        guard let space else {
            throw TesseraError("cannot set aside memory for HashLife: \(Files.systemReason())",
                               fix: "raise the limit on address space (ulimit -v), or run with --algorithm tiles")
        }
        self.space = space
        self.capacity = min(capacity, limit)
        counter = .allocate(capacity: 1)
        counter.initialize(to: 1)
        // Fresh mappings read as zeros: every bucket starts empty, and node 0 is none.
        let nodes = (space.start + bucketBytes).bindMemory(to: Node.self, capacity: limit)
        squares = Squares(nodes: nodes, bucketCount: Self.bucketCount(for: self.capacity), counter: counter, limit: limit)
    }

    deinit { counter.deallocate() }

    /// The bytes set aside for the buckets of `limit` nodes (whole pages of them, so the
    /// nodes start on a page).
    private static func bucketBytes(limit: Int) -> Int {
        max(bucketCount(for: limit) * MemoryLayout<UInt32>.stride, 4096)
    }

    /// The nodes' bytes in 4 KiB pages before the first huge page.
    private static let smallNodeBytes = 8 << 20
    /// The buckets' bytes in 4 KiB pages (those nearest the nodes, which are used first).
    private static let smallBucketBytes = 2 << 20

    /// Buckets for `capacity` nodes: the power of two at or above it.
    private static func bucketCount(for capacity: Int) -> Int {
        capacity <= 1 ? 1 : 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount)
    }

    subscript(index: UInt32) -> Node {
        @inline(__always) get { nodes[Int(index)] }
    }

    /// The node of these four quadrants (or a leaf's halves and `leafMark`s), made if new.
    @inline(__always) mutating func find(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        let index = squares.find(a, b, c, d)
        if count >= capacity { grow() }
        return index
    }

    /// Buckets for twice the nodes (at most `limit`); every node's chain is made anew.
    /// A step stops for it when its threads fill the buckets (`StoreFull`); the
    /// stepper stops short of the limit (`HashLife.nodeLimit`).
    mutating func grow() {
        precondition(capacity < limit, "a HashLife store grew past its \(limit) nodes")
        while count >= capacity && capacity < limit { capacity = min(capacity * 2, limit) }
        rebucket()
    }

    /// Chains every node anew into buckets for `capacity`. The nodes are read in order,
    /// but their buckets lie anywhere: each is asked for `rebucketAhead` nodes before it
    /// is written, so that the misses of a store larger than the caches overlap rather
    /// than come one after another.
    private mutating func rebucket() {
        squares = Squares(nodes: nodes, bucketCount: Self.bucketCount(for: capacity), counter: counter, limit: limit)
        let (buckets, shift, count) = (squares.buckets, squares.bucketShift, count)
        buckets.initialize(repeating: 0, count: squares.bucketCount)
        @inline(__always) func slot(_ index: Int) -> Int {
            let node = nodes + index
            return Squares.bucket(node.pointee.nw, node.pointee.ne, node.pointee.sw, node.pointee.se, shift: shift)
        }
        for index in 1..<count {
            if index + Self.rebucketAhead < count { tessera_prefetch(buckets + slot(index + Self.rebucketAhead)) }
            if squares.isLost(UInt32(index)) { continue }
            let slot = slot(index)
            nodes[index].next = buckets[slot]
            buckets[slot] = UInt32(index)
        }
    }

    private static let rebucketAhead = 16

    @inline(__always) mutating func leaf(_ cells: UInt64) -> UInt32 {
        find(UInt32(truncatingIfNeeded: cells), UInt32(truncatingIfNeeded: cells >> 32), Self.leafMark, Self.leafMark)
    }

    @inline(__always) func cells(ofLeaf index: UInt32) -> UInt64 { squares.cells(ofLeaf: index) }

    /// Whether the square holds no live cell: a leaf of no cells, or four quadrants
    /// alike that are empty (a square is stored once, so an empty one's quadrants are
    /// one index, and a square of four differing quadrants is never empty).
    func isEmpty(_ index: UInt32) -> Bool {
        var square = index
        while true {
            let node = nodes[Int(square)]
            if node.sw == Self.leafMark { return node.nw == 0 && node.ne == 0 }
            guard node.nw == node.ne, node.nw == node.sw, node.nw == node.se else { return false }
            square = node.nw
        }
    }

    /// The centre half of a square above level 4, not stepped (`Squares.centre`).
    mutating func centre(_ index: UInt32) -> UInt32 {
        let centre = squares.centre(index)
        if count >= capacity { grow() }
        return centre
    }

    /// The empty square of `level` (3 or more).
    mutating func empty(_ level: Int) -> UInt32 {
        if empties[level] != 0 { return empties[level] }
        let made = level == 3 ? leaf(0) : {
            let quadrant = empty(level - 1)
            return find(quadrant, quadrant, quadrant, quadrant)
        }()
        empties[level] = made
        return made
    }

    /// Forgets the memoised results of squares of `level` or more (a leaf is level 3):
    /// they were for another number of generations. A square's level is its north-west
    /// quadrant's plus one. Threads that make squares at once make them in the runs of
    /// indices each reserved (`Squares.Reserved`), so a square may lie before its
    /// quadrants: a level not known yet is found down the north-west quadrants, and
    /// each square's level is worked out once.
    mutating func forgetResults(fromLevel lowest: Int) {
        guard lowest > 3 else {
            for index in 0..<count { nodes[index].result = 0 }
            return
        }
        let count = count
        var levels = [UInt8](repeating: 0, count: count), below: [Int] = []
        levels.withUnsafeMutableBufferPointer { levels in
            for index in 1..<max(count, 1) {
                let node = nodes + index
                // A node that lost the race to be made has no result and may be a leaf,
                // whose `nw` holds cells.
                if squares.isLost(UInt32(index)) { continue }
                if levels[index] == 0 {
                    var square = index
                    while levels[square] == 0 && nodes[square].sw != Self.leafMark {
                        below.append(square)
                        square = Int(nodes[square].nw)
                    }
                    var level = levels[square] == 0 ? 3 : levels[square]
                    levels[square] = level
                    while let above = below.popLast() {
                        level &+= 1
                        levels[above] = level
                    }
                }
                if Int(levels[index]) >= lowest { node.pointee.result = 0 }
            }
        }
    }

    /// Keeps only the nodes `roots` reach, renumbered; returns the roots' new indices.
    /// A kept node keeps its result too, and what that reaches (as Golly's collection
    /// keeps them: the steps to come find them made), where that keeps at most
    /// `resultsUpTo` nodes in all; else every result is forgotten.
    mutating func collect(keeping roots: [UInt32], resultsUpTo most: Int = 0) -> [UInt32] {
        // The nodes kept, quadrants numbered before the squares they make up (a walk that
        // finishes them first), and each one's new index.
        func walk(results: Bool) -> (order: [UInt32], newIndex: [UInt32]) {
            var newIndex = [UInt32](repeating: 0, count: count), order: [UInt32] = []
            var stack: [(index: UInt32, expanded: Bool)] = roots.map { ($0, false) }
            while let (index, expanded) = stack.popLast() {
                if newIndex[Int(index)] != 0 { continue }
                let node = nodes[Int(index)]
                if expanded || node.sw == Self.leafMark {
                    newIndex[Int(index)] = UInt32(order.count + 1)
                    order.append(index)
                    continue
                }
                stack.append((index, true))
                for child in [node.se, node.sw, node.ne, node.nw] where newIndex[Int(child)] == 0 { stack.append((child, false)) }
                // A result need not come before its square: it is renumbered once all are.
                if results, node.result != 0, newIndex[Int(node.result)] == 0 { stack.append((node.result, false)) }
            }
            return (order, newIndex)
        }
        var (order, newIndex) = walk(results: most > 0)
        let results = most > 0 && order.count <= most
        if most > 0 && !results { (order, newIndex) = walk(results: false) }
        var kept = [Node](repeating: Node(nw: 0, ne: 0, sw: 0, se: 0, next: 0, result: 0), count: order.count + 1)
        for (position, index) in order.enumerated() {
            var node = nodes[Int(index)]
            if node.sw != Self.leafMark {
                node.nw = newIndex[Int(node.nw)]
                node.ne = newIndex[Int(node.ne)]
                node.sw = newIndex[Int(node.sw)]
                node.se = newIndex[Int(node.se)]
            }
            node.result = results && node.sw != Self.leafMark ? newIndex[Int(node.result)] : 0
            kept[position + 1] = node
        }
        for (position, node) in kept.enumerated() { nodes[position] = node }
        madeBefore = made - (kept.count - 1)
        tessera_store_i64(counter, Int64(kept.count))
        for level in empties.indices where empties[level] != 0 { empties[level] = newIndex[Int(empties[level])] }
        rebucket()
        // The memory of the nodes collecting dropped goes back to the system.
        space.forget(from: UnsafeMutableRawPointer(nodes + count))
        return roots.map { newIndex[Int($0)] }
    }
}

/// A store's nodes and buckets as the threads of one step share them: each finds and
/// makes squares at once (`find`), and reads and sets results (`result`, `setResult`).
/// A node is written whole before one atomic exchange puts it at the head of its
/// bucket's chain, and never changes after, but for its result, which is read and
/// written atomically; nothing else of the store changes during a step (the owner
/// grows the buckets and collects between steps). That is why it is `Sendable`.
struct Squares: @unchecked Sendable {
    struct Node {
        /// Quadrant indices; a leaf keeps its cells in `nw` (low half) and `ne` (high
        /// half), and `leafMark` in `sw` and `se`, which no node's quadrant can be.
        /// A node made by a thread that lost the race to make the same square has
        /// `sw` 0 (`isLost`): no chain holds it.
        var nw: UInt32, ne: UInt32, sw: UInt32, se: UInt32
        var next: UInt32
        /// The square's centre half, `steps` generations on (see `HashLife`); 0: not known yet.
        /// (A node keeps no count of its live cells: 24 bytes, not 28, a seventh less
        /// memory for every store; `HashLife.population` counts them when asked.)
        var result: UInt32
    }

    static let leafMark = UInt32.max
    /// Where a node keeps its result: after five quadrant and chain indices (checked in `init`).
    private static var resultOffset: Int { 20 }

    let nodes: UnsafeMutablePointer<Node>
    /// The buckets, which end where the nodes begin.
    let buckets: UnsafeMutablePointer<UInt32>
    let bucketCount: Int
    /// 64 − log2 of the bucket count.
    let bucketShift: Int
    private let counter: UnsafeMutablePointer<Int64>
    /// Where other threads find and make squares at the same time, the indices this
    /// thread reserved and has not used yet (`Reserved`); nil on one thread.
    private var reserved: UnsafeMutablePointer<Reserved>?
    /// Whether other threads find and make squares at the same time: a locked exchange
    /// waits for the node's own write to reach memory, which alone made a step on one
    /// thread a tenth slower.
    var isShared: Bool { reserved != nil }
    /// The nodes the buffer holds.
    let limit: Int

    init(nodes: UnsafeMutablePointer<Node>, bucketCount: Int, counter: UnsafeMutablePointer<Int64>, limit: Int) {
        precondition(MemoryLayout<Node>.offset(of: \Node.result) == Self.resultOffset)
        (self.nodes, self.bucketCount, self.counter, self.limit) = (nodes, bucketCount, counter, limit)
        buckets = (UnsafeMutableRawPointer(nodes) - bucketCount * MemoryLayout<UInt32>.stride)
            .bindMemory(to: UInt32.self, capacity: bucketCount)
        bucketShift = 64 - bucketCount.trailingZeroBitCount
    }

    /// A run of node indices one thread of a shared step took at once and makes its
    /// squares at, one after another: threads that took every index from the counter in
    /// turn wrote their nodes side by side, two to a cache line, and each index and
    /// each node moved the line from the other core first.
    struct Reserved {
        var next = 0, end = 0
    }

    /// Indices a thread reserves at a time: 3.5 KiB of nodes, 56 cache lines.
    static let reservedRun = 128

    /// The same nodes and buckets, found and made by several threads at once, this one
    /// making its squares at the indices it reserves in `reserved`.
    func shared(reserving reserved: UnsafeMutablePointer<Reserved>) -> Squares {
        var shared = self
        shared.reserved = reserved
        return shared
    }

    /// Nodes made, node 0 (none) and lost ones included: the next index.
    var count: Int { Int(tessera_load_i64(counter)) }

    /// The bucket of four quadrants: the high bits of a sum of products, where every
    /// bit of every quadrant has mixed (low bits of a product see only low bits of its factor).
    @inline(__always) static func bucket(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, shift: Int) -> Int {
        let h = UInt64(a) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(b) &* 0xC2B2_AE3D_27D4_EB4F
            &+ UInt64(c) &* 0x1656_67B1_9E37_79F9 &+ UInt64(d) &* 0x27D4_EB2F_1656_67C5
        return Int(truncatingIfNeeded: h >> UInt64(shift))
    }

    /// The node of these four quadrants (or a leaf's halves and `leafMark`s), made if
    /// new. Two threads that make the same square at once keep the one that reached
    /// the chain first: the other looks again from the new head, finds it, and marks
    /// its own lost.
    @inline(__always) func find(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        let bucket = buckets + Self.bucket(a, b, c, d, shift: bucketShift)
        var head = tessera_load_acquire_u32(bucket)
        // The part of the chain from `searchedTo` on was searched already.
        var searchedTo: UInt32 = 0, made: UInt32 = 0
        while true {
            var index = head
            while index != searchedTo {
                let node = nodes + Int(index)
                if node.pointee.nw == a && node.pointee.ne == b && node.pointee.sw == c && node.pointee.se == d {
                    if made != 0 { nodes[Int(made)].sw = 0 }
                    return index
                }
                index = node.pointee.next
            }
            if made == 0 { made = make(a, b, c, d) }
            nodes[Int(made)].next = head
            guard isShared else {
                bucket.pointee = made
                return made
            }
            if tessera_exchange_u32(bucket, head, made) != 0 { return made }
            searchedTo = head
            head = tessera_load_acquire_u32(bucket)
        }
    }

    /// Starts loading what finding these squares' nodes reads (each one's bucket, then
    /// the head of its chain, where most finds end), for finds soon after. The finds of
    /// a square's sub-squares are independent; in a store larger than the caches their
    /// buckets and nodes then arrive together rather than one miss after another (a
    /// fifth off a big store's step on one core).
    @inline(__always) func prefetch(_ a: Quadrants, _ b: Quadrants, _ c: Quadrants, _ d: Quadrants, _ e: Quadrants? = nil) {
        let (sa, sb, sc, sd) = (slot(a), slot(b), slot(c), slot(d)), se = e.map(slot)
        tessera_prefetch(sa); tessera_prefetch(sb); tessera_prefetch(sc); tessera_prefetch(sd)
        if let se { tessera_prefetch(se) }
        head(sa); head(sb); head(sc); head(sd)
        if let se { head(se) }
    }

    @inline(__always) private func slot(_ square: Quadrants) -> UnsafeMutablePointer<UInt32> {
        buckets + Self.bucket(square.nw, square.ne, square.sw, square.se, shift: bucketShift)
    }

    @inline(__always) private func head(_ slot: UnsafeMutablePointer<UInt32>) {
        tessera_prefetch(nodes + Int(tessera_load_acquire_u32(slot)))
    }

    @inline(__always) func find(_ square: Quadrants) -> UInt32 { find(square.nw, square.ne, square.sw, square.se) }

    /// A node of these quadrants at the next index, in no chain yet.
    private func make(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        let index: Int
        if let reserved {
            if reserved.pointee.next == reserved.pointee.end {
                let first = Int(tessera_fetch_add_i64(counter, Int64(Self.reservedRun)))
                reserved.pointee = Reserved(next: first, end: first + Self.reservedRun)
            }
            index = reserved.pointee.next
            reserved.pointee.next += 1
        } else {
            index = Int(counter.pointee)
            counter.pointee += 1
        }
        precondition(index < limit, "a HashLife step made squares past its store's room")
        nodes[index] = Node(nw: a, ne: b, sw: c, se: d, next: 0, result: 0)
        return UInt32(index)
    }

    @inline(__always) func leaf(_ cells: UInt64) -> UInt32 {
        find(UInt32(truncatingIfNeeded: cells), UInt32(truncatingIfNeeded: cells >> 32), Self.leafMark, Self.leafMark)
    }

    @inline(__always) func cells(ofLeaf index: UInt32) -> UInt64 {
        let node = nodes + Int(index)
        return UInt64(node.pointee.nw) | UInt64(node.pointee.ne) << 32
    }

    typealias Quadrants = (nw: UInt32, ne: UInt32, sw: UInt32, se: UInt32)

    /// The four quadrants of a square above a leaf.
    @inline(__always) func quadrants(_ index: UInt32) -> Quadrants {
        let node = nodes + Int(index)
        return (node.pointee.nw, node.pointee.ne, node.pointee.sw, node.pointee.se)
    }

    /// The centre half of a square above level 4, not stepped: its quadrants' inner quadrants.
    @inline(__always) func centre(_ index: UInt32) -> UInt32 {
        let node = quadrants(index)
        return find(quadrants(node.nw).se, quadrants(node.ne).sw, quadrants(node.sw).ne, quadrants(node.se).nw)
    }

    /// Whether `index` was made by a thread that lost the race to make its square.
    func isLost(_ index: UInt32) -> Bool { nodes[Int(index)].sw == 0 }

    @inline(__always) func result(of index: UInt32) -> UInt32 { tessera_load_acquire_u32(resultAddress(index)) }

    @inline(__always) func setResult(_ index: UInt32, _ result: UInt32) { tessera_store_release_u32(resultAddress(index), result) }

    @inline(__always) private func resultAddress(_ index: UInt32) -> UnsafeMutablePointer<UInt32> {
        (UnsafeMutableRawPointer(nodes + Int(index)) + Self.resultOffset).assumingMemoryBound(to: UInt32.self)
    }
}

/// Address space set aside with mmap, backed by memory only where written (the kernel
/// zeroes each page on first touch), asking for huge pages (`MADV_HUGEPAGE`: Linux's
/// transparent huge pages are commonly on for regions that ask) from a given place on.
/// Unmapped with its last reference.
private final class Reservation {
    let start: UnsafeMutableRawPointer
    private let base: UnsafeMutableRawPointer, length: Int
    private static let hugePage = 1 << 21

    /// `bytes` from `start`, placed so that `start + hugePageAt` begins a huge page, in
    /// 4 KiB pages for the `smallBefore` bytes before it.
    init?(bytes: Int, hugePageAt offset: Int, smallBefore: Int) {
        // One huge page more, so that the chosen place can sit on a huge page's boundary.
        length = bytes + Self.hugePage
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
              mapped != UnsafeMutableRawPointer(bitPattern: -1)
        else { return nil }
        base = mapped
        let address = UInt(bitPattern: mapped) + UInt(offset)
        let aligned = (address + UInt(Self.hugePage - 1)) & ~UInt(Self.hugePage - 1)
        start = mapped + Int(aligned - address)
        _ = madvise(base, length, MADV_HUGEPAGE)
        let end = min(start + offset, base + length), small = max(end - smallBefore, base)
        _ = madvise(small, end - small, MADV_NOHUGEPAGE)
    }

    deinit { munmap(base, length) }

    /// Hands back the memory from `address` on (whole huge pages of it); it reads as zeros again.
    func forget(from address: UnsafeMutableRawPointer) {
        let kept = (UInt(bitPattern: address) + UInt(Self.hugePage - 1)) & ~UInt(Self.hugePage - 1)
        let end = UInt(bitPattern: base) + UInt(length)
        guard kept < end, let from = UnsafeMutableRawPointer(bitPattern: kept) else { return }
        _ = madvise(from, Int(end - kept), MADV_DONTNEED)
    }
}
