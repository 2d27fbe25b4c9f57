import TesseraCore

/// The rule applied cell by cell, straight from its definition: the reference the
/// bit-sliced kernel and every tiling are checked against.
enum NaiveLife {
    static func step(_ grid: BitGrid, rule: Rule, topology: Topology) -> BitGrid {
        var next = BitGrid(width: grid.width, height: grid.height)
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                var neighbourhood = 0
                for dy in -1...1 {
                    for dx in -1...1 {
                        var nx = x + dx, ny = y + dy
                        if topology == .torus {
                            nx = (nx + grid.width) % grid.width
                            ny = (ny + grid.height) % grid.height
                        } else if nx < 0 || ny < 0 || nx >= grid.width || ny >= grid.height {
                            continue
                        }
                        if grid[nx, ny] { neighbourhood |= 1 << ((dy + 1) * 3 + dx + 1) }
                    }
                }
                next[x, y] = rule.next(neighbourhood)
            }
        }
        return next
    }

    static func run(_ grid: BitGrid, rule: Rule, topology: Topology, generations: Int) -> BitGrid {
        var grid = grid
        for _ in 0..<generations { grid = step(grid, rule: rule, topology: topology) }
        return grid
    }

    /// The cells Golly stores after `generations` of a rule with B0: stepped by the
    /// rules of `Rule.steps`, generation by generation.
    static func runStored(_ grid: BitGrid, rule: Rule, topology: Topology, generations: Int) -> BitGrid {
        var grid = grid
        for g in 0..<generations { grid = step(grid, rule: rule.steps.from(UInt64(g)), topology: topology) }
        return grid
    }

    static func inverted(_ grid: BitGrid) -> BitGrid {
        var inverse = BitGrid(width: grid.width, height: grid.height)
        for y in 0..<grid.height {
            for x in 0..<grid.width { inverse[x, y] = !grid[x, y] }
        }
        return inverse
    }
}
