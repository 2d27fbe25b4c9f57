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
        guard var live = position.bounds else { return Viewport.board(fitting: nil) }
        if let atlas = position.setup.atlas {
            // Each window's cells may be as far as they could spread since it was made.
            let elapsed = position.generation - position.setup.generation
            live = CellBounds.enclosing(atlas.islands.map { $0.golly($0.reach(after: elapsed)) }) ?? live
        }
        return Viewport.board(fitting: live)
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
        if let atlas = position.setup.atlas {
            // Windows side by side on the atlas lie far apart on the plane: each is
            // drawn from its own cells only.
            var dots = BitGrid(width: viewport.width, height: viewport.height)
            for island in atlas.islands {
                let shape = BoardShape(width: island.window.width, height: island.window.height, topology: .infinite,
                                       left: island.window.left - island.x, top: island.window.top - island.y)
                dots.formUnion(try await frame(viewport, on: shape, clip: island.rect))
            }
            return dots
        }
        return try await frame(viewport, on: position.setup.shape, clip: nil)
    }

    /// `viewport` (Golly's coordinates) over the cells of `shape`, whose corner is the
    /// board's: the board's frame with the viewport moved into its coordinates.
    private func frame(_ viewport: Viewport, on shape: BoardShape, clip: TileRect?) async throws -> BitGrid {
        let extent = clip ?? TileRect(x: 0, y: 0, width: shape.width, height: shape.height)
        let span = (viewport.width * viewport.cellsPerDot, viewport.height * viewport.cellsPerDot)
        let (dx, dy) = (viewport.x.subtractingReportingOverflow(shape.left), viewport.y.subtractingReportingOverflow(shape.top))
        guard !dx.overflow, !dy.overflow, dx.partialValue < extent.x + extent.width, dy.partialValue < extent.y + extent.height,
              dx.partialValue + span.0 > extent.x, dy.partialValue + span.1 > extent.y else {
            return BitGrid(width: viewport.width, height: viewport.height)
        }
        return try await coordinator.frame(Viewport(x: dx.partialValue, y: dy.partialValue, cellsPerDot: viewport.cellsPerDot,
                                                    width: viewport.width, height: viewport.height), clip: clip)
    }

    func collect() async throws -> BitGrid { throw TesseraError.unboundedIsNotEditable }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        throw TesseraError.unboundedIsNotEditable
    }

    nonisolated var viewerInbox: AsyncStream<MessagePump.Incoming> { coordinator.viewerInbox }

    nonisolated func send(_ message: Message, toViewer identity: PeerID) { coordinator.send(message, toViewer: identity) }
}
