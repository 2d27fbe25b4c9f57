import Testing
import TesseraCore
@testable import TesseraTiles

/// What a sparse board costs: memory for what is alive, halo bytes for what
/// changed at the borders. Both fail if a change makes a huge, mostly empty board pay
/// for its area again.
@Suite struct SparseCostTests {
    static let acorn = [(1, 0), (3, 1), (0, 2), (1, 2), (4, 2), (5, 2), (6, 2)]

    func cluster(_ size: Int, tiles: (Int, Int), halo: Int, cells: [(Int, Int)], at origin: (Int, Int),
                 topology: Topology = .plane) async throws -> TileCluster {
        let shape = BoardShape(width: size, height: size, topology: topology)
        let tiling = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1)
        var pattern = BitGrid(width: 8, height: 8)
        for (x, y) in cells { pattern[x, y] = true }
        let start = TileStart.painted(StartingCells(soup: nil, overlay: Overlay(cells: pattern, x: origin.0, y: origin.1)), board: shape)
        return try await TileCluster(tiling: tiling, rule: .life, halo: halo) { _ in start }
    }

    /// Acorn on a 32768² plane, cut through its middle both ways: the tiles hold a few
    /// MiB, not the 256 their area would take, and the halos of 32768 cells that run
    /// past empty space touch none of it.
    @Test(arguments: [(1, 2), (2, 1), (2, 2)])
    func memoryFollowsWhatIsAlive(tiles: (Int, Int)) async throws {
        let big = try await cluster(32768, tiles: tiles, halo: 128, cells: Self.acorn, at: (16382, 16382))
        try await big.run(generations: 1000)
        let resident = try #require(await big.residentBytes())
        let area = 2 * 32768 * 32768 / 8  // two buffers of the board's cells
        // Huge pages round each buffer's live rows up to 2 MiB, two at most here (where
        // the buffer's pages fall depends on where the system maps it): 32 MiB at worst.
        #expect(resident <= area / 8, "\(resident >> 20) MiB of \(area >> 20) MiB")
        // The same acorn on a small plane, where nothing reaches the edge in 1000 generations.
        let small = try await cluster(1024, tiles: (1, 1), halo: 32, cells: Self.acorn, at: (510, 510))
        try await small.run(generations: 1000)
        let expected = try await small.board().cropped(x: 12, y: 12, width: 1000, height: 1000)
        #expect(try await big.board(rows: 15884..<16884).cropped(x: 15884, y: 0, width: 1000, height: 1000) == expected)
    }

    /// Before: a glider crossing a huge board kept every row it ever crossed in memory
    /// (acorn for 200000 generations on a 65536² plane held 1 GiB, and took 2.3 s
    /// instead of 0.3). Its wake is given back: a glider 4096 rows on holds what it
    /// holds where it is now, a few frames of 2 MiB, not the 16 MiB of 2 MiB frames its
    /// path crossed in each buffer.
    @Test func aGlidersWakeHoldsNoMemory() async throws {
        let glider = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]
        let tiles = try await cluster(32768, tiles: (1, 1), halo: 32, cells: glider, at: (100, 100))
        try await tiles.run(generations: 16384)
        let resident = try #require(await tiles.residentBytes())
        #expect(resident <= 16 << 20, "\(resident >> 20) MiB")
        #expect(try await tiles.population() == 5)
        #expect(try await tiles.liveBounds() == TileRect(x: 4196, y: 4196, width: 3, height: 3))
    }

    /// A blinker across a tile border: after the first two rounds a period-2
    /// border sends nothing, and how long the border is does not matter.
    @Test(arguments: [2048, 8192])
    func quietBordersCostHeadersOnly(size: Int) async throws {
        let blinker = [(0, 0), (0, 1), (0, 2)]
        let tiles = try await cluster(size, tiles: (2, 2), halo: 32, cells: blinker, at: (size / 2 + 100, size / 2 - 1),
                                      topology: .torus)
        try await tiles.run(generations: 64)
        let first = await tiles.sentBytes()
        // The first round's whole strips carry only the stretches around the blinker, the
        // second the stretches its first generations changed (it was new then, and a
        // block that held written cells counts as changed in its first generation): a few
        // pieces of 256 cells × 32 deep, at two generations, and corners.
        #expect(first > 0 && first <= 9 * 2 * 256 * 32 / 8, "\(first) bytes")
        try await tiles.run(generations: 320)
        #expect(await tiles.sentBytes() == first)
        #expect(try await tiles.population() == 3)
    }
}
