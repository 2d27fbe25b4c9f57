import ArgumentParser
import Foundation
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles

/// What to run: a pattern or soup, on which board, under which rule.
struct BoardOptions: ParsableArguments {
    @Argument(help: "A built-in pattern name (see 'tessera patterns') or a pattern file (.rle, .cells, Life 1.06).")
    var pattern: String?

    @Option(help: "Board size WxH; overrides the rule's :T/:P suffix. Default 1024x1024.")
    var size: String?

    @Option(help: "torus or plane (dead edges). Default: the file's, else torus.")
    var topology: String?

    @Option(help: "Life-like rule, e.g. B3/S23 or B36/S23:T512,512. Default: the file's, else B3/S23.")
    var rule: String?

    @Option(help: "Fill the board with random cells at this density (0-1) instead of, or under, a pattern.")
    var soup: Double?

    @Option(help: "Seed for --soup (default 1); the same seed gives the same board for every tiling.")
    var seed: UInt64?

    @Option(help: "Tiles as COLUMNSxROWS. Default: one tile per worker.")
    var tiles: String?

    @Option(help: "Halo depth: generations between halo exchanges. Default: from the tile size.")
    var halo: Int?

    @Option(help: "Read options from a TOML file (see configs/); flags given here override it.")
    var config: String?

    static let defaultSide = 1024
    static let configKeys = ["pattern", "size", "topology", "rule", "soup", "seed", "tiles", "halo"]

    /// Fills what the command line left out from the config file.
    mutating func apply(_ config: ConfigFile) throws {
        pattern = pattern ?? config["pattern"]
        size = size ?? config["size"]
        topology = topology ?? config["topology"]
        rule = rule ?? config["rule"]
        tiles = tiles ?? config["tiles"]
        soup = try soup ?? config.number("soup", as: Double.self)
        seed = try seed ?? config.number("seed", as: UInt64.self)
        halo = try halo ?? config.number("halo", as: Int.self)
    }

    /// The board, rule and starting cells these options describe.
    func resolve(defaultTiles count: Int) throws -> Setup {
        var pattern: Pattern? = nil
        var name = "soup"
        if let source = self.pattern {
            pattern = try Self.load(source)
            name = (source as NSString).lastPathComponent
        } else if soup == nil {
            throw TesseraError("nothing to run", fix: "give a pattern name, a pattern file, or --soup DENSITY")
        }
        var rule = pattern?.rule ?? .life
        var board = pattern?.board
        if let text = self.rule {
            let (parsed, bounded) = try BoardShape.parseRule(text)
            rule = parsed
            board = bounded ?? board
        }
        var topology = board?.topology ?? .torus
        if let text = self.topology {
            guard let parsed = Topology(rawValue: text.lowercased()) else {
                throw TesseraError("unknown topology '\(text)'", fix: "use --topology torus or --topology plane")
            }
            topology = parsed
        }
        var (width, height) = (board?.width ?? Self.defaultSide, board?.height ?? Self.defaultSide)
        if let size { (width, height) = try BoardShape.parseSize(size) }
        guard width <= 1 << 31, height <= 1 << 31, width.multipliedReportingOverflow(by: height).overflow == false else {
            throw TesseraError("board \(width)x\(height) is too large", fix: "give a smaller --size")
        }
        let shape = BoardShape(width: width, height: height, topology: topology)
        let tiling: Tiling
        if let tiles {
            tiling = try Tiling.parse(tiles, shape: shape)
        } else {
            let (columns, rows) = RunPlan.defaultTiles(count: max(1, count), shape: shape)
            tiling = try Tiling(shape: shape, columns: columns, rows: rows)
        }
        let halo = self.halo ?? tiling.defaultHalo
        try tiling.validate(halo: halo)
        let soup = try self.soup.map { try Soup(density: $0, seed: seed ?? 1) }
        try pattern?.checkFits(on: shape)
        return Setup(name: name, shape: shape, rule: rule, tiling: tiling, halo: halo,
                     generation: pattern?.generation ?? 0, pattern: pattern, soup: soup)
    }

    static func load(_ source: String) throws -> Pattern {
        if FileManager.default.fileExists(atPath: source) { return try PatternFile.load(source) }
        if let builtIn = PatternLibrary.pattern(named: source) { return builtIn }
        throw TesseraError("no file or built-in pattern named '\(source)'",
                           fix: "check the path, or run 'tessera patterns' for built-in names")
    }
}

/// A resolved run: everything needed to build the tiles.
struct Setup: Sendable {
    let name: String
    let shape: BoardShape
    let rule: Rule
    let tiling: Tiling
    let halo: Int
    let generation: UInt64
    let pattern: Pattern?
    let soup: Soup?

    /// The soup (if any) with the pattern laid over it.
    var start: StartingCells { StartingCells(soup: soup, overlay: pattern?.overlay(on: shape)) }

    /// The starting cells of one tile.
    func cells(in rect: TileRect) -> BitGrid {
        start.cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height, of: shape)
    }
}
