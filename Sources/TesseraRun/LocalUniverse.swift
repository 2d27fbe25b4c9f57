import TesseraCluster
import TesseraCore
import TesseraPatterns

/// A run stepped in this process: a sparse map of tiles (`LocalPlane`), a bounded
/// board's dense tiles (`LocalBoard`) or a whole-board engine (`WholeBoard`). Beside
/// what any universe does, it counts its cells, reads them in rectangles and writes
/// them. Coordinates are a bounded board's own, or Golly's on the unbounded plane.
protocol LocalUniverse: Actor, Universe {
    func countPopulation() async throws -> Int
    /// What a viewer's `0` fits: the board, or the live cells' bounding box.
    func extent() async throws -> (x: Int, y: Int, width: Int, height: Int)
    /// Whether viewers may change the cells: on a bounded board.
    nonisolated var isEditable: Bool { get }
    /// Where a bounded board's cells live.
    func liveBounds() async throws -> TileRect?
    /// A bounded board's cells in `rect`.
    func cells(in rect: TileRect) async throws -> BitGrid
    func write(_ output: BoardOutput) async throws
    /// The share of the live cells' bounding box that holds tiles; 1 on a dense board.
    func fill() async -> Double
}

extension LocalUniverse {
    var board: (x: Int, y: Int, width: Int, height: Int) { get async { (try? await extent()) ?? (0, 0, 1, 1) } }
    var population: Int { get async { (try? await countPopulation()) ?? 0 } }
    nonisolated var workerCount: Int { 0 }
    var failure: TesseraError? { nil }
}

extension TesseraError {
    /// Why viewers cannot change the cells of the unbounded plane.
    static let unboundedIsNotEditable = TesseraError("changing the cells needs a bounded board; this run is on the unbounded plane",
                                                     fix: "give --size WxH or a rule suffix such as :P1024,1024")
}
