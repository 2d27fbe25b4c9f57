/// Cells from a neighbour for one side of a tile's halo, taken at one generation.
public struct HaloStrip: Sendable, Equatable {
    /// The tile that receives the strip.
    public let tile: TileID
    /// The side of the receiver's halo the cells fill.
    public let side: Direction
    public let generation: UInt64
    public let cells: BitGrid

    public init(tile: TileID, side: Direction, generation: UInt64, cells: BitGrid) {
        self.tile = tile
        self.side = side
        self.generation = generation
        self.cells = cells
    }
}
