import ArgumentParser
import TesseraCore
import TesseraPatterns
import TesseraRun

/// What to run: a pattern or soup, on which board, under which rule.
struct BoardOptions: ParsableArguments {
    @Argument(help: "A built-in pattern name (see 'tessera patterns') or a pattern file (.rle, .cells, Life 1.06, macrocell .mc).")
    var pattern: String?

    @Option(help: "Board size WxH; overrides the rule's :T/:P suffix. With --topology infinite, the area a soup fills. Default: a pattern whose rule has no suffix runs on the unbounded plane, a soup on 1024x1024.",
            transform: parsing(BoardSize.init(parsing:)))
    var size: BoardSize?

    @Option(help: "torus, plane (dead edges) or infinite (Golly's unbounded plane). Default: the rule's suffix; none means infinite for a pattern without --size, else torus.")
    var topology: Topology?

    @Option(help: "Life-like rule, e.g. B3/S23 or B36/S23:T512,512. Default: the file's, else B3/S23.",
            transform: parsing(RuleChoice.init(parsing:)))
    var rule: RuleChoice?

    @Option(parsing: .unconditional, help: "Fill the board with random cells at this density (0-1) instead of, or under, a pattern.")
    var soup: Double?

    @Option(parsing: .unconditional, help: "Seed for --soup (default 1); the same seed gives the same board for every tiling.")
    var seed: UInt64?

    @Option(help: "Tiles as COLUMNSxROWS. Default: one tile per worker.", transform: parsing(TileGrid.init(parsing:)))
    var tiles: TileGrid?

    @Option(parsing: .unconditional, help: "Halo depth: generations between halo exchanges. Default: from the tile size.")
    var halo: Int?

    @Option(help: "Read options from a TOML file (see configs/); flags given here override it.")
    var config: String?

    static let configKeys = ["pattern", "size", "topology", "rule", "soup", "seed", "tiles", "halo"]

    func validate() throws {
        if let soup { _ = try Soup(density: soup, seed: 1) }
        if let halo, halo < 1 { throw TesseraError("halo depth \(halo) is below 1", fix: "give --halo 1 or more") }
    }

    /// Fills what the command line left out from the config file, then checks it all.
    mutating func apply(_ config: ConfigFile) throws {
        pattern = pattern ?? config["pattern"]
        size = try size ?? config["size"].map(BoardSize.init(parsing:))
        topology = try topology ?? config["topology"].map { text in
            guard let topology = Topology(rawValue: text.lowercased()) else {
                throw TesseraError("\(config.path): unknown topology '\(text)'", fix: "write topology = \"torus\", \"plane\" or \"infinite\"")
            }
            return topology
        }
        rule = try rule ?? config["rule"].map(RuleChoice.init(parsing:))
        tiles = try tiles ?? config["tiles"].map(TileGrid.init(parsing:))
        soup = try soup ?? config.number("soup", as: Double.self)
        seed = try seed ?? config.number("seed", as: UInt64.self)
        halo = try halo ?? config.number("halo", as: Int.self)
        try validate()
    }

    /// The board, rule and starting cells these options describe, with one tile per
    /// worker unless tiles were chosen.
    func setup(defaultTiles count: Int) throws -> RunSetup {
        var choices = RunSetup.Choices()
        choices.pattern = try pattern.map(Self.choice(of:))
        choices.rule = rule.map { ($0.rule, $0.board) }
        choices.topology = topology
        choices.size = size.map { ($0.width, $0.height) }
        choices.soup = try soup.map { try Soup(density: $0, seed: seed ?? 1) }
        choices.tiles = tiles.map { ($0.columns, $0.rows) }
        choices.halo = halo
        return try RunSetup(choices, defaultTiles: count)
    }

    /// Where a run of these options starts, as its checkpoints record it.
    func origin() throws -> Checkpoint.Origin {
        Checkpoint.Origin(pattern: try pattern.map(Self.load), name: pattern.map(Files.lastComponent(of:)),
                          soup: try soup.map { try Soup(density: $0, seed: seed ?? 1) })
    }

    /// A pattern file or built-in name as a run's choice of pattern: the pattern and its name.
    static func choice(of source: String) throws -> (Pattern, String) {
        (try load(source), Files.lastComponent(of: source))
    }

    static func load(_ source: String) throws -> Pattern {
        if Files.exists(source) { return try PatternFile.load(source) }
        if let builtIn = PatternLibrary.pattern(named: source) { return builtIn }
        throw TesseraError("no file or built-in pattern named '\(source)'",
                           fix: "check the path, or run 'tessera patterns' for built-in names")
    }
}
