import TesseraCore

/// The part of a board a step must cover when life is confined: the box of the cells in
/// any state but 0, grown by the neighbourhood's reach on every side, so that every cell
/// that could change lies in it and every cell it reads outside it is dead. On a torus
/// only where that box does not reach round an edge; nil for the whole board.
enum ActiveRegion {
    static func of(_ live: TileRect?, reach: Int, width: Int, height: Int, wraps: Bool) -> TileRect? {
        guard let live else { return TileRect(x: 0, y: 0, width: 0, height: 0) }
        let (left, top) = (live.x - reach, live.y - reach)
        let (right, bottom) = (live.x + live.width + reach, live.y + live.height + reach)
        if wraps {
            guard left >= 0, top >= 0, right <= width, bottom <= height else { return nil }
            return TileRect(x: left, y: top, width: right - left, height: bottom - top)
        }
        let (x0, y0, x1, y1) = (max(0, left), max(0, top), min(width, right), min(height, bottom))
        return TileRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
