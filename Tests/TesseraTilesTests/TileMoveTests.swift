import Testing
import TesseraCore
@testable import TesseraTiles

/// A tile rebuilt from its `TileState` elsewhere carries on bit for bit: its cells, its
/// skipping, and the strips it trades with neighbours that only send what changed.
@Suite struct TileMoveTests {
    /// Tiles of `board` as actors linked in memory; `move` rebuilds one from its state,
    /// as a worker adopting it does, and relinks its neighbours.
    final class Tiles {
        let tiling: Tiling, rule: Rule, halo: Int
        var actors: [TileID: TileActor] = [:]

        init(_ board: BitGrid, topology: Topology, tiles: (Int, Int), rule: Rule, halo: Int) async throws {
            tiling = try Tiling(shape: BoardShape(width: board.width, height: board.height, topology: topology),
                                columns: tiles.0, rows: tiles.1)
            (self.rule, self.halo) = (rule, halo)
            for tile in tiling.tiles {
                let r = tiling.rect(of: tile)
                actors[tile] = try make(tile, .cells(board.cropped(x: r.x, y: r.y, width: r.width, height: r.height)))
            }
            for tile in tiling.tiles { await link(tile) }
        }

        func make(_ tile: TileID, _ start: TileStart, generation: UInt64 = 0) throws -> TileActor {
            try TileActor(id: tile, rect: tiling.rect(of: tile), depth: halo, rule: rule,
                          deadSides: TileCluster.deadSides(of: tile, in: tiling), start: start, generation: generation)
        }

        func link(_ tile: TileID) async {
            var links: [Direction: any HaloLink] = [:]
            for side in Direction.allCases {
                if let other = tiling.neighbour(of: tile, side) { links[side] = LocalHaloLink(target: actors[other]!) }
            }
            await actors[tile]!.connect(links)
        }

        func move(_ tile: TileID) async throws {
            let state = try await actors[tile]!.state()
            actors[tile] = try make(tile, .moved(state), generation: state.generation)
            for side in Direction.allCases {
                guard let other = tiling.neighbour(of: tile, side) else { continue }
                await link(other)
                await actors[other]!.neighboursMoved([side.opposite])
            }
            await link(tile)
        }

        func run(_ generations: UInt64) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for actor in actors.values { group.addTask { try await actor.run(generations: generations) } }
                for try await _ in group {}
            }
        }

        func board() async throws -> BitGrid {
            var board = BitGrid(width: tiling.shape.width, height: tiling.shape.height)
            for (_, actor) in actors {
                try #require(try await actor.cells(in: actor.rect)).cells.copy(into: &board, atX: actor.rect.x, y: actor.rect.y)
            }
            return board
        }
    }

    /// Random tiles move after every round of a sparse board (skipping busy) and a dense
    /// one; the board stays the reference's.
    @Test(arguments: [Topology.torus, .plane], [1, 4])
    func randomMovesEveryRoundChangeNothing(topology: Topology, halo: Int) async throws {
        var generator = SplitMix64(seed: 31)
        for (board, rule) in [(SkippingTests.sparseBoard(width: 600, height: 150, seed: 8), Rule.life),
                              (try Soup(density: 0.35, seed: 3).cells(x: 0, y: 0, width: 300, height: 97), try Rule(parsing: "B36/S23"))] {
            let tiles = try await Tiles(board, topology: topology, tiles: (3, 2), rule: rule, halo: halo)
            var generation = 0
            for round in 0..<12 {
                let step = halo * (1 + round % 3)
                try await tiles.run(UInt64(step))
                generation += step
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    try await tiles.move(tiles.tiling.tiles.randomElement(using: &generator)!)
                }
            }
            let expected = NaiveLife.run(board, rule: rule, topology: topology, generations: generation)
            let got = try await tiles.board()
            #expect(got == expected, "\(topology) halo \(halo) \(rule) after \(generation)")
        }
    }

    @Test func aMovedTileKeepsItsGenerationAndBothBuffers() async throws {
        let board = try Soup(density: 0.4, seed: 1).cells(x: 0, y: 0, width: 300, height: 64)
        let tiles = try await Tiles(board, topology: .torus, tiles: (1, 1), rule: .life, halo: 2)
        try await tiles.run(5)
        let before = try await tiles.actors[TileID(column: 0, row: 0)]!.state()
        #expect(before.generation == 5)
        #expect(before.cells == NaiveLife.run(board, rule: .life, topology: .torus, generations: 5))
        #expect(before.previous == NaiveLife.run(board, rule: .life, topology: .torus, generations: 4))
    }
}
