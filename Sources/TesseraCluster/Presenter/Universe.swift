import TesseraCore
import TesseraWire

/// Something that steps a universe, as a presenter, a frame recording and a run drive
/// it: the coordinator and its workers (their tiles, or their shards as `ShardedPlane`),
/// a coordinator in another process (`RemoteCluster`), or a run in this process
/// (`LocalUniverse`: the sparse map, a bounded board's tiles, a whole-board engine).
/// Viewers reach a presenter on its own socket, not through this.
package protocol Universe: Sendable {
    /// What `0` fits, in viewport coordinates: a bounded board's cells, or on the
    /// unbounded plane the live cells' bounding box (Golly's coordinates).
    var board: (x: Int, y: Int, width: Int, height: Int) { get async }
    /// The tiles the board is cut into, columns × rows.
    var tiles: (columns: Int, rows: Int) { get async }
    /// Whether viewers may change the cells (edit, patterns, rewind, save): not on the
    /// unbounded plane, nor on shards.
    var isEditable: Bool { get }
    /// The states a cell may be in: 2 but for Generations and rule files.
    var stateCount: Int { get }
    var workerCount: Int { get }
    /// Why the run failed or was stopped, once it did: a paused presenter looks.
    var failure: TesseraError? { get async }
    var generation: UInt64 { get async }
    var population: Int { get async }
    func advance(_ generations: UInt64) async throws
    func frame(_ viewport: Viewport) async throws -> BitGrid
    /// The same frame's dots in their states (a byte a dot, 0 for none), and how many the
    /// rule has, where it has more than two and the run shows them; nil otherwise.
    func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)?
    func collect() async throws -> BitGrid
    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws
    /// The whole bounded board, each cell in its state: one plane where the rule has two
    /// states. What a viewer's edit changes, rewind keeps and a save writes.
    func collectStates() async throws -> StateGrid
    /// Replaces the bounded board's cells with `states` (as `collectStates` gave them) at
    /// `generation`.
    func load(generation: UInt64, states: StateGrid) async throws
}

extension Universe {
    package var isEditable: Bool { true }
    package var stateCount: Int { 2 }
    package func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)? { nil }
    package func collectStates() async throws -> StateGrid { StateGrid(ones: try await collect(), states: 2) }

    package func load(generation: UInt64, states: StateGrid) async throws {
        let board = states.occupied
        try await load(generation: generation) { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }

    /// A frame's dots, and their states where the run shows them: the dots then made
    /// from the states, not drawn a second time.
    package func frameAndStates(_ viewport: Viewport) async throws -> (dots: BitGrid, states: (dots: [UInt8], states: Int)?) {
        guard let states = try await stateFrame(viewport) else { return (try await frame(viewport), nil) }
        return (BitGrid(litWhereNonZero: states.dots, width: viewport.width, height: viewport.height), states)
    }
}

extension Coordinator: Universe {
    package var board: (x: Int, y: Int, width: Int, height: Int) {
        let shape = tiling.shape
        return (0, 0, shape.width, shape.height)
    }

    package var tiles: (columns: Int, rows: Int) { (tiling.columns, tiling.rows) }
    package nonisolated var stateCount: Int { plan.rule.states }
}
