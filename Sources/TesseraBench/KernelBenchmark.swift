import TesseraCore
import TesseraRun
import TesseraTiles

/// One core stepping an N×N torus soup as one tile, in this process.
package enum KernelBenchmark {
    /// Whether a board of `size` is stepped with temporal blocking unless told otherwise.
    package static func blocksByDefault(size: Int) -> Bool {
        let shape = BoardShape(width: size, height: size, topology: .torus)
        guard let tiling = try? Tiling(shape: shape, columns: 1, rows: 1) else { return false }
        return TileCluster.blockingPays(rect: tiling.rect(of: tiling.tiles[0]), halo: tiling.defaultHalo)
    }

    /// The halo depth (generations per sweep) the board is stepped with.
    package static func depth(size: Int) -> Int {
        (try? Tiling(shape: BoardShape(width: size, height: size, topology: .torus), columns: 1, rows: 1))?.defaultHalo ?? 1
    }

    /// Cell-updates/s over `generations` of `soup` on an N×N torus.
    package static func measure(size: Int, soup: Soup, rule: Rule, generations: UInt64,
                                implementation: Kernel.Implementation, blocking: Bool) async throws -> Double {
        let shape = BoardShape(width: size, height: size, topology: .torus)
        let cells = soup.cells(x: shape.left, y: shape.top, width: size, height: size)
        // The families with engines of their own: the whole board a generation.
        if let ltl = rule.largerThanLife {
            var (board, next) = (cells, BitGrid(width: size, height: size))
            return try timed(size: size, generations: generations) {
                try ltl.step(board, into: &next, wraps: true, using: implementation)
                swap(&board, &next)
            }
        }
        if let generationsRule = rule.generations {
            var board = StateGrid(ones: cells, states: generationsRule.states)
            var next = StateGrid(width: size, height: size, states: generationsRule.states)
            let alive = generationsRule.alive
            return try timed(size: size, generations: generations) {
                try board.step(alive: alive, states: generationsRule.states, into: &next, wraps: true, using: implementation)
                swap(&board, &next)
            }
        }
        let tiling = try Tiling(shape: shape, columns: 1, rows: 1)
        let cluster = try await TileCluster(
            tiling: tiling, rule: rule, halo: tiling.defaultHalo, implementation: implementation, blocking: blocking
        ) { soup.cells(x: shape.left + $0.x, y: shape.top + $0.y, width: $0.width, height: $0.height) }
        let start = ContinuousClock.now
        try await cluster.run(generations: generations)
        return Double(shape.cellCount) * Double(generations) / (ContinuousClock.now - start).seconds
    }

    /// Cell-updates/s of `step` run `generations` times on an N×N board.
    private static func timed(size: Int, generations: UInt64, _ step: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<generations { try step() }
        return Double(size * size) * Double(generations) / (ContinuousClock.now - start).seconds
    }
}
