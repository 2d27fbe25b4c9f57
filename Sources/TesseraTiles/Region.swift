import TesseraCore

/// A rectangle in a tile's buffer coordinates.
struct Box {
    var x: Int, y: Int, width: Int, height: Int

    /// The smallest box holding both.
    func union(_ other: Box) -> Box {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return Box(x: x0, y: y0, width: max(x + width, other.x + other.width) - x0,
                   height: max(y + height, other.y + other.height) - y0)
    }

    func intersection(_ other: Box) -> Box? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return x0 < x1 && y0 < y1 ? Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

extension Box {
    /// In the buffer of a tile of `rect` with `margin` cells of halo on each side: the
    /// halo on `side`, or (not `halo`) the tile's own edge cells that neighbour's halo takes.
    static func side(_ side: Direction, of rect: TileRect, margin: Int, halo: Bool) -> Box {
        func span(_ component: Int, length: Int) -> Range<Int> {
            switch component {
            case -1: return halo ? 0..<margin : margin..<(2 * margin)
            case 1: return halo ? (margin + length)..<(length + 2 * margin) : length..<(length + margin)
            default: return margin..<(margin + length)
            }
        }
        let xs = span(side.dx, length: rect.width), ys = span(side.dy, length: rect.height)
        return Box(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
    }

    /// In such a buffer, the cells beyond a plane board's edges on `deadSides`, kept dead
    /// (reaching past the buffer, which clipping cuts): all of them, or the `depth` cells
    /// next to each edge.
    static func beyond(_ deadSides: Set<Direction>, of rect: TileRect, margin k: Int, depth: Int? = nil) -> [Box] {
        let wide = Int.max / 4, d = min(depth ?? k, k)
        var dead: [Box] = []
        if deadSides.contains(.north) { dead.append(Box(x: 0, y: k - d, width: wide, height: d)) }
        if deadSides.contains(.south) { dead.append(Box(x: 0, y: k + rect.height, width: wide, height: d)) }
        if deadSides.contains(.west) { dead.append(Box(x: k - d, y: 0, width: d, height: wide)) }
        if deadSides.contains(.east) { dead.append(Box(x: k + rect.width, y: 0, width: d, height: wide)) }
        return dead
    }
}

/// Rows `first..<end`, empty where they cross.
func rowSpan(_ first: Int, _ end: Int) -> Range<Int> { first..<max(first, end) }

/// A double-buffered part of a tile's cells, placed at `origin` in the tile's buffer
/// coordinates, that steps itself with the kernel. Its edges see dead cells, so what
/// it computes goes wrong one cell further in from each edge every generation.
final class Region {
    let origin: (x: Int, y: Int)
    private(set) var current: CellBuffer
    private(set) var next: CellBuffer

    init(x: Int, y: Int, width: Int, height: Int) {
        origin = (x, y)
        current = CellBuffer(width: width, height: height)
        next = CellBuffer(width: width, height: height)
    }

    /// Its rectangle, padding bits included, in tile buffer coordinates.
    var box: Box { Box(x: origin.x, y: origin.y, width: current.rowWords * 64, height: current.height) }

    /// Advances `generations` from generation `start` by `rules`, computing at the g-th
    /// only rows `rows(g)`, and kills the cells of `dead` (tile buffer coordinates) after each.
    ///
    /// With `blocking`, the generations go down the region together as a wavefront
    /// (temporal blocking): a band of rows advances every generation while it is in
    /// cache, each generation a row behind the one before, so a region larger than the
    /// cache is read from memory once per call instead of once per generation. Two
    /// buffers suffice: a row of generation g+1 overwrites generation g−1's row only
    /// after every row of generation g that reads it is done. This needs the rows to
    /// shrink by at least one at each end every generation, as a halo round's do.
    ///
    /// With `across`, only those words of each row are stepped, and a row's cells wrap
    /// from the last of them to the first (a torus one tile across): the words either
    /// side are set to the row's own ends before each step reads them, and whatever else
    /// lies beyond them is neither read nor kept.
    func step(_ generations: Int, from start: UInt64, rules: Rule.Steps, using kernel: Kernel.Implementation, dead: [Box],
              blocking: Bool = false, band: Int? = nil, across: Range<Int>? = nil, rows: (Int) -> Range<Int>) {
        func step(_ source: CellBuffer, into target: CellBuffer, rows: Range<Int>, generation: UInt64) {
            if let across { source.wrapAcross(rows: (rows.lowerBound - 1)..<(rows.upperBound + 1), words: across) }
            Kernel.step(source, into: target, rows: rows, words: across, rule: rules.from(generation), using: kernel)
        }
        let wanted = (0..<generations).map { rows($0).clamped(to: 1..<(current.height - 1)) }
        let shrinks = zip(wanted, wanted.dropFirst()).allSatisfy {
            $1.isEmpty || ($1.lowerBound > $0.lowerBound && $1.upperBound < $0.upperBound)
        }
        guard blocking, generations > 1, shrinks else {
            for (g, rows) in wanted.enumerated() {
                step(current, into: next, rows: rows, generation: start + UInt64(g))
                swap(&current, &next)
                for box in dead { clear(box) }
            }
            return
        }
        let buffers = [current, next]
        var done = wanted.map(\.lowerBound)
        let band = band ?? Self.bandRows(rowBytes: current.stride * 8, generations: generations)
        var front = done[0]
        while zip(done, wanted).contains(where: { $0 < $1.upperBound }) {
            front += band
            for g in 0..<generations {
                let end = min(wanted[g].upperBound, front - g)
                guard end > done[g] else { continue }
                let target = buffers[(g + 1) % 2]
                step(buffers[g % 2], into: target, rows: done[g]..<end, generation: start + UInt64(g))
                let stepped = Box(x: origin.x, y: origin.y + done[g], width: box.width, height: end - done[g])
                for box in dead {
                    if let rows = box.intersection(stepped) { clear(rows, in: target) }
                }
                done[g] = end
            }
        }
        if generations % 2 == 1 { swap(&current, &next) }
        for box in dead { clear(box) }
    }

    /// Advances `generations` by Larger than Life's `rule`, every cell of the region each
    /// time, dead beyond its edges, and kills the cells of `dead` after each.
    func step(_ generations: Int, by rule: LargerThanLife, using kernel: Kernel.Implementation, dead: [Box]) throws {
        for _ in 0..<generations {
            try rule.step(current, into: next, using: kernel)
            swap(&current, &next)
            for box in dead { clear(box) }
        }
    }

    /// Rows a wavefront advances at a time: what one band of every generation touches
    /// in both buffers should stay within about half of a core's L2 cache.
    static func bandRows(rowBytes: Int, generations: Int) -> Int {
        max(8, (512 << 10) / (2 * rowBytes) - generations)
    }

    /// Kills the cells of `target` (tile buffer coordinates) in `buffer`, by default the current one.
    func clear(_ target: Box, in buffer: CellBuffer? = nil) {
        guard let b = target.intersection(box) else { return }
        (buffer ?? current).clear(x: b.x - origin.x, y: b.y - origin.y, width: b.width, height: b.height)
    }

    /// Writes `cells` with its top-left at (x, y) in tile buffer coordinates, clipped to
    /// this region, into the current buffer (or the next one, with `intoNext`).
    func write(_ cells: BitGrid, atX x: Int, y: Int, intoNext: Bool = false) {
        let own = Box(x: origin.x, y: origin.y, width: current.width, height: current.height)
        guard let b = Box(x: x, y: y, width: cells.width, height: cells.height).intersection(own) else { return }
        let part = b.width == cells.width && b.height == cells.height
            ? cells : cells.cropped(x: b.x - x, y: b.y - y, width: b.width, height: b.height)
        (intoNext ? next : current).insert(part, atX: b.x - origin.x, y: b.y - origin.y)
    }

    /// The cells of `area` (tile buffer coordinates) in the current buffer, or the next one.
    func cells(_ area: Box, ofNext: Bool = false) -> BitGrid {
        (ofNext ? next : current).extract(x: area.x - origin.x, y: area.y - origin.y, width: area.width, height: area.height)
    }

    /// Copies `area` (tile buffer coordinates) from `source`'s buffers into this region's:
    /// the current cells, and with `both` the previous generation's too.
    func copy(_ area: Box, from source: Region, both: Bool = false) {
        write(source.cells(area), atX: area.x, y: area.y)
        if both { write(source.cells(area, ofNext: true), atX: area.x, y: area.y, intoNext: true) }
    }

    /// Makes the next buffer current: after a generation stepped into it.
    func swapBuffers() { swap(&current, &next) }

    /// Memory its two buffers hold (see `CellBuffer.residentBytes`).
    var residentBytes: Int? {
        guard let a = current.residentBytes, let b = next.residentBytes else { return nil }
        return a + b
    }

    /// Sets every cell of both buffers to dead.
    func clearAll() {
        current.clearAll()
        next.clearAll()
    }
}

