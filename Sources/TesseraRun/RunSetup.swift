import Foundation
import TesseraCluster
import TesseraCore
import TesseraPatterns

/// A resolved run: the board, the rule, the tiles and the starting cells.
package struct RunSetup: Sendable {
    /// A side of the board when neither a rule suffix nor `--size` gives one.
    package static let defaultSide = 1024
    /// Patterns whose cells take more bytes than this (16 MiB) are cut into tiles by the
    /// coordinator and sent tile by tile; smaller ones go whole to every worker, which
    /// cuts its own.
    package static let largestSharedPattern = 16 << 20

    package let name: String
    package let shape: BoardShape
    package let rule: Rule
    package let tiling: Tiling
    package let halo: Int
    package let generation: UInt64
    package let pattern: Pattern?
    package let soup: Soup?

    package init(name: String, shape: BoardShape, rule: Rule, tiling: Tiling, halo: Int, generation: UInt64,
                 pattern: Pattern?, soup: Soup?) {
        (self.name, self.shape, self.rule, self.tiling, self.halo) = (name, shape, rule, tiling, halo)
        (self.generation, self.pattern, self.soup) = (generation, pattern, soup)
    }

    /// What a user chose; anything nil comes from the pattern file, else the defaults.
    package struct Choices: Sendable {
        package var pattern: (pattern: Pattern, name: String)?
        /// A rule, and the bounded grid its suffix names.
        package var rule: (rule: Rule, board: BoardShape?)?
        package var topology: Topology?
        package var size: (width: Int, height: Int)?
        package var soup: Soup?
        package var tiles: (columns: Int, rows: Int)?
        package var halo: Int?

        package init() {}
    }

    /// Resolves `choices` the way Golly would read the same pattern and rule, with one
    /// tile per worker (`defaultTiles`) unless tiles were chosen.
    package init(_ choices: Choices, defaultTiles count: Int) throws {
        let pattern = choices.pattern?.pattern
        guard pattern != nil || choices.soup != nil else {
            throw TesseraError("nothing to run", fix: "give a pattern name, a pattern file, or --soup DENSITY")
        }
        var board = pattern?.board
        if let bounded = choices.rule?.board { board = bounded }
        let topology = choices.topology ?? board?.topology ?? .torus
        let (width, height) = choices.size ?? (board?.width ?? Self.defaultSide, board?.height ?? Self.defaultSide)
        guard width <= BoardShape.maxSide, height <= BoardShape.maxSide,
              width.multipliedReportingOverflow(by: height).overflow == false else {
            throw TesseraError("board \(width)x\(height) is too large", fix: "give a smaller --size")
        }
        let shape = BoardShape(width: width, height: height, topology: topology)
        let tiling: Tiling
        if let tiles = choices.tiles {
            tiling = try Tiling(shape: shape, columns: tiles.columns, rows: tiles.rows)
        } else {
            let (columns, rows) = RunPlan.defaultTiles(count: max(1, count), shape: shape)
            tiling = try Tiling(shape: shape, columns: columns, rows: rows)
        }
        let halo = choices.halo ?? tiling.defaultHalo
        try tiling.validate(halo: halo)
        try pattern?.checkFits(on: shape)
        self.init(name: choices.pattern?.name ?? "soup", shape: shape, rule: choices.rule?.rule ?? pattern?.rule ?? .life,
                  tiling: tiling, halo: halo, generation: pattern?.generation ?? 0, pattern: pattern, soup: choices.soup)
    }

    /// The soup (if any) with the pattern laid over it.
    package var start: StartingCells { StartingCells(soup: soup, overlay: pattern?.overlay(on: shape)) }

    /// The starting cells of one tile.
    package func cells(in rect: TileRect) -> BitGrid {
        start.cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height, of: shape)
    }

    /// The generation after `generations` more, or an error if that is past what Tessera counts.
    package func end(after generations: UInt64) throws -> UInt64 {
        let (end, overflow) = generation.addingReportingOverflow(generations)
        guard !overflow else {
            throw TesseraError("the pattern is at generation \(generation): \(generations) more is past the last generation Tessera counts (2^64 - 1)",
                               fix: "run fewer --generations")
        }
        return end
    }

    /// The plan the coordinator runs: workers make their own cells from a soup and a
    /// pattern up to 16 MiB; a larger pattern is cut here, tile by tile.
    package func plan(generations: UInt64) -> RunPlan {
        let setup = self
        var overlay = start.overlay, cells: (@Sendable (TileRect) -> BitGrid)? = nil
        if let large = overlay, large.cells.words.count * 8 > Self.largestSharedPattern {
            overlay = nil
            cells = { @Sendable rect in setup.cells(in: rect) }
        }
        return RunPlan(tiling: tiling, rule: rule, halo: halo, generation: generation, generations: generations,
                       soup: soup, overlay: overlay, cells: cells)
    }
}
