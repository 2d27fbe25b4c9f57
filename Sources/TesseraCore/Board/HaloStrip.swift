/// A neighbour's edge cells for one side of a tile's halo, at the start of a round: the
/// pieces of the edge that changed since the sender last sent them.
///
/// The first strip after new cells is `whole`: it replaces the edge, and carries only
/// the stretches that hold live cells. Later ones carry only the stretches whose cells
/// did not merely repeat with period 1 or 2 since they were last sent (the sender tracks
/// them in lengths of `pieceLength` cells), so the receiver's kept copy, taken by
/// generation parity, is still right for the rest. A quiet border costs a few header
/// bytes a round, a busy one what its activity touches, and a mostly empty edge of any
/// length little more.
public struct HaloStrip: Sendable, Equatable {
    /// The unit, in cells along an edge, in which changes are tracked and sent.
    public static let pieceLength = 256

    /// A stretch of an edge, starting `offset` cells along it (along the row on the north
    /// and south, down the column on the west and east; 0 on a corner), as layers of the
    /// same size: a two-state tile's cells at the round's generation and at the one
    /// before (a tile that skips unchanged blocks needs both of its buffers right); a
    /// tile of more states, the bit planes of its cells' states.
    public struct Piece: Sendable, Equatable {
        public let offset: Int
        public let layers: [BitGrid]

        public init(offset: Int, layers: [BitGrid]) {
            (self.offset, self.layers) = (offset, layers)
        }

        public init(offset: Int, cells: BitGrid, previous: BitGrid) {
            self.init(offset: offset, layers: [cells, previous])
        }

        /// A two-state piece's cells (else bit 0 of its states), and the generation before.
        public var cells: BitGrid { layers[0] }
        public var previous: BitGrid { layers[1] }

        /// Whether every cell of every layer is dead.
        public var isEmpty: Bool { !layers.contains { $0.words.contains { $0 != 0 } } }

        /// Whether every cell of both generations is dead `stretch` along the edge on `side`.
        public func isEmpty(_ stretch: Range<Int>, side: Direction) -> Bool {
            layers.allSatisfy { grid in
                side.dx == 0 ? grid.isEmpty(x: stretch.lowerBound, y: 0, width: stretch.count, height: grid.height)
                    : grid.isEmpty(x: 0, y: stretch.lowerBound, width: grid.width, height: stretch.count)
            }
        }

        /// The cells `stretch` along the edge on `side` (a north or south piece runs along
        /// x, a west or east one along y), as a piece of its own.
        public func slice(_ stretch: Range<Int>, side: Direction) -> Piece {
            func cut(_ grid: BitGrid) -> BitGrid {
                side.dx == 0 ? grid.cropped(x: stretch.lowerBound, y: 0, width: stretch.count, height: grid.height)
                    : grid.cropped(x: 0, y: stretch.lowerBound, width: grid.width, height: stretch.count)
            }
            return Piece(offset: offset + stretch.lowerBound, layers: layers.map(cut))
        }

        /// Where the piece lies in a `width`×`height` edge on `side`, or nil if it does not fit.
        public func box(side: Direction, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
            guard let cells = layers.first, layers.allSatisfy({ $0.width == cells.width && $0.height == cells.height }),
                  offset >= 0 else { return nil }
            switch (side.dx, side.dy) {
            case (0, _):
                guard cells.height == height, offset + cells.width <= width else { return nil }
                return (offset, 0, cells.width, height)
            case (_, 0):
                guard cells.width == width, offset + cells.height <= height else { return nil }
                return (0, offset, width, cells.height)
            default:
                guard offset == 0, cells.width == width, cells.height == height else { return nil }
                return (0, 0, width, height)
            }
        }
    }

    /// The tile that receives the strip.
    public let tile: TileID
    /// The side of the receiver's halo the cells fill.
    public let side: Direction
    public let generation: UInt64
    public let pieces: [Piece]
    /// Whether the pieces replace the whole edge, every cell outside them dead; else they
    /// replace only their own stretches.
    public let whole: Bool

    public init(tile: TileID, side: Direction, generation: UInt64, pieces: [Piece], whole: Bool) {
        self.tile = tile
        self.side = side
        self.generation = generation
        self.pieces = pieces
        self.whole = whole
    }

    /// A strip with the whole edge, at `generation` and at the one before.
    public init(tile: TileID, side: Direction, generation: UInt64, cells: BitGrid, previous: BitGrid) {
        self.init(tile: tile, side: side, generation: generation, pieces: [Piece(offset: 0, cells: cells, previous: previous)],
                  whole: true)
    }

    /// Bytes of cells it carries.
    public var cellBytes: Int {
        pieces.reduce(0) { $0 + $1.layers.reduce(0) { $0 + $1.words.count } * 8 }
    }
}
