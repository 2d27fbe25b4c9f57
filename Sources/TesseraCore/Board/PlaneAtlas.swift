/// Cells whose top-left cell lies at Golly (`left`, `top`).
public struct PlacedCells: Sendable, Equatable {
    public var cells: BitGrid
    public var left: Int, top: Int

    public init(cells: BitGrid, left: Int, top: Int) {
        (self.cells, self.left, self.top) = (cells, left, top)
    }

    public var bounds: CellBounds { CellBounds(left: left, top: top, width: cells.width, height: cells.height) }

    /// `overlay`'s cells, its place taken as Golly's coordinates (as the wire carries
    /// a sparse plane's parts).
    public init(_ overlay: Overlay) {
        self.init(cells: overlay.cells, left: overlay.x, top: overlay.y)
    }

    /// The live cells of `cells`, whose top-left cell lies at Golly (`left`, `top`), cut
    /// to their bounding box; nil when none is alive.
    public init?(trimming cells: BitGrid, left: Int, top: Int) {
        guard let box = cells.liveBounds else { return nil }
        self.init(cells: cells.cropped(x: box.x, y: box.y, width: box.width, height: box.height), left: left + box.x, top: top + box.y)
    }
}

/// Golly's unbounded plane where its live cells lie in groups too far apart for one
/// window (`PlaneWindow`) to hold them all: each group gets a window of its own, and
/// the windows lie side by side on one bounded board, the atlas, which runs as any
/// board does, in this process or on workers.
///
/// Windows far enough apart cannot tell each other apart from a dead plane: a window
/// keeps at least `margin` dead cells around its group, so the live cells of two
/// windows that do not overlap are more than twice the margin apart, and a live cell
/// spreads one cell a generation. For as many generations as the smallest margin
/// left, each window steps exactly as the unbounded plane does, whatever lies next to
/// it on the atlas (whose edges are dead). Groups whose windows would overlap share one.
public struct PlaneAtlas: Sendable, Hashable {
    /// The least margin of an atlas's windows (a lone window's is
    /// `PlaneWindow.minMargin`): a thousand gliders far apart make a board of 768²
    /// cells each rather than 4352² (snapshots and memory checks count every cell of
    /// the board), at the price of reading back and remaking the atlas more often.
    public static let leastMargin = 256

    /// The margin for an atlas of `count` groups: a lone window's while the board
    /// stays within 2^28 cells, narrower as groups multiply, down to `leastMargin`.
    /// Each time a margin runs out the whole atlas is read back and remade, so a wide
    /// margin is worth its room while the board is small.
    public static func margin(forGroups count: Int) -> Int {
        let side = (Double(1 << 28) / Double(max(1, count))).squareRoot()
        return min(PlaneWindow.minMargin, max(leastMargin, Int(side / 2) / 256 * 256))
    }

    public struct Island: Sendable, Hashable {
        /// The window, in Golly's coordinates.
        public let window: BoardShape
        /// Its top-left cell on the atlas.
        public let x: Int, y: Int
        /// Where its live cells may be at the atlas's first generation (atlas coordinates).
        public private(set) var live: TileRect

        /// The window's cells on the atlas.
        public var rect: TileRect { TileRect(x: x, y: y, width: window.width, height: window.height) }

        /// Whether the window holds all of `bounds` (Golly's coordinates).
        public func holds(_ bounds: CellBounds) -> Bool {
            window.left <= bounds.left && bounds.right <= window.left + window.width
                && window.top <= bounds.top && bounds.bottom <= window.top + window.height
        }

        /// A rectangle of the atlas in Golly's coordinates.
        public func golly(_ rect: TileRect) -> CellBounds {
            CellBounds(left: window.left + rect.x - x, top: window.top + rect.y - y, width: rect.width, height: rect.height)
        }

        /// A rectangle in Golly's coordinates on the atlas: `golly`'s inverse.
        public func onAtlas(_ bounds: CellBounds) -> TileRect {
            TileRect(x: x + bounds.left - window.left, y: y + bounds.top - window.top, width: bounds.width, height: bounds.height)
        }

        /// `window` at (`x`, `y`) on the atlas, its live cells in `live` (Golly's
        /// coordinates), or none: an empty box at its centre.
        init(window: BoardShape, x: Int, y: Int, holding live: CellBounds?) {
            (self.window, self.x, self.y) = (window, x, y)
            self.live = TileRect(x: x + window.width / 2, y: y + window.height / 2, width: 0, height: 0)
            if let live { self.live = onAtlas(live) }
        }

        /// Dead rows and columns left between where the live cells may be, `elapsed`
        /// generations on, and the window's nearest edge.
        public func margin(after elapsed: UInt64) -> Int {
            let room = min(live.x - x, live.y - y, x + window.width - live.x - live.width, y + window.height - live.y - live.height)
            return elapsed >= UInt64(room) ? 0 : room - Int(elapsed)
        }

        /// Where the live cells may be `elapsed` generations on: `live` grown as far as
        /// they can spread, within the window.
        public func reach(after elapsed: UInt64) -> TileRect {
            let grow = Int(min(elapsed, UInt64(max(window.width, window.height))))
            let x0 = max(x, live.x - grow), y0 = max(y, live.y - grow)
            let x1 = min(x + window.width, live.x + live.width + grow), y1 = min(y + window.height, live.y + live.height + grow)
            return TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }

    public let islands: [Island]
    /// The board the islands lie on: a plane whose edges no live cell reaches.
    public let board: BoardShape

    /// Windows around `groups`' live boxes (Golly's coordinates), each side at least
    /// `minSide`, packed on one board in shelves as wide as the widest window: a window
    /// is read back (`UnboundedPlane.parts`) as whole rows of the board, so a board no
    /// wider than that reads each about once.
    public init(groups: [CellBounds], minSide: Int, margin: Int) throws {
        let windows = try groups.map { try PlaneWindow.around($0, minSide: minSide, least: margin) }
        let shelfWidth = windows.map(\.width).max() ?? minSide
        var islands: [Island] = [], x = 0, y = 0, shelfHeight = 0, width = 0
        for index in windows.indices.sorted(by: { windows[$0].height > windows[$1].height }) {
            let window = windows[index]
            if x + window.width > shelfWidth { (x, y, shelfHeight) = (0, y + shelfHeight, 0) }
            islands.append(Island(window: window, x: x, y: y, holding: groups[index]))
            x += window.width
            (width, shelfHeight) = (max(width, x), max(shelfHeight, window.height))
        }
        let height = y + shelfHeight
        guard width <= BoardShape.maxSide, height <= BoardShape.maxSide else {
            throw TesseraError("\(groups.count) groups of live cells far apart need windows \(width)x\(height) cells in all, past the \(BoardShape.maxSide) a side Tessera holds",
                               fix: "run the groups as separate patterns")
        }
        self.islands = islands
        board = BoardShape(width: width, height: height, topology: .infinite, left: 0, top: 0)
    }

    /// Dead cells left around every island's live cells, `elapsed` generations on: how
    /// many more generations the atlas runs as the unbounded plane.
    public func margin(after elapsed: UInt64) -> Int {
        islands.map { $0.margin(after: elapsed) }.min() ?? 0
    }

    /// The same windows, where the live cells are now in `parts` (Golly's coordinates),
    /// if every part lies in a window and every window still has room around its own:
    /// a quarter of its narrower side. Nil when one has not, and must be remade.
    public func keeping(parts: [CellBounds]) -> PlaneAtlas? {
        var live = [CellBounds?](repeating: nil, count: islands.count)
        for part in parts {
            guard let i = islands.firstIndex(where: { $0.holds(part) }) else { return nil }
            live[i] = live[i].map { $0.union(part) } ?? part
        }
        var kept: [Island] = []
        for (island, box) in zip(islands, live) {
            let next = Island(window: island.window, x: island.x, y: island.y, holding: box)
            guard next.margin(after: 0) >= min(island.window.width, island.window.height) / 4 else { return nil }
            kept.append(next)
        }
        return PlaneAtlas(islands: kept, board: board)
    }

    private init(islands: [Island], board: BoardShape) {
        (self.islands, self.board) = (islands, board)
    }

    /// The island whose window holds `bounds` (Golly's coordinates).
    public func island(holding bounds: CellBounds) -> Island? {
        islands.first { $0.holds(bounds) }
    }

    /// Which of `boxes` (Golly's coordinates) must share a window: those whose windows
    /// would overlap, and so on until no two groups' windows do. Each group's members
    /// are indices into `boxes`, in order; groups come in order of their first member.
    public static func groups(of boxes: [CellBounds], minSide: Int, margin: Int = leastMargin) throws -> [[Int]] {
        var sets = DisjointSets(count: boxes.count)
        joinNeighbours(boxes, margin: margin, into: &sets)
        var count = Set(boxes.indices.map { sets.root($0) }).count
        while true {
            var bounds: [Int: CellBounds] = [:]
            for (i, box) in boxes.enumerated() {
                let root = sets.root(i)
                bounds[root] = bounds[root].map { $0.union(box) } ?? box
            }
            let windows = try bounds.map { (root: $0.key, window: try PlaneWindow.around($0.value, minSide: minSide, least: margin)) }
            forEachOverlap(of: windows.map(\.window)) { sets.join(windows[$0].root, windows[$1].root) }
            let merged = Set(boxes.indices.map { sets.root($0) }).count
            if merged == count { break }
            count = merged
        }
        var members: [Int: [Int]] = [:]
        for i in boxes.indices { members[sets.root(i), default: []].append(i) }
        return members.values.sorted { $0[0] < $1[0] }
    }
}

extension PlaneAtlas {
    /// Joins the boxes that touch one square of a grid of side twice `margin`: they lie
    /// less than that apart on both axes, so their windows, each reaching at least
    /// `margin` past its box on every side, overlap. One pass over the boxes
    /// leaves only the groups' windows to compare: compared window by window, a
    /// metapixel's forty thousand pieces each meet hundreds of windows around them.
    /// A box across more than 16 squares is left to the comparison of windows.
    private static func joinNeighbours(_ boxes: [CellBounds], margin: Int, into sets: inout DisjointSets) {
        let side = max(1, 2 * margin)
        var first: [GridCell: Int] = [:]
        for (i, box) in boxes.enumerated() {
            let x0 = floorDiv(box.left, side), x1 = floorDiv(box.left + max(1, box.width) - 1, side)
            let y0 = floorDiv(box.top, side), y1 = floorDiv(box.top + max(1, box.height) - 1, side)
            guard x1 - x0 < 16, y1 - y0 < 16, (x1 - x0 + 1) * (y1 - y0 + 1) <= 16 else { continue }
            for y in y0...y1 {
                for x in x0...x1 {
                    if let j = first[GridCell(x: x, y: y)] { sets.join(j, i) } else { first[GridCell(x: x, y: y)] = i }
                }
            }
        }
    }

    /// Calls `body` with each pair of `windows` that overlap (at least once). Windows up to four
    /// times the median's size are found through a grid of cells as large as the
    /// largest of them, each window against those whose corners lie in the 3x3 cells
    /// around its own; larger ones against all. A metapixel's forty thousand pieces
    /// were a sweep whose open list held thousands: half a second.
    static func forEachOverlap(of windows: [BoardShape], _ body: (Int, Int) -> Void) {
        func overlap(_ a: BoardShape, _ b: BoardShape) -> Bool {
            a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height
        }
        guard windows.count > 1 else { return }
        let sizes = windows.map { max($0.width, $0.height) }
        let median = sizes.sorted()[sizes.count / 2]
        let (limit, overflow) = median.multipliedReportingOverflow(by: 4)
        let isSmall = sizes.map { overflow || $0 <= limit }
        let cell = max(1, zip(sizes, isSmall).filter(\.1).map(\.0).max() ?? 1)
        var cells: [GridCell: [Int]] = [:]
        for (i, window) in windows.enumerated() where isSmall[i] {
            let (x, y) = (floorDiv(window.left, cell), floorDiv(window.top, cell))
            for dy in -1...1 {
                for dx in -1...1 {
                    for j in cells[GridCell(x: x + dx, y: y + dy)] ?? [] where overlap(window, windows[j]) { body(j, i) }
                }
            }
            cells[GridCell(x: x, y: y), default: []].append(i)
        }
        for (i, window) in windows.enumerated() where !isSmall[i] {
            for j in windows.indices where j != i && overlap(window, windows[j]) { body(j, i) }
        }
    }
}

/// A square of a grid laid over the plane.
private struct GridCell: Hashable { let x: Int, y: Int }

/// Union-find over 0..<count, each set named by its least member.
private struct DisjointSets {
    private var parent: [Int]

    init(count: Int) { parent = Array(0..<count) }

    mutating func root(_ i: Int) -> Int {
        var i = i
        while parent[i] != i { (parent[i], i) = (parent[parent[i]], parent[i]) }
        return i
    }

    mutating func join(_ a: Int, _ b: Int) {
        let (a, b) = (root(a), root(b))
        if a != b { parent[max(a, b)] = min(a, b) }
    }
}

extension PlaneAtlas {
    /// `parts` (Golly's coordinates) laid on the atlas, each in the window that holds it.
    public func overlays(of parts: [PlacedCells]) -> [Overlay] {
        parts.compactMap { part in
            island(holding: part.bounds).map {
                let rect = $0.onAtlas(part.bounds)
                return Overlay(cells: part.cells, x: rect.x, y: rect.y)
            }
        }
    }
}

extension CellBounds {
    /// The smallest rectangle holding all of `boxes`; nil when there are none.
    public static func enclosing(_ boxes: some Sequence<CellBounds>) -> CellBounds? {
        boxes.reduce(nil) { $0?.union($1) ?? $1 }
    }
}
