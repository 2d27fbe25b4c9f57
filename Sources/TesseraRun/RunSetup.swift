import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraWire

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
    package private(set) var generation: UInt64
    package private(set) var pattern: Pattern?
    package private(set) var soup: Soup?
    /// The halo the user chose, which a run on one tile keeps (`inOneTile`).
    private var chosenHalo: Int?
    /// Whether tiles step a board of a family with an engine of its own (`onTiles()`),
    /// which this process otherwise steps whole.
    package private(set) var familyOnTiles = false
    /// HashLife's step over a rule tree's states (`--step`, as bgolly's `-i`), where the
    /// run is HashLife's throughout; nil: an eighth of the run (`WholeBoard.hashLifeSteps`).
    package var stateHashLifeStep: UInt64?

    /// Whether HashLife over a rule tree's states may run this: a rule file's or a JvN
    /// rule on Golly's unbounded plane (`WholeBoard.ruleTree`).
    package var runsStateHashLife: Bool { rule.tree != nil && isUnbounded && shape.edges == nil }

    package init(name: String, shape: BoardShape, rule: Rule, tiling: Tiling, halo: Int, generation: UInt64,
                 pattern: Pattern?, soup: Soup?) {
        (self.name, self.shape, self.rule, self.tiling, self.halo) = (name, shape, rule, tiling, halo)
        (self.generation, self.pattern, self.soup) = (generation, pattern, soup)
    }

    /// Whether this runs Golly's unbounded plane: `shape` is then nominal (`plane`), and
    /// the cells are placed in Golly's coordinates.
    package var isUnbounded: Bool { shape.topology == .infinite }

    /// Whether an engine of its own steps the board whole, in this process
    /// (`WholeBoard`): a family other than the two-state 3x3 rules (unless `onTiles()`),
    /// or a grid whose edges meet as neither a torus's nor a plane's. Tiles, workers and
    /// HashLife never see it.
    package var stepsWhole: Bool { !(rule.isTwoStateMoore || familyOnTiles) || shape.edges != nil }

    /// The same run of a family with an engine of its own (Larger than Life, Generations,
    /// a rule file) on a torus or plane, stepped by tiles (workers), their halos
    /// `rule.reach` cells a generation deep. Refuses another grid, and a halo deeper than
    /// the tiles hold; a two-state 3x3 rule's run is as it was.
    package func onTiles() throws -> RunSetup {
        guard !rule.isTwoStateMoore else { return self }
        guard !isUnbounded, shape.edges == nil else {
            throw TesseraError("\(rule) runs on worker processes on a torus or a plane, and this is \(isUnbounded ? "Golly's unbounded plane" : "a \(shape)")",
                               fix: "give --workers 0, or leave out --workers, or give a bounded grid such as \(rule):T1024,1024")
        }
        try tiling.validate(halo: halo, reach: rule.reach)
        // A tile moves, and is copied to its buddy, in one message, every plane of it.
        let widest = tiling.tiles.map { tiling.rect(of: $0) }.max { $0.width * $0.height < $1.width * $1.height }!
        let planes = rule.statePlanes ?? 1
        let (bytes, over) = ((widest.width + 63) / 64 * 8 * widest.height).multipliedReportingOverflow(by: planes)
        guard !over, bytes <= Wire.maxPayload / 2 else {
            throw TesseraError("a \(widest.width)x\(widest.height) tile of \(rule) in \(planes) planes is past what a message between workers carries",
                               fix: "give more tiles (--tiles CxR)")
        }
        var tiled = self
        tiled.familyOnTiles = true
        if rule.steppedAsStates, let states = pattern?.states { tiled.pattern?.states = try WholeBoard.fitted(states, to: rule) }
        return tiled
    }

    /// Refuses tiles for a board that steps whole: they would take a Klein bottle for a
    /// torus, or a rule file for nothing.
    package func checkTiles() throws {
        guard stepsWhole else { return }
        throw TesseraError("\(rule.isTwoStateMoore ? "a \(shape)" : "\(rule)") runs whole in this process, not on tiles",
                           fix: "give --workers 0, or leave out --workers, --tiles and --halo")
    }

    /// The cells a generation updates, for rates: none on the unbounded plane, whose
    /// board is nominal.
    package var boardCells: Int { isUnbounded ? 0 : shape.cellCount }

    /// Whether every tile of this board fits in this machine's memory at once.
    package var tilesFitInMemory: Bool { (try? TileCluster.checkMemory(tiling.tiles, of: tiling, halo: halo, rule: rule)) != nil }

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
        var pattern = choices.pattern?.pattern
        guard pattern != nil || choices.soup != nil else {
            throw TesseraError("nothing to run", fix: "give a pattern name, a pattern file, or --soup DENSITY")
        }
        var board = pattern?.board
        if let bounded = choices.rule?.board { board = bounded }
        // As Golly does: a pattern whose rule names no bounded grid runs on the unbounded plane.
        let unboundedByDefault = pattern != nil && board == nil && choices.size == nil
        let topology = choices.topology ?? board?.topology ?? (unboundedByDefault ? .infinite : .torus)
        let rule = choices.rule?.rule ?? pattern?.rule ?? .life
        // Squares of states (a macrocell's, a wide RLE's) run as they are by HashLife over a
        // rule tree's states on the unbounded plane (`WholeBoard.ruleTree`), or fill the
        // tiles of Generations and Larger than Life there (`StackedPlane`); anywhere
        // else, as cells.
        if pattern?.stateTree != nil, topology != .infinite || board?.edges != nil || choices.soup != nil || !Self.takesSquares(rule) {
            pattern = try pattern?.withStatesMade()
        }
        let shape: BoardShape
        // How the grid's edges meet where neither a torus's nor a plane's do: kept, unless
        // --topology names another.
        let edges = choices.topology == nil ? board?.edges : nil
        // A wide grid's live blocks are parts of their own for the sparse map and HashLife;
        // the whole-board engines (a tube's among them) take the pattern as it is, states and all.
        if topology == .infinite, rule.isTwoStateMoore, edges == nil { pattern = pattern?.inLiveBlocks() }
        // Golly's other grids take one grid, as a box a reader kept in blocks was before.
        if edges != nil, let whole = pattern?.inOneGrid() { pattern = whole }
        // A tube or a strip is a bounded grid to Golly's reader: a pattern is centred on it.
        if let (across, side) = edges?.unboundedAlong { pattern = pattern?.placedAsGollyDoes(onGrid: across ? 0 : side, across ? side : 0) }
        var (placed, soup) = (pattern, choices.soup)
        if topology == .infinite {
            if pattern?.hasParts == true, edges != nil {
                throw TesseraError("a pattern read in parts far apart on a \(edges?.name ?? "tube") (\(board?.gollySuffix ?? "")) is not supported yet",
                                   fix: "run it on the unbounded plane, or crop it in Golly first")
            }
            // A soup fills only its area of the plane, which `--size` gives, centred as on
            // a bounded grid: it becomes part of the pattern.
            if let filled = soup {
                guard let (width, height) = choices.size else {
                    throw TesseraError("a soup on the unbounded plane needs an area", fix: "give --size WxH, the area the soup fills")
                }
                guard width <= BoardShape.maxSide, height <= BoardShape.maxSide else {
                    throw TesseraError("soup area \(width)x\(height) is too large", fix: "give a smaller --size")
                }
                let area = CellBounds(left: -(width / 2), top: -(height / 2), width: width, height: height)
                if let pattern, pattern.hasParts || !Self.isNear(area, pattern) {
                    // Laid over the soup as parts, which every engine takes as their union:
                    // one grid of both would span whatever lies between.
                    let soupPart = PlacedCells(cells: filled.cells(x: area.left, y: area.top, width: width, height: height),
                                               left: area.left, top: area.top)
                    placed = Pattern(parts: pattern.placedParts(on: .infinite) + [soupPart], rule: rule, generation: pattern.generation)
                } else {
                    placed = Self.merge(filled, width: width, height: height, under: pattern)
                }
                soup = nil
            } else if let parted = pattern, parted.hasParts {
                placed = parted.placedAtOrigin(on: .infinite)
            }
            try Self.checkPlaceable(placed)
            shape = Self.plane(edges: edges, minSide: Self.minPlaneSide(tiles: choices.tiles, halo: choices.halo, tileCount: count))
        } else {
            let (width, height) = choices.size ?? (board?.width ?? Self.defaultSide, board?.height ?? Self.defaultSide)
            guard width <= BoardShape.maxSide, height <= BoardShape.maxSide,
                  width.multipliedReportingOverflow(by: height).overflow == false else {
                throw TesseraError("board \(width)x\(height) is too large", fix: "give a smaller --size")
            }
            if edges == .sphere, width != height {
                throw TesseraError("a sphere's grid is square, and --size gives \(width)x\(height)", fix: "give --size \(width)x\(width)")
            }
            shape = BoardShape(width: width, height: height, topology: topology, edges: edges)
        }
        let (tiling, halo) = try Self.tiling(of: shape, tiles: choices.tiles, halo: choices.halo, tileCount: max(1, count), reach: rule.reach)
        if topology != .infinite {
            placed = placed?.placedAsGollyDoes(onGrid: shape.width, shape.height)
            try placed?.checkFits(on: shape)
        }
        self.init(name: choices.pattern?.name ?? "soup", shape: shape, rule: rule,
                  tiling: tiling, halo: halo, generation: pattern?.generation ?? 0, pattern: placed, soup: soup)
        chosenHalo = choices.halo
    }

    /// Whether `rule`'s engine on the unbounded plane takes a pattern's squares of states
    /// as they are, never as a grid of their box.
    static func takesSquares(_ rule: Rule) -> Bool {
        rule.tree != nil || rule.generations != nil
            || rule.largerThanLife.map { $0.states > 2 && $0.range <= StackedPlane.mostReach } ?? false
    }

    /// Whether `pattern`'s grid and `area` lie near enough together for one grid of both
    /// (at most 2^26 cells, 8 MiB).
    private static func isNear(_ area: CellBounds, _ pattern: Pattern) -> Bool {
        let (x, y) = pattern.topLeft(on: .infinite)
        let box = area.union(CellBounds(left: x, top: y, width: pattern.cells.width, height: pattern.cells.height))
        let (cells, overflow) = box.width.multipliedReportingOverflow(by: box.height)
        return !overflow && cells <= 1 << 26
    }

    /// The soup of the `width`×`height` area centred on the origin, with `pattern` (if
    /// any) laid over it where the unbounded plane puts it, as one pattern.
    private static func merge(_ soup: Soup, width: Int, height: Int, under pattern: Pattern?) -> Pattern {
        var area = CellBounds(left: -(width / 2), top: -(height / 2), width: width, height: height)
        let origin: (x: Int, y: Int)? = pattern.map { $0.topLeft(on: .infinite) }
        if let pattern, let origin {
            area = area.union(CellBounds(left: origin.x, top: origin.y, width: pattern.cells.width, height: pattern.cells.height))
        }
        var cells = BitGrid(width: area.width, height: area.height)
        soup.cells(x: -(width / 2), y: -(height / 2), width: width, height: height)
            .copy(into: &cells, atX: -(width / 2) - area.left, y: -(height / 2) - area.top)
        if let pattern, let origin { cells.formUnion(pattern.cells, atX: origin.x - area.left, y: origin.y - area.top) }
        return Pattern(cells: cells, position: (area.left, area.top), rule: pattern?.rule, generation: pattern?.generation ?? 0)
    }

    /// The chosen tiles, else one per worker cut the least, and the chosen halo, else the
    /// tiling's default for the rule's `reach` (which `onTiles()` checks the tiles hold).
    private static func tiling(of shape: BoardShape, tiles: (columns: Int, rows: Int)?, halo: Int?,
                               tileCount: Int, reach: Int) throws -> (Tiling, halo: Int) {
        let (columns, rows) = tiles ?? RunPlan.defaultTiles(count: tileCount, shape: shape)
        let tiling = try Tiling(shape: shape, columns: columns, rows: rows)
        let halo = halo ?? tiling.defaultHalo(reach: reach)
        try tiling.validate(halo: halo)
        return (tiling, halo)
    }

    /// How far from the origin, and how far apart, live cells on the unbounded plane may
    /// be at the start: half of what the wire and HashLife's root square take (2^62), so
    /// that they may spread for 2^60 generations and stay within it.
    static let widestSpan = 1 << 61

    /// Refuses live cells `widestSpan` or more from the origin, or spread wider than it:
    /// a file's place may be within what Tessera reads (±2^62), and its cells not.
    private static func checkPlaceable(_ pattern: Pattern?) throws {
        guard let pattern else { return }
        let (x, y) = pattern.topLeft(on: .infinite)
        let boxes = pattern.hasParts ? pattern.partBounds
            : [CellBounds(left: 0, top: 0, width: pattern.cells.width, height: pattern.cells.height)]
        var placed: [CellBounds] = []
        for box in boxes where box.width > 0 && box.height > 0 {
            let corners = [(box.left, x), (box.top, y), (box.right - 1, x), (box.bottom - 1, y)]
                .map { $0.addingReportingOverflow($1) }
            guard corners.allSatisfy({ !$0.overflow && $0.partialValue.magnitude < UInt(widestSpan) }) else {
                let at = CellBounds(left: box.left &+ x, top: box.top &+ y, width: box.width, height: box.height)
                throw TesseraError("live cells at \(at) are too far from the origin: the unbounded plane starts from cells within ±2^61",
                                   fix: "move the pattern nearer the origin (#CXRLE Pos=x,y)")
            }
            placed.append(CellBounds(left: corners[0].partialValue, top: corners[1].partialValue, width: box.width, height: box.height))
        }
        if let all = CellBounds.enclosing(placed), all.width > widestSpan || all.height > widestSpan {
            throw TesseraError("live cells span \(all.width)x\(all.height): too far apart, past the 2^61 cells a run on the unbounded plane starts from",
                               fix: "move the pattern's groups nearer each other")
        }
    }

    /// The narrowest nominal plane whose tiles all hold the chosen halo (past the
    /// widest board, the tiling refuses the halo in one line).
    private static func minPlaneSide(tiles: (columns: Int, rows: Int)?, halo: Int?, tileCount: Int) -> Int {
        let (side, overflow) = max(tileCount, tiles?.columns ?? 1, tiles?.rows ?? 1).multipliedReportingOverflow(by: halo ?? 1)
        return overflow ? BoardShape.maxSide : min(side, BoardShape.maxSide)
    }

    /// The unbounded plane's nominal board, square around the origin: the sparse map,
    /// HashLife and the whole-board engines place cells in Golly's coordinates and never
    /// look at its size, and the shards' plan only names its tiles and halo.
    private static func plane(edges: EdgeJoin?, minSide: Int) -> BoardShape {
        let side = min(BoardShape.maxSide, (max(4096, minSide) + 255) / 256 * 256)
        return BoardShape(width: side, height: side, topology: .infinite, left: -(side / 2), top: -(side / 2), edges: edges)
    }

    /// On the unbounded plane, the live cells at the start where Golly puts them, in
    /// parts where the pattern's are (a soup there is part of the pattern).
    package var startingParts: [PlacedCells] { pattern?.placedParts(on: .infinite) ?? [] }

    /// The pattern's live cells where Golly puts them on this board (on a bounded grid,
    /// `Pattern.placedAsGollyDoes`), as a sparse map holds them.
    package var startingSparseParts: [PlacedCells] {
        isUnbounded ? startingParts : pattern?.placedParts(on: shape.topology) ?? []
    }

    /// On the unbounded plane, the macrocell tree the pattern was read from, where its
    /// cells are the tree's as they stand (placed from the origin).
    package var startingTree: QuadTree? {
        guard isUnbounded, let pattern, let tree = pattern.tree, pattern.topLeft(on: .infinite) == (0, 0) else { return nil }
        return tree
    }

    /// The same run on the unbounded plane at `generation`, `parts` (Golly's
    /// coordinates) its live cells: where another engine takes it on.
    package func continued(parts: [PlacedCells], generation: UInt64) -> RunSetup {
        var next = self
        (next.generation, next.soup) = (generation, nil)
        next.pattern = Pattern(parts: parts, rule: rule, generation: generation)
        return next
    }

    /// The same run on one tile (of the chosen halo, else its own default): what one
    /// process steps fastest while a pattern is small, with no halo to trade.
    package func inOneTile() throws -> RunSetup {
        let (tiling, halo) = try Self.tiling(of: shape, tiles: nil, halo: chosenHalo, tileCount: 1, reach: rule.reach)
        var one = RunSetup(name: name, shape: shape, rule: rule, tiling: tiling, halo: halo, generation: generation,
                           pattern: pattern, soup: soup)
        one.chosenHalo = chosenHalo
        return one
    }

    /// The same board and tiles at `generation`, its live cells `cells` at `live` (board
    /// coordinates) and none elsewhere: what a head start hands to the workers.
    package func handedOver(cells: BitGrid, states: StateGrid? = nil, at live: TileRect, generation: UInt64) -> RunSetup {
        let corner = CellBounds(live, of: shape)
        var next = self
        (next.generation, next.soup) = (generation, nil)
        next.pattern = Pattern(cells: cells, position: (corner.left, corner.top), rule: rule)
        next.pattern?.states = states
        return next
    }

    /// The soup (if any) with the pattern laid over it.
    package var start: StartingCells {
        StartingCells(soup: soup, overlays: pattern?.overlays(on: shape) ?? [])
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
    /// pattern up to 16 MiB; a larger pattern is cut here into each tile's part, so a
    /// worker receives, and paints, only what lies on its tiles, not whole tiles' cells,
    /// which are nearly all empty around a sparse pattern.
    package func plan(generations: UInt64) -> RunPlan {
        var overlays = start.overlays
        let words = overlays.reduce(0) { $0 + $1.cells.words.count + ($1.states?.planes.reduce(0) { $0 + $1.words.count } ?? 0) }
        if words * 8 > Self.largestSharedPattern {
            overlays = tiling.tiles.flatMap { tile in
                let rect = tiling.rect(of: tile)
                return overlays.compactMap { $0.cropped(to: rect) }
            }
        }
        return RunPlan(tiling: tiling, rule: rule, halo: halo, generation: generation, generations: generations,
                       soup: soup, overlays: overlays, cells: nil)
    }
}
