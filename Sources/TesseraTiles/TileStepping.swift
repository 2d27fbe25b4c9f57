import TesseraCore

/// What a `TileActor` asks of the engine that owns its cells: a round (its plan, the
/// strips that go out, the halos that come in, the generations) and reads between
/// rounds. `TileEngine` holds two states a cell, `StateTileEngine` more. Owned by one
/// actor; not `Sendable`.
protocol TileStepping: AnyObject {
    /// Generations a round may run alone.
    var depth: Int { get }
    /// Layers a halo piece or a moved tile's state carries (`HaloStrip.Piece.layers`).
    var layerCount: Int { get }
    /// The size of the halo on `side`: what a strip for it must measure.
    func haloSize(_ side: Direction) -> (width: Int, height: Int)
    /// Makes halos on `lateSides` wait until after `beginRound`, where the engine can.
    func expectLate(_ lateSides: Set<Direction>)
    /// Whether the tile is its own west and east neighbour (a torus one tile across).
    func wrapAcross(_ wraps: Bool)
    /// Plans a round of `generations` from `generation`; says whether halos may come late.
    func planRound(_ generations: Int, from generation: UInt64) -> Bool
    /// What the neighbour on `side` needs for its halo this round.
    func strip(for side: Direction) -> (pieces: [HaloStrip.Piece], whole: Bool)
    func fillHalo(_ strip: HaloStrip) throws
    /// The round's work that needs no late halo; `finishRound` the rest, once all are in.
    func beginRound(_ generations: Int) throws
    func finishRound(_ generations: Int)
    /// Cells in any state but 0.
    var population: Int { get }
    /// The smallest rectangle (interior coordinates) holding every cell not in state 0,
    /// of those within `within` if given.
    func liveBounds(within: TileRect?) -> TileRect?
    /// Replaces the cells (live ones in state 1): the next strips go whole.
    func load(_ cells: BitGrid)
    /// Replaces the cells, each in its state.
    func load(states: StateGrid)
    func state(tile: TileID, generation: UInt64) -> TileState
    /// The neighbour on `side` moved: its next strip goes whole.
    func resend(_ side: Direction)
    /// Visits cells not in state 0 of `area` (interior coordinates) as `TileEngine.visitLive` does.
    func visitLive(in area: TileRect, from: (_ y: Int) -> Int, _ visit: (_ x: Int, _ y: Int) -> Int)
    /// A frame's dots over the interior in states (`StateGrid.stateDots`), the view's
    /// corner at (left, top) of the interior; nil for two-state cells.
    func stateDots(in view: Viewport, left: Int, top: Int) -> [UInt8]?
    /// The interior's cells not in state 0 as pieces (interior coordinates).
    func liveParts() -> [Overlay]
    /// The cells of `area` (interior coordinates) in any state but 0, and their states
    /// where there are more than two.
    func cells(in area: TileRect) -> (cells: BitGrid, states: StateGrid?)
    var residentBytes: Int? { get }
    var blocksStepped: (blocks: Int, rows: Int) { get }
}

extension Overlay {
    /// The same cells `dx` right and `dy` down.
    func offset(by dx: Int, _ dy: Int) -> Overlay {
        states.map { Overlay(states: $0, x: x + dx, y: y + dy) } ?? Overlay(cells: cells, x: x + dx, y: y + dy)
    }
}
