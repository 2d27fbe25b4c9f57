import TesseraCluster
import TesseraCore
import TesseraWire

/// The unbounded plane as viewers see it: viewports in Golly's coordinates, over a
/// window that moves under them as the pattern goes (`UnboundedPlane`). `0` fits the
/// live cells' bounding box. The cells cannot be changed from a viewer here: edits,
/// patterns, saves and rewinds need a bounded board.
actor ViewedPlane: ClusterDriver {
    private let coordinator: Coordinator
    private let window: ClusterWindow
    private(set) var position: UnboundedPlane.Position
    nonisolated let workerCount: Int
    nonisolated var isEditable: Bool { false }

    init(coordinator: Coordinator, window: ClusterWindow, setup: RunSetup) {
        (self.coordinator, self.window) = (coordinator, window)
        position = UnboundedPlane.Position(setup: setup)
        workerCount = coordinator.workerCount
    }

    var board: (x: Int, y: Int, width: Int, height: Int) {
        // An empty plane: the origin, where a pattern without a position starts.
        guard let live = position.bounds else { return (0, 0, 1, 1) }
        let far = Viewport.maxCoordinate
        return (min(max(live.left, -far), far), min(max(live.top, -far), far), live.width, live.height)
    }

    var tiles: (columns: Int, rows: Int) { (position.setup.tiling.columns, position.setup.tiling.rows) }
    var generation: UInt64 { position.generation }
    var failure: TesseraError? { get async { await coordinator.failure } }
    var population: Int { get async { position.live == nil ? 0 : await coordinator.population } }

    func advance(_ generations: UInt64) async throws {
        position = try await UnboundedPlane.advance(generations, from: position, on: window)
    }

    /// The window's part of `viewport`: the viewport moved into the window's own
    /// coordinates (a window is at most 2³¹ cells a side and a viewport 2⁴⁴, so one that
    /// meets the window is well within a viewport's limits there).
    func frame(_ viewport: Viewport) async throws -> BitGrid {
        let shape = position.setup.shape
        let span = (viewport.width * viewport.cellsPerDot, viewport.height * viewport.cellsPerDot)
        let (dx, dy) = (viewport.x.subtractingReportingOverflow(shape.left), viewport.y.subtractingReportingOverflow(shape.top))
        guard !dx.overflow, !dy.overflow, dx.partialValue < shape.width, dy.partialValue < shape.height,
              dx.partialValue + span.0 > 0, dy.partialValue + span.1 > 0 else {
            return BitGrid(width: viewport.width, height: viewport.height)
        }
        return try await coordinator.frame(Viewport(x: dx.partialValue, y: dy.partialValue, cellsPerDot: viewport.cellsPerDot,
                                                    width: viewport.width, height: viewport.height))
    }

    func collect() async throws -> BitGrid { throw Self.bounded }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws { throw Self.bounded }

    private static let bounded = TesseraError("changing the cells needs a bounded board; this run is on the unbounded plane",
                                              fix: "give --size WxH or a rule suffix such as :P1024,1024")

    nonisolated var viewerInbox: AsyncStream<MessagePump.Incoming> { coordinator.viewerInbox }

    nonisolated func send(_ message: Message, toViewer identity: PeerID) { coordinator.send(message, toViewer: identity) }
}
