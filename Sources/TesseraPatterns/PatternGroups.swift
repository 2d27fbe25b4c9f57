import TesseraCore

extension Pattern {
    /// A one-grid pattern wider or taller than this is read as its live blocks
    /// (`inLiveBlocks`), as a macrocell's reader reads its tree.
    static let flatSide = 8192
    /// The blocks a wide grid is cut into.
    static let blockSide = 4096

    /// This pattern's live cells as parts, one for each `blockSide`-square block of its
    /// grid that holds any (trimmed to them), when its one grid spans more than
    /// `flatSide` cells a side; else the pattern as it is. An RLE a billion columns wide
    /// with a block at each end becomes two small parts, which a sparse map or HashLife
    /// places where they lie, with nothing made for the space between.
    public func inLiveBlocks() -> Pattern {
        guard !hasParts, cells.width > Self.flatSide || cells.height > Self.flatSide else { return self }
        let (left, top) = topLeft(on: .infinite)
        var parts: [PlacedCells] = []
        for y in stride(from: 0, to: cells.height, by: Self.blockSide) {
            for x in stride(from: 0, to: cells.width, by: Self.blockSide) {
                let block = TileRect(x: x, y: y, width: min(Self.blockSide, cells.width - x), height: min(Self.blockSide, cells.height - y))
                guard let live = cells.liveBounds(in: block) else { continue }
                parts.append(PlacedCells(cells: cells.cropped(x: live.x, y: live.y, width: live.width, height: live.height),
                                         left: left + live.x, top: top + live.y))
            }
        }
        return Pattern(parts: parts, rule: rule, board: board, generation: generation, comments: comments)
    }
}
