import Testing
import TesseraCore
@testable import TesseraTiles

/// Rules of more than two states on tiles: every tiling and halo depth gives the board
/// the whole-board step gives, on a torus and a plane, and a moved tile goes on as it was.
@Suite struct StateTilesTests {
    /// Generations (Moore, hexagonal, von Neumann), Larger than Life with history, and
    /// rule files (LifeHistory's table, WireWorld's von Neumann neighbours aside).
    static let rules = ["345/3/6", "23/3/8H", "2/13/4V", "R2,C4,M1,S3..6,B4..5,NM", "LifeHistory", "WireWorld"]

    /// A soup in every state the rule has.
    func soup(_ rule: Rule, width: Int, height: Int) throws -> StateGrid {
        var grid = StateGrid(width: width, height: height, states: rule.states)
        let lit = try Soup(density: 0.45, seed: 23).cells(x: 0, y: 0, width: width, height: height)
        let shade = try Soup(density: 0.5, seed: 24).cells(x: 0, y: 0, width: width, height: height)
        for y in 0..<height {
            for x in 0..<width where lit[x, y] { grid[x, y] = shade[x, y] ? 1 : 1 + (x * 7 + y * 3) % (rule.states - 1) }
        }
        return grid
    }

    func whole(_ board: StateGrid, _ rule: Rule, wraps: Bool, generations: Int) throws -> StateGrid {
        let step = try #require(rule.stateStep())
        var (cells, next) = (board, board)
        for _ in 0..<generations {
            try step(cells, &next, wraps)
            swap(&cells, &next)
        }
        return cells
    }

    /// A rule by name: Golly's notation, else a rule file of Golly's collection.
    func rule(_ text: String) throws -> Rule {
        if let tree = try RuleFiles.tree(named: text) { return Rule(tree: tree) }
        return try Rule(parsing: text)
    }

    @Test(arguments: rules)
    func everyTilingAndHaloGivesTheWholeBoardsStates(ruleText: String) async throws {
        if ["LifeHistory", "WireWorld"].contains(ruleText), RuleFiles.path(named: ruleText) == nil { return }
        let rule = try rule(ruleText)
        #expect(rule.steppedAsStates)
        let board = try soup(rule, width: 83, height: 47)
        for topology in [Topology.torus, .plane] {
            let expected = try whole(board, rule, wraps: topology == .torus, generations: 11)
            #expect(expected != board && expected.occupied.population > 0, "\(ruleText) \(topology): a board that changes")
            let shape = BoardShape(width: board.width, height: board.height, topology: topology)
            for (tiles, halo) in [((1, 1), 1), ((2, 1), 3), ((3, 2), 2), ((4, 3), 1), ((2, 2), 4)] {
                let tiling = try Tiling(shape: shape, columns: tiles.0, rows: tiles.1)
                guard halo * rule.reach <= tiling.smallestSide else { continue }
                let tiled = try await TileCluster(tiling: tiling, rule: rule, halo: halo) { _ in
                    .painted(StartingCells(soup: nil, overlays: [Overlay(states: board, x: 0, y: 0)]), board: shape)
                }
                try await tiled.run(generations: 11)
                #expect(try await tiled.states() == expected, "\(ruleText) \(topology) \(tiles) halo \(halo)")
                #expect(try await tiled.population() == expected.occupied.population)
            }
        }
    }
}

extension StateTilesTests {
    /// Planes from a peer or a file may hold states past the rule's (6 states in 3
    /// planes can hold 6 and 7); a rule tree would read past its nodes, so they are
    /// found and refused.
    @Test func statesPastTheRuleAreFoundAndRefused() async throws {
        var grid = StateGrid(width: 70, height: 3, states: 6)
        grid[69, 2] = 5
        #expect(grid.holdsOnly(below: 6))
        for past in [6, 7] {
            var bad = grid
            bad[3, 1] = past
            #expect(!bad.holdsOnly(below: 6), "state \(past)")
            #expect(bad.holdsOnly(below: 8))
        }
        let rule = try Rule(parsing: "345/3/6")
        let rect = TileRect(x: 0, y: 0, width: 70, height: 3)
        let tile = try TileActor(id: TileID(column: 0, row: 0), rect: rect, depth: 1, rule: rule, deadSides: [],
                                 cells: BitGrid(width: 70, height: 3))
        await tile.connect([.north: LocalHaloLink(target: tile)])
        var edge = StateGrid(width: 70, height: 1, states: 6)
        edge[10, 0] = 7
        let strip = HaloStrip(tile: tile.id, side: .north, generation: 0, pieces: [HaloStrip.Piece(offset: 0, layers: edge.layers)],
                              whole: true)
        await #expect(throws: TesseraError.self) { try await tile.receive(strip) }
        var cells = StateGrid(width: 70, height: 3, states: 6)
        cells[0, 0] = 6
        await #expect(throws: TesseraError.self) { try await tile.load(cells.occupied, states: cells, generation: 0) }
    }
}
