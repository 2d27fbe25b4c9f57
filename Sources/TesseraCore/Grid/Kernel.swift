import CTesseraKernel

/// The Life step: bit-sliced neighbour counts, 64 cells per word.
///
/// Each row's west+centre+east and west+east sums are computed once as 2-bit numbers;
/// the rows above and below (three cells each) and the cell's own row (two) are added
/// with full adders into the neighbour count, and the rule is applied as boolean logic
/// on it. On AVX2 CPUs the inner loop runs in C
/// (`CTesseraKernel`); elsewhere this file's portable Swift loop does the same work.
public enum Kernel {
    public enum Implementation: String, Sendable, CaseIterable {
        case avx2
        case portable

        /// Whether this CPU runs it.
        public var isSupported: Bool { self == .portable || Kernel.hasAVX2 }

        /// What it runs here, for a bench's line: the AVX2 kernel uses AVX-512 where the
        /// CPU has it (vpternlogq in Life's adders, compiled rules two vectors at a time in
        /// zmm registers, Larger than Life's box 64 counts a vector).
        public var name: String {
            self == .avx2 && tessera_cpu_has_ternary() != 0 ? "avx2 (with AVX-512)" : rawValue
        }

        /// Refuses an implementation this CPU cannot run, before anything steps with it.
        public func checkSupported() throws {
            guard isSupported else {
                throw TesseraError("this CPU has no AVX2, so the avx2 kernel cannot run here", fix: "use the portable kernel")
            }
        }
    }

    private static let hasAVX2 = tessera_cpu_has_avx2() != 0

    /// The fastest implementation this CPU runs.
    public static let best: Implementation = hasAVX2 ? .avx2 : .portable

    /// Steps rows `rows` of `source` into `target` (same size). Rows `rows.lowerBound - 1`
    /// and `rows.upperBound` are read, so `rows` must lie inside `1..<height-1`. Cells
    /// beyond the left and right edges count as dead. With `words`, only those words of
    /// each row, the words either side read as they are.
    public static func step(
        _ source: CellBuffer, into target: CellBuffer, rows: Range<Int>, words: Range<Int>? = nil, rule: Rule,
        using implementation: Implementation = best
    ) {
        precondition(source.width == target.width && source.height == target.height)
        precondition(rule.emulation == .none, "B0 reaches the kernel only as Rule.steps")
        precondition(rows.lowerBound >= 1 && rows.upperBound <= source.height - 1)
        // Callers check with `checkSupported()` first; AVX2 code on a CPU without it is SIGILL.
        precondition(implementation.isSupported, "the avx2 kernel on a CPU without AVX2")
        let words = words ?? 0..<source.rowWords
        precondition(words.lowerBound >= 0 && words.upperBound <= source.rowWords)
        guard !rows.isEmpty, !words.isEmpty else { return }
        let src = UnsafePointer(source.row(0) + words.lowerBound), dst = target.row(0) + words.lowerBound
        if implementation == .avx2, rule.withKernelRule({
            tessera_step_rows_avx2(src, dst, source.stride, words.count, rows.lowerBound, rows.upperBound, $0)
        }) != 0 {
            return
        }
        portableStep(src, dst, stride: source.stride, words: words.count, rows: rows, rule: rule, flags: nil)
    }

    /// What `stepTracked` reports for each 256-cell column it stepped: whether a stepped
    /// cell differs from the one it overwrote in the target, and where; whether one is alive.
    public struct ColumnFlags: OptionSet, Sendable {
        public let rawValue: UInt16
        // Inlinable, as are the flags: the block stepper tests them for every block it
        // steps, and a static stored property read from another module is a call
        // through a lazy initialiser (2 % of a Gosper gun's profile).
        @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
        @inlinable public static var changed: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED)) }
        @inlinable public static var alive: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_ALIVE)) }
        /// In the first row of the call, or the last (only when it was stepped).
        @inlinable public static var firstRow: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_FIRST_ROW)) }
        @inlinable public static var lastRow: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_LAST_ROW)) }
        /// In the column's first cell (its west edge), or its last (its east edge).
        @inlinable public static var firstColumn: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_FIRST_COLUMN)) }
        @inlinable public static var lastColumn: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_LAST_COLUMN)) }
        @inlinable public static var topLeft: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_TOP_LEFT)) }
        @inlinable public static var topRight: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_TOP_RIGHT)) }
        @inlinable public static var bottomLeft: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_BOTTOM_LEFT)) }
        @inlinable public static var bottomRight: ColumnFlags { ColumnFlags(rawValue: UInt16(TESSERA_CHANGED_BOTTOM_RIGHT)) }
    }

    /// A column's report from `stepTracked`: its `ColumnFlags`, and for a changed column
    /// the rows that changed, bit i for the call's row `rows.lowerBound + i`.
    public struct ColumnReport {
        public let rawValue: UInt64
        @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }
        @inlinable public var flags: ColumnFlags { ColumnFlags(rawValue: UInt16(truncatingIfNeeded: rawValue)) }
        @inlinable public var changedRows: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    }

    /// Steps, of rows `rows` (at most 32) of the 256-cell columns `columns` (column c is
    /// words 4c..<4c+4), only those whose bit in `mask` is set (bit i: row
    /// `rows.lowerBound + i`), and reports each column's `ColumnReport` in
    /// `flags[c - columns.lowerBound]`. Rows left out must hold their next state already.
    /// Cells just outside the columns are read as they are. In a double-buffered board
    /// the target holds the generation before last, so `changed` says whether the new
    /// cells differ from that one's.
    package static func stepTracked(
        _ source: CellBuffer, into target: CellBuffer, rows: Range<Int>, mask: UInt32 = .max, columns: Range<Int>,
        rule: Rule, using implementation: Implementation = best, flags: UnsafeMutablePointer<UInt64>
    ) {
        precondition(rows.lowerBound >= 1 && rows.upperBound <= source.height - 1 && rows.count <= 32)
        precondition(rule.emulation == .none, "B0 reaches the kernel only as Rule.steps")
        precondition(columns.lowerBound >= 0 && columns.upperBound * 4 <= source.rowWords)
        precondition(implementation.isSupported, "the avx2 kernel on a CPU without AVX2")
        guard !rows.isEmpty, !columns.isEmpty else { return }
        let offset = columns.lowerBound * 4, words = columns.count * 4
        let src = UnsafePointer(source.row(0) + offset), dst = target.row(0) + offset
        if implementation == .avx2, rule.withKernelRule({
            tessera_step_tracked_avx2(src, dst, source.stride, words, rows.lowerBound, rows.upperBound, mask, $0, flags)
        }) != 0 {
            return
        }
        flags.initialize(repeating: 0, count: columns.count)
        portableStep(src, dst, stride: source.stride, words: words, rows: rows, rule: rule, flags: flags, mask: mask)
    }

    private typealias Vector = SIMD4<UInt64>

    /// Where a row's changes lie, for `ColumnFlags`, when it is the first or last row stepped.
    @inline(__always)
    private static func edges(_ changed: Vector, first: Bool, last: Bool) -> ColumnFlags {
        guard first || last, changed != Vector(repeating: 0) else { return [] }
        var flags: ColumnFlags = []
        let west = changed[0] & 1 != 0, east = changed[3] >> 63 != 0
        if first {
            flags.insert(.firstRow)
            if west { flags.insert(.topLeft) }
            if east { flags.insert(.topRight) }
        }
        if last {
            flags.insert(.lastRow)
            if west { flags.insert(.bottomLeft) }
            if east { flags.insert(.bottomRight) }
        }
        return flags
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt64>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    /// West+centre+east and west+east of the four words at `p`, as 2-bit numbers, and
    /// the centre and its west and east neighbours.
    @inline(__always)
    private static func horizontal(_ p: UnsafePointer<UInt64>)
        -> (three0: Vector, three1: Vector, two0: Vector, two1: Vector, centre: Vector, west: Vector, east: Vector) {
        let c = load(p)
        let west = c &<< 1 | load(p - 1) &>> 63
        let east = c &>> 1 | load(p + 1) &<< 63
        let two0 = west ^ east, two1 = west & east
        return (two0 ^ c, two1 | two0 & c, two0, two1, c, west, east)
    }

    /// The same algorithm as the C loop, four words at a time with Swift's SIMD types
    /// (SSE2 or NEON without any CPU flags).
    /// With `flags` (at most 32 rows), only the rows `mask` names are stepped, and each
    /// 4-word column ORs its `ColumnReport` into `flags[j / 4]`.
    private static func portableStep(
        _ src: UnsafePointer<UInt64>, _ dst: UnsafeMutablePointer<UInt64>,
        stride: Int, words: Int, rows: Range<Int>, rule: Rule, flags: UnsafeMutablePointer<UInt64>?, mask: UInt32 = .max
    ) {
        let isLife = rule == .life
        let birth = rule.birth, survive = rule.survive
        // Bands of rows keep what one column walk touches in cache for the next column.
        for bandStart in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: 64) {
            let band = bandStart..<min(bandStart + 64, rows.upperBound)
            for j in Swift.stride(from: 0, to: words, by: 4) {
                var above = horizontal(src + ((band.lowerBound - 1) &* stride &+ j))
                var here = horizontal(src + (band.lowerBound &* stride &+ j))
                var diff = Vector(repeating: 0), live = Vector(repeating: 0)
                var changedRows: UInt64 = 0
                for r in band {
                    let below = horizontal(src + ((r &+ 1) &* stride &+ j))
                    if flags != nil, mask >> UInt32(r - rows.lowerBound) & 1 == 0 {
                        // Left out: it holds its next state already; only whether it is alive counts.
                        live |= UnsafeRawPointer(dst + (r &* stride &+ j)).loadUnaligned(as: Vector.self)
                        (above, here) = (here, below)
                        continue
                    }
                    // The eight-neighbour count n, by full adders.
                    let x0 = above.three0 ^ here.two0, x1 = above.three1 ^ here.two1
                    let n0 = x0 ^ below.three0
                    let k = above.three0 & here.two0 | x0 & below.three0
                    let p = x1 ^ below.three1
                    let q = above.three1 & here.two1 | x1 & below.three1
                    let n1 = p ^ k, carry = p & k
                    let alive = here.centre
                    let next: Vector
                    if rule.table != nil {
                        // The nine inputs of each word, on the stack (no array a word).
                        next = rule.withKernelRule { compiled in
                            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 9) { inputs in
                                var lanes = Vector(repeating: 0)
                                for lane in 0..<4 {
                                    (inputs[0], inputs[1], inputs[2]) = (above.west[lane], above.centre[lane], above.east[lane])
                                    (inputs[3], inputs[4], inputs[5]) = (here.west[lane], here.centre[lane], here.east[lane])
                                    (inputs[6], inputs[7], inputs[8]) = (below.west[lane], below.centre[lane], below.east[lane])
                                    lanes[lane] = tessera_rule_apply(compiled, inputs.baseAddress!)
                                }
                                return lanes
                            }
                        }
                    } else if isLife {
                        next = n1 & (n0 | alive) & ~(q | carry)
                    } else {
                        let n2 = q ^ carry, n3 = q & carry
                        var born = Vector(repeating: 0), stays = Vector(repeating: 0)
                        for n in 0...8 where (birth | survive) >> n & 1 == 1 {
                            let equal = (n & 1 != 0 ? n0 : ~n0) & (n & 2 != 0 ? n1 : ~n1)
                                & (n & 4 != 0 ? n2 : ~n2) & (n & 8 != 0 ? n3 : ~n3)
                            if birth >> n & 1 == 1 { born |= equal }
                            if survive >> n & 1 == 1 { stays |= equal }
                        }
                        next = ~alive & born | alive & stays
                    }
                    let target = UnsafeMutableRawPointer(dst + (r &* stride &+ j))
                    if let flags {
                        let changed = next ^ target.loadUnaligned(as: Vector.self)
                        diff |= changed
                        live |= next
                        flags[j / 4] |= UInt64(edges(changed, first: r == rows.lowerBound, last: r == rows.upperBound - 1).rawValue)
                        // As in the AVX2 kernel: equal words stay unwritten, pages unmapped.
                        if changed != Vector(repeating: 0) {
                            target.storeBytes(of: next, as: Vector.self)
                            changedRows |= 1 << UInt64(r - rows.lowerBound)
                        }
                    } else {
                        target.storeBytes(of: next, as: Vector.self)
                    }
                    (above, here) = (here, below)
                }
                if let flags {
                    var column: ColumnFlags = []
                    if diff != Vector(repeating: 0) { column.insert(.changed) }
                    if diff[0] & 1 != 0 { column.insert(.firstColumn) }
                    if diff[3] >> 63 != 0 { column.insert(.lastColumn) }
                    if live != Vector(repeating: 0) { column.insert(.alive) }
                    flags[j / 4] |= changedRows << 32 | UInt64(column.rawValue)
                }
            }
        }
    }
}
