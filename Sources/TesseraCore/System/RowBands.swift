import CTesseraKernel

/// A step of a board stepped whole (Generations, Larger than Life, rule trees), shared
/// among the cores by bands of rows: each band reads the whole source and writes only
/// its own rows of the target, so the bands need nothing from each other within a
/// generation.
package enum RowBands {
    /// Boards of fewer cells step alone: such a step takes tens of microseconds (2^18
    /// cells of Generations at 6 G cell-updates/s: 44 µs), of the order of waking a
    /// helper thread.
    static let leastCells = 1 << 18
    /// The same for a rule tree's step, which looks each cell up in the tree, some 5 ns
    /// a cell where it changes (Margolus/DLA's 75 thousand cells: 0.37 ms a generation).
    static let leastTreeCells = 1 << 14

    /// Runs `body` over all of `rows`, as bands on every core (`StepHelpers`) where
    /// `onEveryCore` and the board has `least` cells or more, else once on this thread.
    /// Whether `body` returned true for every band.
    static func step(rows: Int, width: Int, onEveryCore: Bool, least: Int = leastCells,
                     _ body: @escaping @Sendable (Range<Int>) -> Bool) -> Bool {
        guard onEveryCore, rows * width >= least, rows >= 128, let helpers = StepHelpers.shared else { return body(0..<rows) }
        // A few bands a thread, so that one that starts late or runs slower evens out;
        // whole 64-row blocks, as Generations steps them.
        let band = max(64, rows / (4 * (helpers.count + 1)) / 64 * 64)
        return helpers.share(rows: rows, band: band, body)
    }
}

/// The memory a step's bands share: every band reads the source words and the rule, and
/// writes only its own rows of the target words, within the call that lent them.
/// Hence `Sendable`.
struct BandMemory<Rule>: @unchecked Sendable {
    let rule: UnsafePointer<Rule>
    let sources: [UnsafePointer<UInt64>?]
    let targets: [UnsafeMutablePointer<UInt64>?]
    /// A rule tree's step: the cells that changed the generation before (read), and
    /// those that change in this one (written, a band's rows each).
    var changes: UnsafePointer<UInt64>? = nil, changed: UnsafeMutablePointer<UInt64>? = nil
}
