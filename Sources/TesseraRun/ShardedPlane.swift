import TesseraCluster
import TesseraCore
import TesseraWire

/// A sparse plane spread over the workers as shards (`ShardPlan`), as viewers and frame
/// recordings see it: viewports in Golly's coordinates on the unbounded plane, in the
/// board's own on a bounded grid; `0` fits the live cells (or the board). Each frame
/// is drawn by every shard from its tiles in view, and nothing else is read. The cells
/// cannot be changed from a viewer: edits, patterns, saves and rewinds need a board
/// whose tiles the coordinator can collect and load.
struct ShardedPlane: Universe {
    let coordinator: Coordinator
    let balancing: Balancing
    /// The bounded grid, or nil on the unbounded plane.
    let grid: BoardShape?

    var board: (x: Int, y: Int, width: Int, height: Int) {
        get async {
            if let grid { return (0, 0, grid.width, grid.height) }
            return Viewport.board(fitting: (try? await coordinator.shardFigures())?.bounds)
        }
    }

    /// The tiles there are, and no rows: a sparse map has no columns and rows of tiles.
    var tiles: (columns: Int, rows: Int) { get async { ((try? await coordinator.shardFigures())?.tiles ?? 0, 0) } }
    var isEditable: Bool { false }
    var workerCount: Int { coordinator.workerCount }
    var failure: TesseraError? { get async { await coordinator.failure } }
    var generation: UInt64 { get async { await coordinator.generation } }
    /// As the shards last reported: asked for where they have not since they were dealt.
    var population: Int {
        get async {
            _ = try? await coordinator.shardFigures()
            return await coordinator.population
        }
    }

    func advance(_ generations: UInt64) async throws { try await coordinator.advance(generations, balancing: balancing) }
    func frame(_ viewport: Viewport) async throws -> BitGrid { try await coordinator.frame(viewport) }
    func collect() async throws -> BitGrid { throw notEditable }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws { throw notEditable }

    private var notEditable: TesseraError { grid == nil ? .unboundedIsNotEditable : .shardsAreNotEditable }
}

extension TesseraError {
    /// Why viewers cannot change the cells of a sparse plane on workers.
    static let shardsAreNotEditable = TesseraError("changing the cells of a sparse plane spread over workers is not supported",
                                                   fix: "give --workers 0 to edit it in this process, or a --size that fits in memory")
}
