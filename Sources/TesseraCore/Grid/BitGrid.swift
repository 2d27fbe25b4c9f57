/// A rectangle of cells at 1 bit per cell, as a value: snapshots, patterns and halo
/// strips are all `BitGrid`s. Bit `x % 64` of word `y * wordsPerRow + x / 64` is the
/// cell at column x, row y; bits past `width` in a row's last word are always zero.
public struct BitGrid: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let wordsPerRow: Int
    public private(set) var words: [UInt64]

    public init(width: Int, height: Int) {
        precondition(width >= 0 && height >= 0)
        self.width = width
        self.height = height
        wordsPerRow = (width + 63) / 64
        words = Array(repeating: 0, count: wordsPerRow * height)
    }

    /// Dots lit where `bytes` (a byte a dot, in rows of `width`) are not 0: a frame in
    /// states as a frame of dots.
    public init(litWhereNonZero bytes: [UInt8], width: Int, height: Int) {
        self.init(width: width, height: height)
        for (i, byte) in bytes.enumerated() where byte != 0 { self[i % width, i / width] = true }
    }

    /// Wraps row-major words; bits past `width` are cleared.
    public init(width: Int, height: Int, words: [UInt64]) {
        precondition(width >= 0 && height >= 0)
        self.width = width
        self.height = height
        wordsPerRow = (width + 63) / 64
        precondition(words.count == wordsPerRow * height, "word count does not match the size")
        self.words = words
        clearPadding()
    }

    /// The words, to write in place: bits past `width` must stay zero.
    package mutating func withUnsafeMutableWords<R>(_ body: (UnsafeMutableBufferPointer<UInt64>) throws -> R) rethrows -> R {
        try words.withUnsafeMutableBufferPointer { try body($0) }
    }

    public subscript(x: Int, y: Int) -> Bool {
        get { words[y * wordsPerRow + x >> 6] >> UInt64(x & 63) & 1 == 1 }
        set {
            let bit = UInt64(1) << UInt64(x & 63)
            if newValue { words[y * wordsPerRow + x >> 6] |= bit } else { words[y * wordsPerRow + x >> 6] &= ~bit }
        }
    }

    /// Brings cells `x..<x+count` of row `y` to life, a word at a time.
    public mutating func setRun(y: Int, x: Int, count: Int) {
        precondition(x >= 0 && count >= 0 && x + count <= width && y >= 0 && y < height)
        var x = x
        let end = x + count
        let base = y * wordsPerRow
        while x < end {
            let bits = min(64 - x & 63, end - x)
            let mask = BitCopy.bits(from: x & 63, to: x & 63 + bits)
            words[base + x >> 6] |= mask
            x += bits
        }
    }

    public var population: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// Cells `x..<x+count` of row `y` (count at most 64) as the low bits of a word, bit i
    /// the cell at column x+i; cells outside the grid read as dead.
    public func bits(x: Int, y: Int, count: Int) -> UInt64 {
        let start = max(x, 0), end = min(x + count, width)
        guard y >= 0, y < height, start < end else { return 0 }
        return words.withUnsafeBufferPointer { p in
            BitCopy.read(p.baseAddress! + y * wordsPerRow, bit: start, count: end - start) << UInt64(start - x)
        }
    }

    /// Brings to life the cells of row `y` from column x on whose bits are set in the low
    /// `count` bits of `value` (count at most 64); cells outside the grid are dropped.
    public mutating func insertBits(_ value: UInt64, count: Int, x: Int, y: Int) {
        let start = max(x, 0), end = min(x + count, width)
        guard y >= 0, y < height, start < end else { return }
        let kept = value >> UInt64(start - x) & BitCopy.bits(from: 0, to: end - start)
        let base = y * wordsPerRow + start >> 6, shift = UInt64(start & 63)
        words[base] |= kept << shift
        if shift != 0, start & 63 + (end - start) > 64 { words[base + 1] |= kept >> (64 - shift) }
    }

    /// Whether every cell of the `width`×`height` rectangle at (x, y) is dead.
    public func isEmpty(x: Int, y: Int, width: Int, height: Int) -> Bool {
        words.withUnsafeBufferPointer { p in
            for row in y..<(y + height) {
                var done = 0
                while done < width {
                    let n = min(64, width - done)
                    if BitCopy.read(p.baseAddress! + row * wordsPerRow, bit: x + done, count: n) != 0 { return false }
                    done += n
                }
            }
            return true
        }
    }

    /// The smallest rectangle holding every live cell; nil when none is.
    public var liveBounds: TileRect? { liveBounds(in: TileRect(x: 0, y: 0, width: width, height: height)) }

    /// The smallest rectangle holding every live cell of `area` (within the grid), in
    /// the grid's coordinates; nil when none is alive there.
    public func liveBounds(in area: TileRect) -> TileRect? {
        words.withUnsafeBufferPointer { p in
            BitCopy.liveBounds(x: area.x, width: area.width, rows: area.y..<(area.y + area.height)) { p.baseAddress! + $0 * wordsPerRow }
        }.map { TileRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }

    /// The cells of row `y`, as words.
    public func row(_ y: Int) -> ArraySlice<UInt64> {
        words[y * wordsPerRow..<(y + 1) * wordsPerRow]
    }

    /// Copies `self` into `target` with its top-left at (x, y); cells past the target's edges are dropped.
    public func copy(into target: inout BitGrid, atX x: Int, y: Int) {
        let x0 = max(0, -x), x1 = min(width, target.width - x)
        let y0 = max(0, -y), y1 = min(height, target.height - y)
        guard x0 < x1, y0 < y1 else { return }
        // Both buffers taken once, not a row at a time: a tall, narrow strip (a tile's west
        // or east halo) is thousands of rows of a few bits.
        let (stride, targetStride) = (wordsPerRow, target.wordsPerRow)
        words.withUnsafeBufferPointer { src in
            target.words.withUnsafeMutableBufferPointer { dst in
                for row in y0..<y1 {
                    BitCopy.copy(from: src.baseAddress! + row * stride, bit: x0, to: dst.baseAddress! + (row + y) * targetStride,
                                 bit: x0 + x, count: x1 - x0)
                }
            }
        }
    }

    /// The dots of `view` over these cells, `(left, top)` being the view's top-left in
    /// them: a dot is lit where a cell under it lives.
    public func dots(in view: Viewport, left: Int, top: Int) -> BitGrid {
        var dots = BitGrid(width: view.width, height: view.height)
        forEachLitDot(in: view, left: left, top: top) { column, row, _ in dots[column, row] = true }
        return dots
    }

    /// Each dot of `view` (its corner at (`left`, `top`) of this grid) with a live cell
    /// under it: its column, row, and the cells under it within the grid.
    public func forEachLitDot(in view: Viewport, left: Int, top: Int, _ body: (Int, Int, TileRect) -> Void) {
        let z = view.cellsPerDot
        for row in 0..<view.height {
            let y0 = max(0, top + row * z), y1 = min(height, top + (row + 1) * z)
            guard y0 < y1 else { continue }
            for column in 0..<view.width {
                let x0 = max(0, left + column * z), x1 = min(width, left + (column + 1) * z)
                if x0 < x1, !isEmpty(x: x0, y: y0, width: x1 - x0, height: y1 - y0) {
                    body(column, row, TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0))
                }
            }
        }
    }

    /// Each live cell's column in row `y`, west to east, a word at a time (a thin
    /// machine's box is mostly empty words).
    public func forEachLive(inRow y: Int, _ body: (Int) throws -> Void) rethrows {
        for word in 0..<wordsPerRow {
            var bits = words[y * wordsPerRow + word]
            while bits != 0 {
                try body(64 * word + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
    }

    /// Clears the cells that are set in `other` (the same size).
    public mutating func subtract(_ other: BitGrid) {
        precondition(other.width == width && other.height == height)
        other.words.withUnsafeBufferPointer { theirs in
            words.withUnsafeMutableBufferPointer { ours in
                for i in ours.indices { ours[i] &= ~theirs[i] }
            }
        }
    }

    /// Makes every cell alive that is alive in `other` (of the same size).
    public mutating func formUnion(_ other: BitGrid) {
        precondition(width == other.width && height == other.height)
        other.words.withUnsafeBufferPointer { theirs in
            words.withUnsafeMutableBufferPointer { ours in
                for i in ours.indices { ours[i] |= theirs[i] }
            }
        }
    }

    /// The cells under `mask`'s live cells, placed with its top-left at (x, y), set as
    /// `cells` (the same size as `mask`; all dead where nil) has them; the rest as they
    /// are, and what lies past the edges dropped. In one pass over the rows, 64 cells at
    /// a time, where cropping, merging and copying back took three and a grid.
    package mutating func overwrite(_ cells: BitGrid?, under mask: BitGrid, atX x: Int, y: Int) {
        precondition(cells.map { $0.width == mask.width && $0.height == mask.height } ?? true)
        let x0 = max(0, -x), x1 = min(mask.width, width - x), y0 = max(0, -y), y1 = min(mask.height, height - y)
        guard x0 < x1, y0 < y1 else { return }
        let (stride, maskStride) = (wordsPerRow, mask.wordsPerRow)
        let source = cells?.words ?? []
        mask.words.withUnsafeBufferPointer { masks in
            source.withUnsafeBufferPointer { values in
                words.withUnsafeMutableBufferPointer { target in
                    for row in y0..<y1 {
                        let m = masks.baseAddress! + row * maskStride, t = target.baseAddress! + (row + y) * stride
                        var done = x0
                        while done < x1 {
                            let n = min(64, x1 - done), under = BitCopy.read(m, bit: done, count: n)
                            if under != 0 {
                                let value = values.isEmpty ? 0 : BitCopy.read(values.baseAddress! + row * maskStride, bit: done, count: n)
                                let old = BitCopy.read(t, bit: done + x, count: n)
                                BitCopy.write(t, bit: done + x, count: n, value: old & ~under | value & under)
                            }
                            done += n
                        }
                    }
                }
            }
        }
    }

    /// Makes alive every cell under a live cell of `other` placed with its top-left at (x, y).
    public mutating func formUnion(_ other: BitGrid, atX x: Int, y: Int) { overwrite(other, under: other, atX: x, y: y) }

    /// The `width`×`height` rectangle whose top-left is (x, y).
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> BitGrid {
        // The whole grid: itself, shared until written (a board-sized pattern laid on a
        // tile whole was copied, 640 KB of zeros and cells for Golly's largest gun).
        if x == 0 && y == 0 && width == self.width && height == self.height { return self }
        var result = BitGrid(width: width, height: height)
        copy(into: &result, atX: -x, y: -y)
        return result
    }

    private mutating func clearPadding() {
        guard width & 63 != 0 else { return }
        let mask = (UInt64(1) << UInt64(width & 63)) - 1
        for y in 0..<height { words[(y + 1) * wordsPerRow - 1] &= mask }
    }
}

/// Runs of bits in word arrays at any bit offsets: copied, cleared and scanned.
package enum BitCopy {
    /// A word with bits `from..<to` set (0 ≤ from ≤ to ≤ 64).
    @inline(__always)
    package static func bits(from: Int, to: Int) -> UInt64 {
        to - from == 64 ? ~0 : ((1 << UInt64(to - from)) - 1) << UInt64(from)
    }

    /// The smallest rectangle holding every live cell of columns `x..<x+width` of
    /// `rows`, each row's words at `row(y)`; nil when none is alive.
    package static func liveBounds(x: Int, width: Int, rows: Range<Int>,
                                   row: (Int) -> UnsafePointer<UInt64>) -> (x: Int, y: Int, width: Int, height: Int)? {
        liveBounds(x: x, width: width, rows: rows) { row($0)[$1] }
    }

    /// The same, the words read through `word(y, index)` (a row's word `index`), as
    /// a grid of several planes ors them. Where the words between the first and last
    /// are many (a board stepped whole, whose box is found every generation), the edges
    /// are looked for from outside in, each search ending at the first live cell that
    /// settles it: a busy board's box costs a few words, not all of them.
    @inline(__always)
    package static func liveBounds(x: Int, width: Int, rows: Range<Int>,
                                   word: (_ y: Int, _ index: Int) -> UInt64) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard width > 0, !rows.isEmpty else { return nil }
        let first = x >> 6, last = (x + width - 1) >> 6
        let firstMask = ~UInt64(0) << UInt64(x & 63), lastMask = ~UInt64(0) >> UInt64(63 - ((x + width - 1) & 63))
        if first == last {
            // One word a row (a tile of the sparse map): every row read once.
            var any: UInt64 = 0, top = -1, bottom = -1
            for r in rows {
                let cells = word(r, first) & firstMask & lastMask
                if cells != 0 {
                    if top < 0 { top = r }
                    bottom = r
                    any |= cells
                }
            }
            guard top >= 0 else { return nil }
            let left = first * 64 + any.trailingZeroBitCount, right = first * 64 + 63 - any.leadingZeroBitCount
            return (left, top, right - left + 1, bottom - top + 1)
        }
        @inline(__always) func cells(_ r: Int, _ i: Int) -> UInt64 {
            i == first ? word(r, i) & firstMask : i == last ? word(r, i) & lastMask : word(r, i)
        }
        @inline(__always) func isLive(_ r: Int) -> Bool {
            for i in first...last where cells(r, i) != 0 { return true }
            return false
        }
        guard let top = rows.first(where: isLive), let bottom = rows.reversed().first(where: isLive) else { return nil }
        // The outermost word, from one side, with a live cell in the rows between, and
        // its cells over those rows, or'ed until a row has the word's outermost cell of
        // the area (`edge`), which nothing further can move.
        @inline(__always) func outermost(_ words: some Sequence<Int>, edge: (Int) -> UInt64) -> (index: Int, cells: UInt64) {
            for i in words {
                var any: UInt64 = 0
                for r in top...bottom {
                    any |= cells(r, i)
                    if any & edge(i) != 0 { break }
                }
                if any != 0 { return (i, any) }
            }
            preconditionFailure("row \(top) has a live cell in no word")
        }
        let west = outermost(first...last) { $0 == first ? firstMask & (0 &- firstMask) : 1 }
        let east = outermost((first...last).reversed()) { $0 == last ? lastMask ^ (lastMask >> 1) : UInt64(1) << 63 }
        let left = west.index * 64 + west.cells.trailingZeroBitCount, right = east.index * 64 + 63 - east.cells.leadingZeroBitCount
        return (left, top, right - left + 1, bottom - top + 1)
    }

    /// Reads up to 64 bits starting at bit `bit`; the word after the last one read must exist
    /// unless the bits end inside the current word.
    @inline(__always)
    static func read(_ p: UnsafePointer<UInt64>, bit: Int, count: Int) -> UInt64 {
        let word = bit >> 6, shift = bit & 63
        var value = p[word] >> UInt64(shift)
        if shift != 0 && shift + count > 64 { value |= p[word + 1] << UInt64(64 - shift) }
        return value & bits(from: 0, to: count)
    }

    /// Stores only words that change: writing dead cells over memory never written keeps
    /// its pages unmapped (a `CellBuffer` is mostly such pages on a sparse board).
    @inline(__always)
    static func write(_ p: UnsafeMutablePointer<UInt64>, bit: Int, count: Int, value: UInt64) {
        let word = bit >> 6, shift = bit & 63
        let mask = bits(from: 0, to: count)
        let old = p[word], new = old & ~(mask << UInt64(shift)) | (value & mask) << UInt64(shift)
        if new != old { p[word] = new }
        if shift != 0 && shift + count > 64 {
            let rest = UInt64(64 - shift)
            let old = p[word + 1], new = old & ~(mask >> rest) | (value & mask) >> rest
            if new != old { p[word + 1] = new }
        }
    }

    /// Copies `count` bits from `source` at bit `sourceBit` to `target` at bit `targetBit`.
    package static func copy(
        from source: UnsafePointer<UInt64>, bit sourceBit: Int,
        to target: UnsafeMutablePointer<UInt64>, bit targetBit: Int, count: Int
    ) {
        var done = 0
        if targetBit & 63 == 0 {
            // Whole target words (every extraction, and every write at a depth of 64 and
            // up): no masking, and a plain load where the source is word-aligned too.
            let t = target + targetBit >> 6
            if sourceBit & 63 == 0 {
                let s = source + sourceBit >> 6
                for i in 0..<(count >> 6) where t[i] != s[i] { t[i] = s[i] }
            } else {
                let s = source + sourceBit >> 6, shift = UInt64(sourceBit & 63)
                for i in 0..<(count >> 6) {
                    let value = s[i] >> shift | s[i + 1] << (64 - shift)
                    if t[i] != value { t[i] = value }
                }
            }
            done = count & ~63
        }
        while done < count {
            let n = min(64, count - done)
            write(target, bit: targetBit + done, count: n,
                  value: read(source, bit: sourceBit + done, count: n))
            done += n
        }
    }

    /// Clears `count` bits of `target` from bit `bit`.
    ///
    /// Whole words are tested and zeroed where they are not already: a plane's tiles
    /// clear their dead margins each generation (two words a row a side at a halo of
    /// 128), which bit by bit cost an 8192² soup's run a fifth of its time.
    package static func clear(_ target: UnsafeMutablePointer<UInt64>, bit: Int, count: Int) {
        let end = bit + count
        var at = bit
        if at & 63 != 0, at < end {
            let head = min(64 - (at & 63), end - at)
            write(target, bit: at, count: head, value: 0)
            at += head
        }
        let first = at >> 6, words = (end - at) >> 6
        for i in first..<(first + words) where target[i] != 0 { target[i] = 0 }
        at += words << 6
        if at < end { write(target, bit: at, count: end - at, value: 0) }
    }
}
