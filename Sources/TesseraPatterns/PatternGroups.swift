import TesseraCore

extension Pattern {
    /// A one-grid pattern wider or taller than this may be groups of cells far apart:
    /// `groupedFarApart` looks for them, as a macrocell's reader does for its tree.
    static let flatSide = 8192

    /// This pattern's live cells as groups that lie far apart on the unbounded plane
    /// (`parts`, each group in a grid of its own), when its one grid spans more than
    /// `flatSide` cells a side and the groups are far enough apart to need windows of
    /// their own (`PlaneAtlas.groups`); else the pattern as it is. An RLE a billion
    /// columns wide with a block at each end becomes two small parts, where one window
    /// around both could not be made.
    public func groupedFarApart() throws -> Pattern {
        guard !hasParts, cells.width > Self.flatSide || cells.height > Self.flatSide else { return self }
        let side = 4096
        var pieces: [CellBounds] = []
        for y in stride(from: 0, to: cells.height, by: side) {
            for x in stride(from: 0, to: cells.width, by: side) {
                let block = TileRect(x: x, y: y, width: min(side, cells.width - x), height: min(side, cells.height - y))
                guard let live = cells.liveBounds(in: block) else { continue }
                pieces.append(CellBounds(left: live.x, top: live.y, width: live.width, height: live.height))
            }
        }
        let groups = try PlaneAtlas.groups(of: pieces, minSide: 1)
        guard groups.count > 1 else { return self }
        let (left, top) = topLeft(on: .infinite)
        let placed = groups.map { members in
            let box = CellBounds.enclosing(members.map { pieces[$0] })!
            return PlacedCells(cells: cells.cropped(x: box.left, y: box.top, width: box.width, height: box.height),
                               left: left + box.left, top: top + box.top)
        }
        return Pattern(parts: placed, rule: rule, board: board, generation: generation, comments: comments)
    }
}
