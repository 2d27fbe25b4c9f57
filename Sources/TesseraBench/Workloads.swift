import FoundationEssentials
import TesseraCore
import TesseraPatterns
import TesseraRun

/// One workload of `tessera bench workloads`: a pattern file, how far to run it, and
/// which of Golly's algorithms to measure beside Tessera.
package struct Workload: Sendable {
    package let name: String
    /// What the workload shows, for the table's reader.
    package let summary: String
    /// The bounded grid the file's rule names; nil: none, so the pattern runs on Golly's
    /// unbounded plane.
    package let board: BoardShape?
    /// The pattern file's text (RLE; its rule gets the board's suffix).
    package let rle: String
    package let generations: UInt64
    /// Generations run first, untimed, by Tessera, whose result is the timed start (ash).
    package let settle: UInt64
    /// Whether Golly's HashLife is worth measuring too (it loses badly on soups).
    package let hashLife: Bool

    /// The suite docs/performance.md quotes. `scale` below 1 shrinks boards and generations for a
    /// quick look (the tests use it); 1 is the real thing.
    package static func suite(scale: Double = 1) throws -> [Workload] {
        func side(_ n: Int) -> Int { max(256, Int(Double(n) * scale) / 256 * 256) }
        func gens(_ n: UInt64) -> UInt64 { max(10, UInt64(Double(n) * scale)) }
        let acorn = "bo$3bo$2o2b3o!", rabbits = "o3b3o$3o2bo$bo!"
        let gun = "24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!"
        let soupSide = side(2048), plane = side(8192)
        let soup = try Soup(density: 0.35, seed: 7)
        return [
            Workload(name: "dense-torus-soup", summary: "a chaotic torus soup: every cell changes",
                     board: BoardShape(width: soupSide, height: soupSide, topology: .torus),
                     rle: pattern(soup.cells(x: 0, y: 0, width: soupSide, height: soupSide)), generations: gens(500),
                     settle: 0, hashLife: false),
            Workload(name: "settling-soup", summary: "a soup settling in a plane 16 times its area",
                     board: BoardShape(width: plane, height: plane, topology: .plane),
                     rle: pattern(soup.cells(x: 0, y: 0, width: soupSide, height: soupSide)), generations: gens(2000),
                     settle: 0, hashLife: false),
            Workload(name: "ash", summary: "the settled soup's ash, mostly still lifes and blinkers",
                     board: BoardShape(width: plane, height: plane, topology: .plane),
                     rle: pattern(soup.cells(x: 0, y: 0, width: soupSide, height: soupSide)), generations: gens(4000),
                     settle: gens(6000), hashLife: true),
            Workload(name: "acorn-16k", summary: "a methuselah on a huge plane",
                     board: BoardShape(width: side(16384), height: side(16384), topology: .plane),
                     rle: "x = 7, y = 3\n" + acorn, generations: gens(5206), settle: 0, hashLife: true),
            Workload(name: "acorn-64k", summary: "the same on a plane 16 times larger",
                     board: BoardShape(width: side(65536), height: side(65536), topology: .plane),
                     rle: "x = 7, y = 3\n" + acorn, generations: gens(5206), settle: 0, hashLife: true),
            Workload(name: "rabbits-16k", summary: "a longer methuselah",
                     board: BoardShape(width: side(16384), height: side(16384), topology: .plane),
                     rle: "x = 7, y = 3\n" + rabbits, generations: gens(17331), settle: 0, hashLife: true),
            Workload(name: "gosper-gun", summary: "a glider gun filling a plane with gliders",
                     board: BoardShape(width: side(4096), height: side(4096), topology: .plane),
                     rle: "x = 36, y = 9\n" + gun, generations: gens(20000), settle: 0, hashLife: true),
            Workload(name: "spaceship-fleet", summary: "spaceships crossing tile borders on a torus",
                     board: BoardShape(width: side(4096), height: side(4096), topology: .torus),
                     rle: fleet(side: side(4096)), generations: gens(4000), settle: 0, hashLife: true),
            // Golly's default for a file whose rule names no grid: where QuickLife needs no
            // emulated edge, and Tessera's tiles follow the pattern.
            Workload(name: "acorn-unbounded", summary: "the methuselah on Golly's unbounded plane",
                     board: nil, rle: "x = 7, y = 3\n" + acorn, generations: gens(5206), settle: 0, hashLife: true),
            Workload(name: "rabbits-unbounded", summary: "the longer methuselah on Golly's unbounded plane",
                     board: nil, rle: "x = 7, y = 3\n" + rabbits, generations: gens(17331), settle: 0, hashLife: true),
            Workload(name: "gun-unbounded", summary: "the gun's gliders flying off across the unbounded plane",
                     board: nil, rle: "x = 36, y = 9\n" + gun, generations: gens(20000), settle: 0, hashLife: true),
        ]
    }

    /// A grid as RLE body text, with its size line but no rule (the suite adds the board's).
    private static func pattern(_ grid: BitGrid) -> String {
        var encoder = RLE.Encoder(shape: BoardShape(width: grid.width, height: grid.height, topology: .plane),
                                  rule: .life, generation: 0)
        let text = encoder.encode(grid)
        // Keep the body; the header is written for the workload's board.
        let body = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)[2]
        return "x = \(grid.width), y = \(grid.height)\n" + body
    }

    /// Lightweight spaceships and gliders spread over the board, headed every way.
    private static func fleet(side: Int) -> String {
        var grid = BitGrid(width: side, height: side)
        let lwss = [(1, 0), (4, 0), (0, 1), (0, 2), (4, 2), (0, 3), (1, 3), (2, 3), (3, 3)]
        let glider = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]
        var generator = SplitMix64(seed: 11)
        for i in 0..<48 {
            let (x, y) = (Int(generator.next() % UInt64(side - 16)), Int(generator.next() % UInt64(side - 16)))
            for (dx, dy) in i.isMultiple(of: 2) ? lwss : glider {
                // Mirror every other ship so they cross each other's paths.
                let mx = i % 4 < 2 ? dx : 4 - dx
                grid[x + mx, y + dy] = true
            }
        }
        return pattern(grid)
    }

    /// The pattern file for this workload's board, placed as Golly places it (centred).
    package var file: String {
        let lines = rle.split(separator: "\n", maxSplits: 1)
        return lines[0] + ", rule = B3/S23\(board?.gollySuffix ?? "")\n" + lines[1] + "\n"
    }

    /// The board, as the table names it.
    package var boardName: String { board?.description ?? "unbounded plane" }
}
