import Testing
import TesseraCore
@testable import TesseraTiles

/// Larger than Life on tiles: halos `range` cells a generation deep, every tiling and
/// depth giving the board that the whole-board step gives.
@Suite struct LargerThanLifeTilesTests {
    /// Moore, von Neumann and disc neighbourhoods, M0 and M1, and a B0 rule (which
    /// Golly allows on a bounded grid).
    static let rules = ["R5,C0,M1,S34..58,B34..45,NM", "R2,C0,M0,S3..5,B3..4,NN", "R3,C0,M1,S9..18,B9..13,NC",
                        "R2,C0,M1,S0..12,B0..5,NM", "R1,C0,M1,S3..4,B3..3,NM"]

    /// The board after `generations` whole-board steps, a torus or dead beyond the edges.
    func whole(_ board: BitGrid, _ rule: LargerThanLife, wraps: Bool, generations: Int) throws -> BitGrid {
        var (cells, next) = (board, BitGrid(width: board.width, height: board.height))
        for _ in 0..<generations {
            try rule.step(cells, into: &next, wraps: wraps)
            swap(&cells, &next)
        }
        return cells
    }

    @Test(arguments: rules)
    func everyTilingAndHaloGivesTheWholeBoardsCells(ruleText: String) async throws {
        let rule = try Rule(parsing: ruleText)
        let ltl = try #require(rule.largerThanLife)
        let board = try Soup(density: 0.4, seed: 17).cells(x: 0, y: 0, width: 97, height: 61)
        for topology in [Topology.torus, .plane] {
            let expected = try whole(board, ltl, wraps: topology == .torus, generations: 13)
            #expect(expected != board && expected.population > 0, "\(ruleText) \(topology): a board that changes")
            let shape = BoardShape(width: board.width, height: board.height, topology: topology)
            for tiles in [(1, 1), (2, 1), (3, 2), (4, 3), (2, 2)] {
                let tiling = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1)
                let deepest = tiling.smallestSide / ltl.range
                for halo in Set([1, 2, 4, deepest].filter { $0 >= 1 && $0 <= deepest }) {
                    for kernel in Kernel.Implementation.allCases where kernel != .avx2 || Kernel.best == .avx2 {
                        let cluster = try await TileCluster(tiling: tiling, rule: rule, halo: halo, implementation: kernel) {
                            board.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
                        }
                        try await cluster.run(generations: 13)
                        #expect(try await cluster.board() == expected, "\(ruleText) \(topology) \(tiles) halo \(halo) \(kernel)")
                    }
                }
            }
        }
    }

    /// A halo is `range` cells a generation: one deeper than a tile can fill is refused,
    /// and the default keeps the margin of cells that the 3x3 rules' does.
    @Test func haloesAreRangeCellsAGeneration() async throws {
        let tiling = try Tiling(shape: BoardShape(width: 200, height: 120, topology: .torus), columns: 2, rows: 2)
        let rule = try Rule(parsing: "R5,C0,M1,S34..58,B34..45,NM")
        try tiling.validate(halo: 12, reach: 5)
        #expect(throws: TesseraError.self) { try tiling.validate(halo: 13, reach: 5) }
        #expect(tiling.defaultHalo(reach: 1) == tiling.defaultHalo && tiling.defaultHalo(reach: 5) == 1)
        let wide = try Tiling(shape: BoardShape(width: 8192, height: 8192, topology: .torus), columns: 2, rows: 2)
        #expect(wide.defaultHalo == 128 && wide.defaultHalo(reach: 5) == 25 && wide.defaultHalo(reach: 100) == 1)
        do {
            _ = try await TileCluster(tiling: tiling, rule: rule, halo: 13) { BitGrid(width: $0.width, height: $0.height) }
            Issue.record("a 65-cell margin on 60-cell tiles was accepted")
        } catch let error as TesseraError {
            #expect("\(error)".contains("halo depth 13 (5 cells a generation"), "\(error)")
        }
    }
}
