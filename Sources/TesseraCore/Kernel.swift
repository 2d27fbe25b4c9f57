import CTesseraKernel

/// The Life step: bit-sliced neighbour counts, 64 cells per word.
///
/// Each row's west+centre+east sums are computed once as 2-bit numbers; three stacked
/// rows are added with full adders into a 4-bit total (centre included), and the rule
/// is applied as boolean logic on that total. On AVX2 CPUs the inner loop runs in C
/// (`CTesseraKernel`); elsewhere this file's portable Swift loop does the same work.
public enum Kernel {
    public enum Implementation: String, Sendable, CaseIterable {
        case avx2
        case portable
    }

    /// The fastest implementation this CPU runs.
    public static let best: Implementation = tessera_cpu_has_avx2() != 0 ? .avx2 : .portable

    /// Steps rows `rows` of `source` into `target` (same size). Rows `rows.lowerBound - 1`
    /// and `rows.upperBound` are read, so `rows` must lie inside `1..<height-1`. Cells
    /// beyond the left and right edges count as dead.
    public static func step(
        _ source: CellBuffer, into target: CellBuffer, rows: Range<Int>, rule: Rule,
        using implementation: Implementation = best
    ) {
        precondition(source.width == target.width && source.height == target.height)
        precondition(rows.lowerBound >= 1 && rows.upperBound <= source.height - 1)
        guard !rows.isEmpty else { return }
        let src = UnsafePointer(source.row(0)), dst = target.row(0)
        if implementation == .avx2,
           tessera_step_rows_avx2(src, dst, source.stride, source.rowWords, rows.lowerBound,
                                  rows.upperBound, rule.birth, rule.survive) != 0 {
            return
        }
        portableStep(src, dst, stride: source.stride, words: source.rowWords, rows: rows, rule: rule)
    }

    @inline(__always)
    private static func majority(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
        a & b | c & (a ^ b)
    }

    private static func portableStep(
        _ src: UnsafePointer<UInt64>, _ dst: UnsafeMutablePointer<UInt64>,
        stride: Int, words: Int, rows: Range<Int>, rule: Rule
    ) {
        let isLife = rule == .life
        let birth = rule.birth, survive = rule.survive
        for j in 0..<words {
            @inline(__always)
            func horizontal(_ r: Int) -> (UInt64, UInt64, UInt64) {
                let p = src + r * stride + j
                let c = p[0]
                let west = c << 1 | p[-1] >> 63
                let east = c >> 1 | p[1] << 63
                let we = west ^ east
                return (we ^ c, west & east | we & c, c)
            }
            var (a0, a1, _) = horizontal(rows.lowerBound - 1)
            var (b0, b1, alive) = horizontal(rows.lowerBound)
            for r in rows {
                let (c0, c1, below) = horizontal(r + 1)
                let t0 = a0 ^ b0 ^ c0, k = majority(a0, b0, c0)
                let p = a1 ^ b1 ^ c1, q = majority(a1, b1, c1)
                let t1 = p ^ k, carry = p & k
                let t2 = q ^ carry, t3 = q & carry
                let next: UInt64
                if isLife {
                    next = t0 & t1 & ~(t2 | t3) | alive & t2 & ~(t0 | t1 | t3)
                } else {
                    var born: UInt64 = 0, stays: UInt64 = 0
                    for total in 0...9 {
                        let equal = (total & 1 != 0 ? t0 : ~t0) & (total & 2 != 0 ? t1 : ~t1)
                            & (total & 4 != 0 ? t2 : ~t2) & (total & 8 != 0 ? t3 : ~t3)
                        if birth >> total & 1 == 1 { born |= equal }
                        if total > 0 && survive >> (total - 1) & 1 == 1 { stays |= equal }
                    }
                    next = ~alive & born | alive & stays
                }
                dst[r * stride + j] = next
                (a0, a1, b0, b1, alive) = (b0, b1, c0, c1, below)
            }
        }
    }
}
