#if canImport(Glibc)
import Glibc
#endif
import TesseraCore

/// The squares of a HashLife universe, each stored once (hash-consed): a square of
/// 2^level cells a side is its four quadrants, and a square of 8×8 cells (level 3, a
/// leaf) its 64 cells. Equal squares get equal indices, so a pattern that repeats in
/// space costs one node per distinct square, and the step's memo (`result`) is shared
/// by every place the square occurs.
///
/// Nodes live in one flat buffer, chained into hash buckets through `next`; index 0 is
/// no node (an empty bucket, an unknown result). Noncopyable and a struct, so the tree
/// walks' accesses to it need no run-time exclusivity checks, as a class's would.
struct NodeStore: ~Copyable {
    struct Node {
        /// Quadrant indices; a leaf keeps its cells in `nw` (low half) and `ne` (high
        /// half), and `leafMark` in `sw` and `se`, which no node's quadrant can be.
        var nw: UInt32, ne: UInt32, sw: UInt32, se: UInt32
        var next: UInt32
        /// The square's centre half, `steps` generations on (see `HashLife`); 0: not known yet.
        var result: UInt32
        /// Live cells, counted once when the node is made (saturating): the universe's
        /// population is the root's, and a run weighs HashLife against tiles by it.
        var population: UInt64
    }

    static let leafMark = UInt32.max
    /// The most nodes one store holds: indices are 32 bits, and `leafMark` is none.
    static let largestCount = Int(UInt32.max - 1)

    private(set) var nodes: UnsafeMutablePointer<Node>
    /// Nodes the buckets are sized for: doubles as the store fills, up to `limit`.
    private var capacity: Int
    /// The most nodes this store holds: its address space is set aside for that many.
    let limit: Int
    private(set) var count = 1
    /// Nodes made since the store was: what stepping has cost, however many were collected.
    private(set) var made = 0
    /// The buckets for `capacity` nodes, which end where the nodes begin.
    private var buckets: UnsafeMutablePointer<UInt32>
    /// 64 − log2 of the bucket count.
    private var bucketShift: Int
    /// The empty square of each level, made on first use (index by level; 0: not yet).
    private var empties = [UInt32](repeating: 0, count: 64)
    private let space: Reservation

    /// Buckets for 2^17 nodes to start: a methuselah makes tens of thousands, and growing
    /// from 4096 re-bucketed them five times, a tenth of acorn's stepping.
    init(limit: Int, capacity: Int = 1 << 17) throws {
        // Address space for the limit, taken as memory only where touched, in huge
        // pages where the system gives them: nodes are made in order and never move
        // (no copy when the store grows), and acorn's 1.5 MB of them cost 370 page
        // faults, 0.45 ms, against 0.06 in one huge page. The buckets come first and
        // grow downwards from the nodes' start, so that a small store's buckets (512 KB)
        // and its first 1.5 MB of nodes share one huge page: zeroing one takes 0.17 ms,
        // R-pentomino's whole run 3.
        var limit = min(limit, Self.largestCount)
        var space: Reservation?, bucketBytes = 0
        while true {
            let shared: Int
            (bucketBytes, shared) = Self.bucketBytes(limit: limit, capacity: capacity)
            space = Reservation(bytes: bucketBytes + limit * MemoryLayout<Node>.stride, hugePageAt: bucketBytes - shared)
            // A system that lends less address space (ulimit -v, strict overcommit) gets a smaller store.
            guard space == nil, limit > 1 << 16 else { break }
            limit /= 2
        }
        guard let space else {
            throw TesseraError("cannot set aside memory for HashLife: \(Files.systemReason())",
                               fix: "raise the limit on address space (ulimit -v), or run with --algorithm tiles")
        }
        self.space = space
        (self.limit, self.capacity) = (limit, min(capacity, limit))
        nodes = (space.start + bucketBytes).bindMemory(to: Node.self, capacity: limit)
        // Fresh mappings read as zeros: every bucket starts empty, and node 0 is none.
        let size = Self.bucketCount(for: self.capacity)
        buckets = (UnsafeMutableRawPointer(nodes) - size * MemoryLayout<UInt32>.stride).bindMemory(to: UInt32.self, capacity: size)
        bucketShift = 64 - size.trailingZeroBitCount
    }

    /// The bytes set aside for the buckets of `limit` nodes, and how many of them the
    /// first buckets take (whole pages of them, so the nodes start on a page).
    private static func bucketBytes(limit: Int, capacity: Int) -> (all: Int, shared: Int) {
        let page = 4096
        let all = max(bucketCount(for: limit) * MemoryLayout<UInt32>.stride, page)
        let first = (bucketCount(for: min(capacity, limit)) * MemoryLayout<UInt32>.stride + page - 1) / page * page
        return (all, min(first, all))
    }

    /// Buckets for `capacity` nodes: the power of two at or above it.
    private static func bucketCount(for capacity: Int) -> Int {
        capacity <= 1 ? 1 : 1 << (Int.bitWidth - (capacity - 1).leadingZeroBitCount)
    }

    subscript(index: UInt32) -> Node {
        @inline(__always) get { nodes[Int(index)] }
    }

    /// The bucket of four quadrants: the high bits of a sum of products, where every
    /// bit of every quadrant has mixed (low bits of a product see only low bits of its factor).
    @inline(__always) static func bucket(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, shift: Int) -> Int {
        let h = UInt64(a) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(b) &* 0xC2B2_AE3D_27D4_EB4F
            &+ UInt64(c) &* 0x1656_67B1_9E37_79F9 &+ UInt64(d) &* 0x27D4_EB2F_1656_67C5
        return Int(truncatingIfNeeded: h >> UInt64(shift))
    }

    /// The node of these four quadrants (or a leaf's halves and `leafMark`s), made if new.
    @inline(__always) mutating func find(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 {
        let slot = Self.bucket(a, b, c, d, shift: bucketShift)
        var index = buckets[slot]
        while index != 0 {
            let node = nodes[Int(index)]
            if node.nw == a && node.ne == b && node.sw == c && node.se == d { return index }
            index = node.next
        }
        let population: UInt64
        if c == Self.leafMark {
            population = UInt64((UInt64(a) | UInt64(b) << 32).nonzeroBitCount)
        } else {
            let (ab, o1) = nodes[Int(a)].population.addingReportingOverflow(nodes[Int(b)].population)
            let (cd, o2) = nodes[Int(c)].population.addingReportingOverflow(nodes[Int(d)].population)
            let (all, o3) = ab.addingReportingOverflow(cd)
            population = o1 || o2 || o3 ? .max : all
        }
        return insert(Node(nw: a, ne: b, sw: c, se: d, next: 0, result: 0, population: population))
    }

    private mutating func insert(_ node: Node) -> UInt32 {
        if count == capacity { grow() }
        // Found after any growth: growing re-buckets every node.
        let slot = Self.bucket(node.nw, node.ne, node.sw, node.se, shift: bucketShift)
        var node = node
        node.next = buckets[slot]
        nodes[count] = node
        buckets[slot] = UInt32(count)
        count += 1
        made += 1
        return UInt32(count - 1)
    }

    /// Buckets for twice the nodes (at most `limit`); every node's chain is made anew.
    /// The stepper stops short of the limit (`HashLife.nodeLimit`).
    private mutating func grow() {
        precondition(capacity < limit, "a HashLife store grew past its \(limit) nodes")
        capacity = min(capacity * 2, limit)
        rebucket()
    }

    private mutating func rebucket() {
        let size = Self.bucketCount(for: capacity)
        buckets = (UnsafeMutableRawPointer(nodes) - size * MemoryLayout<UInt32>.stride).bindMemory(to: UInt32.self, capacity: size)
        buckets.initialize(repeating: 0, count: size)
        bucketShift = 64 - size.trailingZeroBitCount
        for index in 1..<count {
            let node = nodes[index]
            let slot = Self.bucket(node.nw, node.ne, node.sw, node.se, shift: bucketShift)
            nodes[index].next = buckets[slot]
            buckets[slot] = UInt32(index)
        }
    }

    @inline(__always) mutating func leaf(_ cells: UInt64) -> UInt32 {
        find(UInt32(truncatingIfNeeded: cells), UInt32(truncatingIfNeeded: cells >> 32), Self.leafMark, Self.leafMark)
    }

    @inline(__always) func cells(ofLeaf index: UInt32) -> UInt64 {
        let node = nodes[Int(index)]
        return UInt64(node.nw) | UInt64(node.ne) << 32
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

    @inline(__always) mutating func setResult(_ index: UInt32, _ result: UInt32) {
        nodes[Int(index)].result = result
    }

    /// Forgets every memoised result: they were for another number of steps.
    mutating func forgetResults() {
        for index in 0..<count { nodes[index].result = 0 }
    }

    /// Keeps only the nodes `roots` reach (their quadrants, not their results), renumbered;
    /// returns the roots' new indices. Results are forgotten.
    mutating func collect(keeping roots: [UInt32]) -> [UInt32] {
        var newIndex = [UInt32](repeating: 0, count: count)
        var order: [UInt32] = []
        // Children before parents, so the copy below can renumber quadrants as it goes.
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
        }
        var kept = [Node](repeating: Node(nw: 0, ne: 0, sw: 0, se: 0, next: 0, result: 0, population: 0), count: order.count + 1)
        for (position, index) in order.enumerated() {
            var node = nodes[Int(index)]
            if node.sw != Self.leafMark {
                node.nw = newIndex[Int(node.nw)]
                node.ne = newIndex[Int(node.ne)]
                node.sw = newIndex[Int(node.sw)]
                node.se = newIndex[Int(node.se)]
            }
            node.result = 0
            kept[position + 1] = node
        }
        for (position, node) in kept.enumerated() { nodes[position] = node }
        count = kept.count
        for level in empties.indices where empties[level] != 0 { empties[level] = newIndex[Int(empties[level])] }
        rebucket()
        // The memory of the nodes collecting dropped goes back to the system.
        space.forget(from: UnsafeMutableRawPointer(nodes + count))
        return roots.map { newIndex[Int($0)] }
    }
}

/// Address space set aside with mmap, backed by memory only where written (the kernel
/// zeroes each page on first touch), asking for huge pages (`MADV_HUGEPAGE`: Linux's
/// transparent huge pages are commonly on for regions that ask). Unmapped with its last
/// reference.
private final class Reservation {
    let start: UnsafeMutableRawPointer
    private let base: UnsafeMutableRawPointer, length: Int
    private static let hugePage = 1 << 21

    /// `bytes` from `start`, placed so that `start + hugePageAt` begins a huge page.
    init?(bytes: Int, hugePageAt offset: Int) {
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
