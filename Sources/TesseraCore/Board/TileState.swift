/// What a tile is between runs, whole: enough to carry on elsewhere bit for bit.
public struct TileState: Sendable, Equatable {
    public let tile: TileID
    public let generation: UInt64
    public let cells: BitGrid
    /// The cells one generation earlier: skipping relies on them, and so do the strips
    /// the tile sends (see `TesseraTiles.BlockActivity`).
    public let previous: BitGrid

    public init(tile: TileID, generation: UInt64, cells: BitGrid, previous: BitGrid) {
        (self.tile, self.generation, self.cells, self.previous) = (tile, generation, cells, previous)
    }
}
