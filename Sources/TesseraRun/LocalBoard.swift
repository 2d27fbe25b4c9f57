import TesseraCluster
import TesseraCore
import TesseraTiles

/// A board's tiles as actors in this process, trading halos in memory: a bounded
/// board's head start and `--workers 0` run, and (as a `WindowRunner`) one window of the
/// unbounded plane, which the window logic's tests step without workers.
actor LocalBoard: WindowRunner {
    private var cluster: TileCluster

    init(_ setup: RunSetup) async throws {
        cluster = try await Self.tiles(of: setup)
    }

    private static func tiles(of setup: RunSetup) async throws -> TileCluster {
        let cells = TileStart.painted(setup.start, board: setup.shape)
        return try await TileCluster(tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: setup.generation) { _ in cells }
    }

    func advance(_ generations: UInt64) async throws { try await cluster.run(generations: generations) }
    func liveBounds() async throws -> TileRect? { try await cluster.liveBounds() }
    func liveBounds(in rect: TileRect) async throws -> TileRect? { try await cluster.liveBounds(in: rect) }
    func cells(in rect: TileRect) async throws -> BitGrid { try await cluster.cells(in: rect) }
    func move(to setup: RunSetup) async throws { cluster = try await Self.tiles(of: setup) }
    func tileCount() async -> Int { cluster.tiling.tiles.count }
    func population() async throws -> Int { try await cluster.population() }
}
