import TesseraCore
import TesseraWire

/// What a presenter needs from a cluster: the coordinator in its own process, or one
/// it drives over the network from a process of its own (`RemoteCluster`).
package protocol ClusterDriver: Sendable {
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
    /// What viewers send, in arrival order.
    var viewerInbox: AsyncStream<MessagePump.Incoming> { get }
    func send(_ message: Message, toViewer identity: PeerID)
}

extension ClusterDriver {
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

extension Coordinator: ClusterDriver {
    package var board: (x: Int, y: Int, width: Int, height: Int) {
        let shape = tiling.shape
        return (0, 0, shape.width, shape.height)
    }

    package var tiles: (columns: Int, rows: Int) { (tiling.columns, tiling.rows) }
}
