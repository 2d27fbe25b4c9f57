import TesseraCore

extension Pattern {
    /// A one-grid pattern of more cells than this (64 KiB of them) is cut into its live
    /// blocks (`inLiveBlocks`), as the RLE reader reads a larger box on the unbounded
    /// plane: a grid of the box, kept while the run lasts, would hold memory for the
    /// extent (Golly's slide-breeder: 1.3 MB of box for 0.17 MB of live blocks).
    static let flatCells = RLE.Header.largestWholeOnPlane
    /// The blocks a grid is cut into: a word a row, as the RLE reader's (`SparseBlocks`).
    static let blockSide = SparseBlocks.readerSide

    /// This pattern's live cells as parts, one for each `blockSide`-square block of its
    /// grid that holds any (trimmed to them), when its one grid holds more than
    /// `flatCells` cells; else the pattern as it is. An RLE a billion columns wide with a
    /// block at each end becomes two small parts, which a sparse map or HashLife places
    /// where they lie, with nothing made for the space between.
    public func inLiveBlocks() -> Pattern {
        guard !hasParts, cells.width * cells.height > Self.flatCells else { return self }
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

    /// This pattern as one grid of its declared box, where a reader kept it in blocks
    /// (`SparseBlocks`) from a box of at most `RLE.Header.largestWhole` cells; else nil.
    /// What the engines of Golly's other grids take (a tube's window), as a box that size
    /// was always read.
    public func inOneGrid() -> Pattern? {
        guard hasParts, pending == nil, let (width, height) = extent, width > 0, height > 0,
              case let (cells, overflow) = width.multipliedReportingOverflow(by: height), !overflow, cells <= RLE.Header.largestWhole
        else { return nil }
        guard parts.allSatisfy({ $0.left >= 0 && $0.top >= 0 && $0.left + $0.cells.width <= width && $0.top + $0.cells.height <= height })
        else { return nil }
        var grid = BitGrid(width: width, height: height)
        for part in parts { grid.formUnion(part.cells, atX: part.left, y: part.top) }
        return Pattern(cells: grid, position: position, rule: rule, board: board, generation: generation, comments: comments)
    }
}
