/// One of the eight sides of a tile.
public enum Direction: Int, CaseIterable, Sendable {
    case north, northEast, east, southEast, south, southWest, west, northWest

    // Inlinable: the block stepper asks for them every generation, from another module.
    @inlinable public var dx: Int {
        switch self {
        case .north, .south: 0
        case .northEast, .east, .southEast: 1
        case .southWest, .west, .northWest: -1
        }
    }
    @inlinable public var dy: Int {
        switch self {
        case .west, .east: 0
        case .southEast, .south, .southWest: 1
        case .northWest, .north, .northEast: -1
        }
    }
    public var opposite: Direction { Direction(rawValue: (rawValue + 4) % 8)! }
}

/// A tile's place in the grid of tiles.
public struct TileID: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let column: Int
    public let row: Int

    public init(column: Int, row: Int) {
        self.column = column
        self.row = row
    }

    public var description: String { "(\(column),\(row))" }
    public static func < (a: TileID, b: TileID) -> Bool { (a.row, a.column) < (b.row, b.column) }
}

/// A rectangle of board cells, in board coordinates (0-based from the top-left).
public struct TileRect: Hashable, Sendable {
    public let x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rectangle holding both.
    public func union(_ other: TileRect) -> TileRect {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return TileRect(x: x0, y: y0, width: max(x + width, other.x + other.width) - x0,
                        height: max(y + height, other.y + other.height) - y0)
    }

    /// The cells in both; nil when they do not meet.
    public func intersection(_ other: TileRect) -> TileRect? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return x0 < x1 && y0 < y1 ? TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }
}

/// The board cut into `columns`×`rows` tiles. Sizes that do not divide are split as
/// evenly as possible (tile widths differ by at most one cell).
public struct Tiling: Hashable, Sendable {
    /// The most tiles a board is cut into. Beside its cells, each tile costs a fixed
    /// share: an actor, padded buffers, block maps and eight halo links (12 to 50 KB
    /// measured), and every round its scheduling and eight strips (about 0.1 ms in a
    /// debug build); the coordinator counts answers tile by tile and tells every worker
    /// each tile's owner. At 4096 tiles that stays within a few hundred MB and half a
    /// second a round, and `maxWorkers` workers still get one each; a million tiles
    /// (1000x1000) would take gigabytes and minutes a round.
    public static let maxTiles = 4096

    public let shape: BoardShape
    public let columns: Int
    public let rows: Int

    public init(shape: BoardShape, columns: Int, rows: Int) throws {
        guard columns >= 1, rows >= 1 else {
            throw TesseraError("tiling \(columns)x\(rows) has no tiles", fix: "give --tiles CxR with C, R ≥ 1")
        }
        guard columns <= shape.width, rows <= shape.height else {
            throw TesseraError(
                "\(columns)x\(rows) tiles is more tiles than the \(shape.width)x\(shape.height) board has cells across",
                fix: "use at most \(shape.width)x\(shape.height) tiles")
        }
        guard columns * rows <= Self.maxTiles else {
            throw TesseraError("\(columns)x\(rows) tiles are \(columns * rows), more than the \(Self.maxTiles) a board is cut into (each tile costs memory and time every round beside its cells)",
                               fix: "give fewer --tiles, e.g. 64x64, or leave them out: one tile per worker")
        }
        self.shape = shape
        self.columns = columns
        self.rows = rows
    }

    /// Parses `CxR`.
    public static func parse(_ text: String, shape: BoardShape) throws -> Tiling {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]) else {
            throw TesseraError("bad tiling '\(text)'", fix: "write --tiles COLUMNSxROWS, e.g. 2x2")
        }
        return try Tiling(shape: shape, columns: c, rows: r)
    }

    public var tiles: [TileID] {
        (0..<rows).flatMap { r in (0..<columns).map { TileID(column: $0, row: r) } }
    }

    public func rect(of tile: TileID) -> TileRect {
        let x0 = tile.column * shape.width / columns, x1 = (tile.column + 1) * shape.width / columns
        let y0 = tile.row * shape.height / rows, y1 = (tile.row + 1) * shape.height / rows
        return TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest tile's narrower side: the deepest halo any tile can fill from its neighbours.
    public var smallestSide: Int { min(shape.width / columns, shape.height / rows) }

    /// The tile across side `direction`, or `nil` where a plane board ends.
    public func neighbour(of tile: TileID, _ direction: Direction) -> TileID? {
        var c = tile.column + direction.dx, r = tile.row + direction.dy
        if shape.topology.hasDeadEdges {
            guard (0..<columns).contains(c), (0..<rows).contains(r) else { return nil }
        }
        c = (c + columns) % columns
        r = (r + rows) % rows
        return TileID(column: c, row: r)
    }

    /// A halo depth that keeps redundant edge work to a few percent: about 1/32 of the
    /// smallest tile side, between 1 and 128. Dense boards run as fast at 32 as at 128;
    /// sparse ones, whose rounds cost latency more than work, run 10–20% faster at 128
    /// on two workers (`tessera bench workloads`).
    public var defaultHalo: Int { defaultHalo(reach: 1) }

    /// The default halo for a rule whose news travels `reach` cells a generation (Larger
    /// than Life's range): the same margin of cells, so as many generations fewer.
    ///
    /// A torus one tile across whose tiles are whole 256-cell columns takes at least 64
    /// (a word), where that is at most an eighth of a tile's side: its rows then wrap onto
    /// themselves and its column halos cost nothing (`TileEngine.wrapAcross`), so a
    /// deeper halo costs rows only. A 1024² board as one tile then steps 1024-cell rows,
    /// not 1088 stepped as 1280.
    public func defaultHalo(reach: Int) -> Int {
        let halo = max(1, min(128, smallestSide / 32 / reach))
        let wrapsAcross = columns == 1 && !shape.topology.hasDeadEdges && Self.wrapsInWords(tileWidth: shape.width, margin: 64)
        return reach == 1 && wrapsAcross && halo < 64 && smallestSide >= 8 * 64 ? 64 : halo
    }

    /// Whether a tile `tileWidth` cells wide with `margin` cells of halo either side can
    /// step its rows wrapping onto themselves where it is its own west and east neighbour
    /// (`TileEngine.wrapAcross`): its halos whole words and its interior whole 256-cell
    /// columns, as the kernels step them.
    public static func wrapsInWords(tileWidth: Int, margin: Int) -> Bool {
        margin >= 64 && margin % 64 == 0 && tileWidth % 256 == 0
    }

    /// Refuses a halo of `halo` generations, `reach` cells each, that some tile is too
    /// small to fill from its neighbours.
    public func validate(halo: Int, reach: Int = 1) throws {
        let deepest = smallestSide / reach
        guard halo >= 1, halo <= deepest else {
            let cells = reach == 1 ? "" : " (\(reach) cells a generation, a range-\(reach) rule's)"
            throw TesseraError(
                "halo depth \(halo)\(cells) does not fit tiles as small as \(smallestSide) cells",
                fix: deepest >= 1 ? "give --halo between 1 and \(deepest), or use fewer tiles" : "use fewer tiles, or a larger board")
        }
    }
}
