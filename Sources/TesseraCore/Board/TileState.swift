/// What a tile is between runs, whole: enough to carry on elsewhere bit for bit.
public struct TileState: Sendable, Equatable {
    public let tile: TileID
    public let generation: UInt64
    /// The interior's layers, each a grid of the tile's size: a two-state tile's cells and
    /// the cells one generation earlier (skipping relies on them, and so do the strips
    /// the tile sends; see `TesseraTiles.BlockActivity`); a tile of more states, the bit
    /// planes of its cells' states (`StateGrid.planes`).
    public let layers: [BitGrid]

    public init(tile: TileID, generation: UInt64, layers: [BitGrid]) {
        precondition(!layers.isEmpty && layers.allSatisfy { $0.width == layers[0].width && $0.height == layers[0].height })
        (self.tile, self.generation, self.layers) = (tile, generation, layers)
    }

    public init(tile: TileID, generation: UInt64, cells: BitGrid, previous: BitGrid) {
        self.init(tile: tile, generation: generation, layers: [cells, previous])
    }

    /// A two-state tile's cells (a tile of more states: bit 0 of its states).
    public var cells: BitGrid { layers[0] }
    /// A two-state tile's cells one generation earlier.
    public var previous: BitGrid { layers[1] }
    public var width: Int { layers[0].width }
    public var height: Int { layers[0].height }
}
