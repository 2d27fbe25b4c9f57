import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles

/// A bounded board's tiles as actors in this process, trading halos in memory: its
/// head start, and its `--workers 0` run where it steps dense.
actor LocalBoard: LocalUniverse {
    private var cluster: TileCluster
    private var setup: RunSetup
    private(set) var generation: UInt64

    init(_ setup: RunSetup) async throws {
        cluster = try await Self.tiles(of: setup)
        (self.setup, generation) = (setup, setup.generation)
    }

    private static func tiles(of setup: RunSetup) async throws -> TileCluster {
        try setup.checkTiles()
        let cells = TileStart.painted(setup.start, board: setup.shape)
        return try await TileCluster(tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: setup.generation) { _ in cells }
    }

    func advance(_ generations: UInt64) async throws {
        try await cluster.run(generations: generations)
        generation += generations
    }

    func liveBounds() async throws -> TileRect? { try await cluster.liveBounds() }
    func cells(in rect: TileRect) async throws -> BitGrid { try await cluster.cells(in: rect) }

    func countPopulation() async throws -> Int { try await cluster.population() }
    func fill() -> Double { 1 }

    // MARK: As viewers see it

    func extent() -> (x: Int, y: Int, width: Int, height: Int) { (0, 0, setup.shape.width, setup.shape.height) }
    var tiles: (columns: Int, rows: Int) { (cluster.tiling.columns, cluster.tiling.rows) }
    func frame(_ viewport: Viewport) async throws -> BitGrid { try await cluster.dots(in: viewport) }
    nonisolated var isEditable: Bool { true }
    func collect() async throws -> BitGrid { try await cluster.board() }

    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws {
        let setup = self.setup
        cluster = try await TileCluster(tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: generation) { cells($0) }
        self.generation = generation
    }

    func write(_ output: BoardOutput) async throws {
        try await output.write(generation: generation, live: try await cluster.liveBounds()) { try await cluster.cells(in: $0) }
    }
}
