import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraWire

/// A run stepped in this process: a sparse map of tiles (`LocalPlane`) or a bounded
/// board's dense tiles (`LocalBoard`). Coordinates are a bounded board's own, or
/// Golly's on the unbounded plane.
protocol LocalUniverse: Actor {
    var generation: UInt64 { get }
    func advance(_ generations: UInt64) async throws
    func population() async throws -> Int
    /// What a viewer's `0` fits: the board, or the live cells' bounding box.
    func extent() async throws -> (x: Int, y: Int, width: Int, height: Int)
    /// The tiles, columns × rows, as a frame names them: (count, 0) for a sparse map.
    var tiles: (columns: Int, rows: Int) { get }
    func frame(_ viewport: Viewport) async throws -> BitGrid
    /// The same frame's dots in their states, and how many the rule has; nil for two.
    func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)?
    /// Whether viewers may change the cells: on a bounded board.
    nonisolated var isEditable: Bool { get }
    /// The states a cell may be in.
    nonisolated var stateCount: Int { get }
    /// Where a bounded board's cells live.
    func liveBounds() async throws -> TileRect?
    /// A bounded board's cells in `rect`.
    func cells(in rect: TileRect) async throws -> BitGrid
    /// The whole bounded board.
    func collect() async throws -> BitGrid
    /// Replaces the bounded board's cells with `cells` at `generation`.
    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws
    /// The whole bounded board in its states, and the board replaced by such cells.
    func collectStates() async throws -> StateGrid
    func load(generation: UInt64, states: StateGrid) async throws
    func write(_ output: BoardOutput) async throws
    /// The share of the live cells' bounding box that holds tiles; 1 on a dense board.
    func fill() async -> Double
}

/// A run in this process as its viewers and frame recordings drive it: no workers, no
/// coordinator; viewers attach to `pump`'s viewer socket, if any.
extension LocalUniverse {
    func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)? { nil }
    nonisolated var stateCount: Int { 2 }
    func collectStates() async throws -> StateGrid { StateGrid(ones: try await collect(), states: 2) }

    func load(generation: UInt64, states: StateGrid) async throws {
        let board = states.occupied
        try await load(generation: generation) { board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }
}

struct LocalDriver: ClusterDriver {
    let universe: any LocalUniverse
    let pump: MessagePump?

    var board: (x: Int, y: Int, width: Int, height: Int) { get async { (try? await universe.extent()) ?? (0, 0, 1, 1) } }
    var tiles: (columns: Int, rows: Int) { get async { await universe.tiles } }
    var isEditable: Bool { universe.isEditable }
    var stateCount: Int { universe.stateCount }
    var workerCount: Int { 0 }
    var failure: TesseraError? { nil }
    var generation: UInt64 { get async { await universe.generation } }
    var population: Int { get async { (try? await universe.population()) ?? 0 } }

    func advance(_ generations: UInt64) async throws { try await universe.advance(generations) }
    func frame(_ viewport: Viewport) async throws -> BitGrid { try await universe.frame(viewport) }
    func stateFrame(_ viewport: Viewport) async throws -> (dots: [UInt8], states: Int)? { try await universe.stateFrame(viewport) }
    func collect() async throws -> BitGrid { try await universe.collect() }
    func collectStates() async throws -> StateGrid { try await universe.collectStates() }
    func load(generation: UInt64, states: StateGrid) async throws { try await universe.load(generation: generation, states: states) }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        try await universe.load(generation: generation, cells: cells)
    }

    var viewerInbox: AsyncStream<MessagePump.Incoming> { pump?.inbox ?? AsyncStream { $0.finish() } }

    func send(_ message: Message, toViewer identity: PeerID) { pump?.send(message, to: .viewer(identity)) }
}

extension TesseraError {
    /// Why viewers cannot change the cells of the unbounded plane.
    static let unboundedIsNotEditable = TesseraError("changing the cells needs a bounded board; this run is on the unbounded plane",
                                                     fix: "give --size WxH or a rule suffix such as :P1024,1024")
}
