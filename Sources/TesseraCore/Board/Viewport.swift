/// What a viewer looks at: `width`×`height` dots whose top-left dot starts at board
/// cell (x, y), each dot covering `cellsPerDot`×`cellsPerDot` cells.
///
/// Every field is held within limits far from overflow, so any arithmetic on a
/// viewport (a dot's cells, a tile's dots) is safe whatever a peer sent.
public struct Viewport: Hashable, Sendable {
    /// Dots a side: a terminal of 2048 columns, or a 4096-pixel image.
    public static let maxDots = 4096
    public static let maxCellsPerDot = 1 << 32
    /// How far from the board's corner a viewport may start, in cells.
    public static let maxCoordinate = 1 << 48

    public private(set) var x: Int, y: Int
    public private(set) var cellsPerDot: Int
    public private(set) var width: Int, height: Int

    /// Clamps each field into its limits.
    public init(x: Int, y: Int, cellsPerDot: Int, width: Int, height: Int) {
        self.x = min(max(x, -Self.maxCoordinate), Self.maxCoordinate)
        self.y = min(max(y, -Self.maxCoordinate), Self.maxCoordinate)
        self.cellsPerDot = min(max(1, cellsPerDot), Self.maxCellsPerDot)
        self.width = min(max(0, width), Self.maxDots)
        self.height = min(max(0, height), Self.maxDots)
    }

    /// Whether these values are a viewport as they are, with nothing to clamp.
    /// (`magnitude`, not `abs`: a peer may send Int.min, whose `abs` traps.)
    public static func isWithinLimits(x: Int, y: Int, cellsPerDot: Int, width: Int, height: Int) -> Bool {
        x.magnitude <= maxCoordinate.magnitude && y.magnitude <= maxCoordinate.magnitude && (1...maxCellsPerDot).contains(cellsPerDot)
            && (0...maxDots).contains(width) && (0...maxDots).contains(height)
    }

    /// The same viewport moved by (dx, dy) cells, or resized to `width`×`height` dots.
    public func moved(dx: Int = 0, dy: Int = 0) -> Viewport {
        Viewport(x: x + dx, y: y + dy, cellsPerDot: cellsPerDot, width: width, height: height)
    }

    public func resized(width: Int, height: Int) -> Viewport {
        Viewport(x: x, y: y, cellsPerDot: cellsPerDot, width: width, height: height)
    }

    /// The same centre at `cellsPerDot` cells a dot.
    public func zoomed(to cellsPerDot: Int) -> Viewport {
        let z = min(max(1, cellsPerDot), Self.maxCellsPerDot)
        let centre = (x + width * self.cellsPerDot / 2, y + height * self.cellsPerDot / 2)
        return Viewport(x: centre.0 - width * z / 2, y: centre.1 - height * z / 2, cellsPerDot: z, width: width, height: height)
    }

    /// The `width`×`height` cells from (x, y) in `dots` columns × `rows` dots, centred.
    public static func fitting(x: Int = 0, y: Int = 0, width: Int, height: Int, dots: Int, rows: Int) -> Viewport {
        let z = max(1, max(ceilDiv(width, max(1, dots)), ceilDiv(height, max(1, rows))))
        return Viewport(x: x + (width - dots * z) / 2, y: y + (height - rows * z) / 2, cellsPerDot: z, width: dots, height: rows)
    }

    /// What `0` fits on the unbounded plane, as a frame carries it: `live` (the live
    /// cells' bounding box, Golly's coordinates) within a viewport's reach, or the
    /// origin's cell, where a pattern without a position starts, when none is alive.
    public static func board(fitting live: CellBounds?) -> (x: Int, y: Int, width: Int, height: Int) {
        guard let live else { return (0, 0, 1, 1) }
        let far = maxCoordinate
        return (min(max(live.left, -far), far), min(max(live.top, -far), far), min(live.width, 2 * far), min(live.height, 2 * far))
    }

    /// The dots that cells of `rect` fall under, as column and row ranges; nil if none.
    public func dots(covering rect: TileRect) -> (columns: Range<Int>, rows: Range<Int>)? {
        let z = cellsPerDot
        let x0 = max(0, floorDiv(rect.x - x, z)), x1 = min(width, ceilDiv(rect.x + rect.width - x, z))
        let y0 = max(0, floorDiv(rect.y - y, z)), y1 = min(height, ceilDiv(rect.y + rect.height - y, z))
        return x0 < x1 && y0 < y1 ? (x0..<x1, y0..<y1) : nil
    }

    /// The dot every cell of `rect` falls under, where there is one and it is in view: a
    /// square wholly under one dot lights it (or gives it its state) without being opened.
    public func dot(holding rect: TileRect) -> (column: Int, row: Int)? {
        let z = cellsPerDot
        let (column, row) = (floorDiv(rect.x - x, z), floorDiv(rect.y - y, z))
        // Within one dot: the span ends in the dot it starts in.
        guard rect.x + rect.width - x <= (column + 1) * z, rect.y + rect.height - y <= (row + 1) * z,
              (0..<width).contains(column), (0..<height).contains(row) else { return nil }
        return (column, row)
    }

    /// Board columns (or rows, along y) under dot column `dot`.
    public func cells(underColumn dot: Int) -> Range<Int> { (x + dot * cellsPerDot)..<(x + (dot + 1) * cellsPerDot) }
    public func cells(underRow dot: Int) -> Range<Int> { (y + dot * cellsPerDot)..<(y + (dot + 1) * cellsPerDot) }
}

package func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
package func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }
