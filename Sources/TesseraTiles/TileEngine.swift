import TesseraCore

/// A rectangle in a tile's buffer coordinates.
struct Box {
    var x: Int, y: Int, width: Int, height: Int

    func intersection(_ other: Box) -> Box? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return x0 < x1 && y0 < y1 ? Box(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// Rows `first..<end`, empty where they cross.
private func rowSpan(_ first: Int, _ end: Int) -> Range<Int> { first..<max(first, end) }

/// A double-buffered part of a tile's cells, placed at `origin` in the tile's buffer
/// coordinates, that steps itself with the kernel. Its edges see dead cells, so what
/// it computes goes wrong one cell further in from each edge every generation.
final class Region {
    let origin: (x: Int, y: Int)
    private(set) var current: CellBuffer
    private var next: CellBuffer

    init(x: Int, y: Int, width: Int, height: Int) {
        origin = (x, y)
        current = CellBuffer(width: width, height: height)
        next = CellBuffer(width: width, height: height)
    }

    /// Its rectangle, padding bits included, in tile buffer coordinates.
    var box: Box { Box(x: origin.x, y: origin.y, width: current.rowWords * 64, height: current.height) }

    /// Advances `generations`, computing at generation g only rows `rows(g)`, and kills
    /// the cells of `dead` (tile buffer coordinates) after each generation.
    ///
    /// With `blocking`, the generations go down the region together as a wavefront
    /// (temporal blocking): a band of rows advances every generation while it is in
    /// cache, each generation a row behind the one before, so a region larger than the
    /// cache is read from memory once per call instead of once per generation. Two
    /// buffers suffice: a row of generation g+1 overwrites generation g−1's row only
    /// after every row of generation g that reads it is done. This needs the rows to
    /// shrink by at least one at each end every generation, as a halo round's do.
    func step(_ generations: Int, rule: Rule, using kernel: Kernel.Implementation, dead: [Box],
              blocking: Bool = false, band: Int? = nil, rows: (Int) -> Range<Int>) {
        let wanted = (0..<generations).map { rows($0).clamped(to: 1..<(current.height - 1)) }
        let shrinks = zip(wanted, wanted.dropFirst()).allSatisfy {
            $1.isEmpty || ($1.lowerBound > $0.lowerBound && $1.upperBound < $0.upperBound)
        }
        guard blocking, generations > 1, shrinks else {
            for rows in wanted {
                Kernel.step(current, into: next, rows: rows, rule: rule, using: kernel)
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
                Kernel.step(buffers[g % 2], into: target, rows: done[g]..<end, rule: rule, using: kernel)
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

    /// Writes `cells` with its top-left at (x, y) in tile buffer coordinates, clipped to this region.
    func write(_ cells: BitGrid, atX x: Int, y: Int) {
        let own = Box(x: origin.x, y: origin.y, width: current.width, height: current.height)
        guard let b = Box(x: x, y: y, width: cells.width, height: cells.height).intersection(own) else { return }
        let part = b.width == cells.width && b.height == cells.height
            ? cells : cells.cropped(x: b.x - x, y: b.y - y, width: b.width, height: b.height)
        current.insert(part, atX: b.x - origin.x, y: b.y - origin.y)
    }

    /// Copies `area` (tile buffer coordinates) from `source`'s current cells into this region's.
    func copy(_ area: Box, from source: Region) {
        let grid = source.current.extract(x: area.x - source.origin.x, y: area.y - source.origin.y,
                                          width: area.width, height: area.height)
        write(grid, atX: area.x, y: area.y)
    }
}

/// The cells of one tile plus a halo `depth` cells deep on every side. Each exchange
/// fills the halo from the neighbours; the tile can then advance up to `depth`
/// generations alone, because Life information moves one cell per generation.
///
/// Halos that may arrive late (`lateSides`) need not hold the tile up: `beginRound`
/// copies the border frames on those sides (halo plus 2·depth interior cells) and
/// advances everything else, the bulk of the work; `finishRound` steps the frames once
/// the late halos are in and copies their middle band back. A frame on the north or
/// south runs the whole width, so it also covers the corners.
///
/// Owned by exactly one `TileActor`; not `Sendable`.
final class TileEngine {
    let rect: TileRect
    let depth: Int
    let rule: Rule
    let implementation: Kernel.Implementation
    /// Whether a round's generations go down the main region as one wavefront.
    let blocking: Bool
    private let main: Region
    /// Border frames for late halos, each with the band of the interior it computes.
    private var frames: [(region: Region, band: Box)] = []
    /// Whether the frames compute the top and bottom interior bands, so the main region skips them.
    private var skipTop = false, skipBottom = false
    private var lateSides: Set<Direction> = []
    /// Cells beyond a plane board's edges, kept dead every generation.
    private let dead: [Box]
    private var width: Int { rect.width + 2 * depth }
    private var height: Int { rect.height + 2 * depth }

    init(rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>, cells: BitGrid,
         implementation: Kernel.Implementation, blocking: Bool? = nil) {
        self.rect = rect
        self.blocking = blocking ?? Self.blockingPays(rect: rect, depth: depth)
        self.depth = depth
        self.rule = rule
        self.implementation = implementation
        let (w, h, k) = (rect.width + 2 * depth, rect.height + 2 * depth, depth)
        main = Region(x: 0, y: 0, width: w, height: h)
        main.write(cells, atX: k, y: k)
        let wide = Int.max / 4
        var dead: [Box] = []
        if deadSides.contains(.north) { dead.append(Box(x: 0, y: 0, width: wide, height: k)) }
        if deadSides.contains(.south) { dead.append(Box(x: 0, y: k + rect.height, width: wide, height: k)) }
        if deadSides.contains(.west) { dead.append(Box(x: 0, y: 0, width: k, height: wide)) }
        if deadSides.contains(.east) { dead.append(Box(x: k + rect.width, y: 0, width: wide, height: wide)) }
        self.dead = dead
    }

    /// Temporal blocking pays when the tile does not fit in a core's L2 cache and a
    /// round has generations enough to share each trip to memory.
    static func blockingPays(rect: TileRect, depth: Int) -> Bool {
        depth >= 4 && (rect.width + 2 * depth) * (rect.height + 2 * depth) / 8 > 1 << 20
    }

    /// Overlap pays when the frames are a small part of the tile.
    static func overlapPays(rect: TileRect, depth: Int) -> Bool {
        min(rect.width, rect.height) >= 16 * depth
    }

    static func byteCount(rect: TileRect, depth: Int) -> Int {
        let (w, h, k) = (rect.width + 2 * depth, rect.height + 2 * depth, depth)
        let frames = overlapPays(rect: rect, depth: depth)
            ? 2 * (CellBuffer.byteCount(width: w, height: 3 * k) + CellBuffer.byteCount(width: 3 * k, height: h)) : 0
        return 2 * (CellBuffer.byteCount(width: w, height: h) + frames)
    }

    /// Makes halos on `lateSides` go into border frames, filled after `beginRound`.
    func expectLate(_ lateSides: Set<Direction>) {
        let (w, h, k) = (width, height, depth)
        let north = !lateSides.isDisjoint(with: [.north, .northEast, .northWest])
        let south = !lateSides.isDisjoint(with: [.south, .southEast, .southWest])
        var frames: [(Region, Box)] = []
        if north {
            frames.append((Region(x: 0, y: 0, width: w, height: 3 * k), Box(x: k, y: k, width: rect.width, height: k)))
        }
        if south {
            frames.append((Region(x: 0, y: h - 3 * k, width: w, height: 3 * k),
                           Box(x: k, y: rect.height, width: rect.width, height: k)))
        }
        if lateSides.contains(.west) {
            frames.append((Region(x: 0, y: 0, width: 3 * k, height: h), Box(x: k, y: k, width: k, height: rect.height)))
        }
        if lateSides.contains(.east) {
            frames.append((Region(x: w - 3 * k, y: 0, width: 3 * k, height: h),
                           Box(x: rect.width, y: k, width: k, height: rect.height)))
        }
        self.frames = frames
        self.lateSides = lateSides
        skipTop = north
        skipBottom = south
    }

    /// Whether halos on `side` go into the frames (they may come after `beginRound`).
    func isLate(_ side: Direction) -> Bool { lateSides.contains(side) }

    /// Buffer span along one axis for a side component: -1 before, 0 along, +1 after the interior.
    private func span(_ component: Int, length: Int, halo: Bool) -> Range<Int> {
        switch component {
        case -1: return halo ? 0..<depth : depth..<(2 * depth)
        case 1: return halo ? (depth + length)..<(length + 2 * depth) : length..<(length + depth)
        default: return depth..<(depth + length)
        }
    }

    private func region(_ side: Direction, halo: Bool) -> Box {
        let xs = span(side.dx, length: rect.width, halo: halo), ys = span(side.dy, length: rect.height, halo: halo)
        return Box(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
    }

    /// The size of the halo on `side`: what a strip for it must measure.
    func haloSize(_ side: Direction) -> (width: Int, height: Int) {
        let b = region(side, halo: true)
        return (b.width, b.height)
    }

    /// The interior cells next to `side`: what the neighbour on that side needs as halo.
    func edge(_ side: Direction) -> BitGrid {
        let b = region(side, halo: false)
        return main.current.extract(x: b.x, y: b.y, width: b.width, height: b.height)
    }

    /// Fills the halo on `side` with the neighbour's edge cells: into the main region
    /// before `beginRound`, into the frames after it.
    func fillHalo(_ side: Direction, with cells: BitGrid) {
        let b = region(side, halo: true)
        precondition(cells.width == b.width && cells.height == b.height, "halo strip of the wrong size")
        if isLate(side) {
            for frame in frames { frame.region.write(cells, atX: b.x, y: b.y) }
        } else {
            main.write(cells, atX: b.x, y: b.y)
        }
    }

    /// Starts a round of `generations` (at most `depth`) once the edges went out and
    /// every halo that is not late is filled: does all the work that needs no late halo.
    func beginRound(_ generations: Int) {
        precondition(generations <= depth)
        for frame in frames {
            let r = frame.region
            r.copy(Box(x: r.origin.x, y: r.origin.y, width: r.current.width, height: r.current.height), from: main)
            // The main region computes whole rows, so its halo holds leftovers: beyond a
            // plane's edge they must read as dead.
            for box in dead { r.clear(box) }
        }
        let k = depth, height = self.height, top = skipTop, bottom = skipBottom
        // Rows next to a late halo are the frames' job; the rest stays valid.
        main.step(generations, rule: rule, using: implementation, dead: dead, blocking: blocking) { g in
            rowSpan(g + 1 + (top ? k : 0), height - 1 - g - (bottom ? k : 0))
        }
    }

    /// Ends the round once the late halos are filled.
    func finishRound(_ generations: Int) {
        for (frame, band) in frames {
            let rows = frame.current.height
            frame.step(generations, rule: rule, using: implementation, dead: dead) { g in rowSpan(g + 1, rows - 1 - g) }
            main.copy(band, from: frame)
        }
    }

    var population: Int {
        main.current.population(x: depth, y: depth, width: rect.width, height: rect.height)
    }

    /// Replaces the tile's cells.
    func load(_ cells: BitGrid) {
        main.current.clear(x: 0, y: 0, width: main.current.rowWords * 64, height: main.current.height)
        main.write(cells, atX: depth, y: depth)
    }

    /// Whether any cell is alive in columns `x..<x+width` of interior row `y`.
    func anyAlive(row y: Int, x: Int, width: Int) -> Bool {
        main.current.population(x: depth + x, y: depth + y, width: width, height: 1) > 0
    }

    func cells(rows: Range<Int>) -> BitGrid {
        main.current.extract(x: depth, y: depth + rows.lowerBound, width: rect.width, height: rows.count)
    }
}
