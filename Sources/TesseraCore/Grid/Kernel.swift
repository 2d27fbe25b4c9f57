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
    /// beyond the left and right edges count as dead.
    public static func step(
        _ source: CellBuffer, into target: CellBuffer, rows: Range<Int>, rule: Rule,
        using implementation: Implementation = best
    ) {
        precondition(source.width == target.width && source.height == target.height)
        precondition(rows.lowerBound >= 1 && rows.upperBound <= source.height - 1)
        // Callers check with `checkSupported()` first; AVX2 code on a CPU without it is SIGILL.
        precondition(implementation.isSupported, "the avx2 kernel on a CPU without AVX2")
        guard !rows.isEmpty else { return }
        let src = UnsafePointer(source.row(0)), dst = target.row(0)
        if implementation == .avx2,
           tessera_step_rows_avx2(src, dst, source.stride, source.rowWords, rows.lowerBound,
                                  rows.upperBound, rule.birth, rule.survive) != 0 {
            return
        }
        portableStep(src, dst, stride: source.stride, words: source.rowWords, rows: rows, rule: rule)
    }

    private typealias Vector = SIMD4<UInt64>

    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt64>) -> Vector {
        UnsafeRawPointer(p).loadUnaligned(as: Vector.self)
    }

    /// West+centre+east and west+east of the four words at `p`, as 2-bit numbers, and the centre.
    @inline(__always)
    private static func horizontal(_ p: UnsafePointer<UInt64>)
        -> (three0: Vector, three1: Vector, two0: Vector, two1: Vector, centre: Vector) {
        let c = load(p)
        let west = c &<< 1 | load(p - 1) &>> 63
        let east = c &>> 1 | load(p + 1) &<< 63
        let two0 = west ^ east, two1 = west & east
        return (two0 ^ c, two1 | two0 & c, two0, two1, c)
    }

    /// The same algorithm as the C loop, four words at a time with Swift's SIMD types
    /// (SSE2 or NEON without any CPU flags).
    private static func portableStep(
        _ src: UnsafePointer<UInt64>, _ dst: UnsafeMutablePointer<UInt64>,
        stride: Int, words: Int, rows: Range<Int>, rule: Rule
    ) {
        let isLife = rule == .life
        let birth = rule.birth, survive = rule.survive
        // Bands of rows keep what one column walk touches in cache for the next column.
        for bandStart in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: 64) {
            let band = bandStart..<min(bandStart + 64, rows.upperBound)
            for j in Swift.stride(from: 0, to: words, by: 4) {
                var above = horizontal(src + ((band.lowerBound - 1) &* stride &+ j))
                var here = horizontal(src + (band.lowerBound &* stride &+ j))
                for r in band {
                    let below = horizontal(src + ((r &+ 1) &* stride &+ j))
                    // The eight-neighbour count n, by full adders.
                    let x0 = above.three0 ^ here.two0, x1 = above.three1 ^ here.two1
                    let n0 = x0 ^ below.three0
                    let k = above.three0 & here.two0 | x0 & below.three0
                    let p = x1 ^ below.three1
                    let q = above.three1 & here.two1 | x1 & below.three1
                    let n1 = p ^ k, carry = p & k
                    let alive = here.centre
                    let next: Vector
                    if isLife {
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
                    UnsafeMutableRawPointer(dst + (r &* stride &+ j)).storeBytes(of: next, as: Vector.self)
                    (above, here) = (here, below)
                }
            }
        }
    }
}
