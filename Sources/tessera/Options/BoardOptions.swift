import ArgumentParser
import TesseraCore
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

    /// These flags in `request`.
    func apply(to request: inout RunRequest) {
        (request.pattern, request.size, request.topology, request.rule) = (pattern, size, topology, rule)
        (request.soup, request.seed, request.tiles, request.halo) = (soup, seed, tiles, halo)
    }
}
