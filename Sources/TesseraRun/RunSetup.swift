import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles

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
    /// On the unbounded plane, what every window keeps: the tiles and halo the user
    /// chose (else each window's defaults), and the worker count for default tiles.
    private var chosenTiles: (columns: Int, rows: Int)?
    private var chosenHalo: Int?
    private var tileCount = 1
    /// On the unbounded plane, when the live cells lie in groups too far apart for one
    /// window: the windows, side by side on `shape`; the pattern is then its `parts`.
    package private(set) var atlas: PlaneAtlas?
    /// On the unbounded plane, a pattern in parts whose windows are not made yet: HashLife
    /// and the sparse map take the parts as they are, and only workers need windows
    /// (`windowed()`), and grouping a metapixel's forty thousand pieces costs more than
    /// HashLife's 1000 generations of it. `shape` and `tiling` are then a window at the origin's.
    package private(set) var windowsPending = false

    package init(name: String, shape: BoardShape, rule: Rule, tiling: Tiling, halo: Int, generation: UInt64,
                 pattern: Pattern?, soup: Soup?) {
        (self.name, self.shape, self.rule, self.tiling, self.halo) = (name, shape, rule, tiling, halo)
        (self.generation, self.pattern, self.soup) = (generation, pattern, soup)
    }

    /// Whether this runs Golly's unbounded plane, through a window that moves.
    package var isUnbounded: Bool { shape.topology == .infinite }

    /// Whether an engine of its own steps the board whole, in this process
    /// (`WholeBoard`): a family other than the two-state 3x3 rules, or a grid whose edges
    /// meet as neither a torus's nor a plane's. Tiles, workers and HashLife never see it.
    package var stepsWhole: Bool { !rule.isTwoStateMoore || shape.edges != nil }

    /// Refuses tiles for a board that steps whole: they would take a Klein bottle for a
    /// torus, or a rule file for nothing.
    package func checkTiles() throws {
        guard stepsWhole else { return }
        throw TesseraError("\(rule.isTwoStateMoore ? "a \(shape)" : "\(rule)") runs whole in this process, not on tiles",
                           fix: "give --workers 0, or leave out --workers, --tiles and --halo")
    }

    /// Whether every tile of this board fits in this machine's memory at once.
    package var tilesFitInMemory: Bool { (try? TileCluster.checkMemory(tiling.tiles, of: tiling, halo: halo)) != nil }

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
        // A macrocell's squares run as they are by HashLife over a rule tree's states on the
        // unbounded plane (`WholeBoard.ruleTree`); anywhere else, as cells.
        if pattern?.stateTree != nil, topology != .infinite || board?.edges != nil || rule.tree == nil || choices.soup != nil {
            pattern = try pattern?.withStatesMade()
        }
        let shape: BoardShape
        // How the grid's edges meet where neither a torus's nor a plane's do: kept, unless
        // --topology names another.
        let edges = choices.topology == nil ? board?.edges : nil
        // Groups far apart are for tiles and HashLife; the whole-board engines (a tube's
        // window among them) take the pattern as it is, states and all.
        if topology == .infinite, rule.isTwoStateMoore, edges == nil { pattern = try pattern?.groupedFarApart() }
        var (placed, soup) = (pattern, choices.soup)
        if topology == .infinite, let grouped = pattern, grouped.hasParts {
            guard edges == nil else {
                throw TesseraError("a pattern read in parts far apart on a tube (\(board?.gollySuffix ?? "")) is not supported yet",
                                   fix: "run it on the unbounded plane, or crop it in Golly first")
            }
            // Groups of cells far apart (a macrocell's): a window each, unless near enough.
            var all = grouped.placedAtOrigin(on: .infinite)
            if let filled = soup {
                guard let (width, height) = choices.size else {
                    throw TesseraError("a soup on the unbounded plane needs an area", fix: "give --size WxH, the area the soup fills")
                }
                let area = PlacedCells(cells: filled.cells(x: -(width / 2), y: -(height / 2), width: width, height: height),
                                       left: -(width / 2), top: -(height / 2))
                all = Pattern(parts: all.parts + [area], rule: rule, generation: grouped.generation)
            }
            let name = choices.pattern?.name ?? "soup"
            // Checked as the windows will be, so that a bad choice is told before any step.
            let minSide = Self.minWindowSide(tiles: choices.tiles, halo: choices.halo, tileCount: max(1, count))
            let origin = try PlaneWindow.around(CellBounds(left: 0, top: 0, width: 1, height: 1), minSide: minSide)
            for part in all.partBounds { _ = try PlaneWindow.around(part, minSide: minSide, least: PlaneAtlas.leastMargin) }
            let (tiling, halo) = try Self.tiling(of: origin, tiles: choices.tiles, halo: choices.halo, tileCount: max(1, count))
            self.init(name: name, shape: origin, rule: rule, tiling: tiling, halo: halo, generation: grouped.generation,
                      pattern: all, soup: nil)
            (chosenTiles, chosenHalo, tileCount, windowsPending) = (choices.tiles, choices.halo, max(1, count), true)
            return
        }
        if topology == .infinite {
            let window = try Self.firstWindow(choices, minSide: Self.minWindowSide(tiles: choices.tiles, halo: choices.halo, tileCount: count))
            shape = BoardShape(width: window.width, height: window.height, topology: .infinite, left: window.left, top: window.top,
                               edges: edges)
            // A soup fills only its area of the plane: it becomes part of the pattern.
            if let filled = soup, let (width, height) = choices.size {
                placed = Self.merge(filled, width: width, height: height, under: pattern)
                soup = nil
            }
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
        let (tiling, halo) = try Self.tiling(of: shape, tiles: choices.tiles, halo: choices.halo, tileCount: max(1, count))
        try placed?.checkFits(on: shape)
        self.init(name: choices.pattern?.name ?? "soup", shape: shape, rule: rule,
                  tiling: tiling, halo: halo, generation: pattern?.generation ?? 0, pattern: placed, soup: soup)
        (chosenTiles, chosenHalo, tileCount) = (choices.tiles, choices.halo, max(1, count))
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

    /// The chosen tiles, else one per worker cut the least, and the chosen halo, else the tiling's default.
    private static func tiling(of shape: BoardShape, tiles: (columns: Int, rows: Int)?, halo: Int?,
                               tileCount: Int) throws -> (Tiling, halo: Int) {
        let (columns, rows) = tiles ?? RunPlan.defaultTiles(count: tileCount, shape: shape)
        let tiling = try Tiling(shape: shape, columns: columns, rows: rows)
        let halo = halo ?? tiling.defaultHalo
        try tiling.validate(halo: halo)
        return (tiling, halo)
    }

    /// The narrowest window whose tiles all hold the chosen halo.
    private static func minWindowSide(tiles: (columns: Int, rows: Int)?, halo: Int?, tileCount: Int) -> Int {
        max(tileCount, tiles?.columns ?? 1, tiles?.rows ?? 1) * (halo ?? 1)
    }

    /// The first window of the unbounded plane: around the pattern, where Golly puts
    /// it, and the soup's area, which `--size` gives, centred as on a bounded grid.
    private static func firstWindow(_ choices: Choices, minSide: Int) throws -> BoardShape {
        var live: CellBounds? = nil
        if let (width, height) = choices.size {
            guard width <= BoardShape.maxSide, height <= BoardShape.maxSide else {
                throw TesseraError("soup area \(width)x\(height) is too large", fix: "give a smaller --size")
            }
            live = CellBounds(left: -(width / 2), top: -(height / 2), width: width, height: height)
        } else if choices.soup != nil {
            throw TesseraError("a soup on the unbounded plane needs an area", fix: "give --size WxH, the area the soup fills")
        }
        if let pattern = choices.pattern?.pattern, pattern.cells.width > 0, pattern.cells.height > 0 {
            let (x, y) = pattern.topLeft(on: .infinite)
            let area = CellBounds(left: x, top: y, width: pattern.cells.width, height: pattern.cells.height)
            live = live.map { $0.union(area) } ?? area
        }
        return try PlaneWindow.around(live ?? CellBounds(left: 0, top: 0, width: 1, height: 1), minSide: minSide)
    }

    /// On the unbounded plane, where the live cells may be at the start: the pattern's
    /// box (a soup there is part of the pattern).
    package var startingBounds: TileRect? {
        start.overlays.filter { $0.cells.population > 0 }
            .map { TileRect(x: $0.x, y: $0.y, width: $0.cells.width, height: $0.cells.height) }
            .reduce(nil) { (found: TileRect?, next) in found?.union(next) ?? next }
    }

    /// On the unbounded plane, the live cells at the start where Golly puts them, in
    /// groups far apart where the pattern's are (a soup there is part of the pattern).
    package var startingParts: [PlacedCells] {
        guard let pattern else { return [] }
        return atlas == nil ? pattern.placedParts(on: .infinite) : pattern.parts
    }

    /// The pattern's live cells where Golly puts them on this board: on a bounded grid,
    /// centred unless the file gives its place, as a sparse map holds them.
    package var startingSparseParts: [PlacedCells] {
        isUnbounded ? startingParts : pattern?.placedParts(on: shape.topology) ?? []
    }

    /// On the unbounded plane, the macrocell tree the pattern was read from, where its
    /// cells are the tree's as they stand (placed from the origin).
    package var startingTree: QuadTree? {
        guard isUnbounded, let pattern, let tree = pattern.tree, pattern.topLeft(on: .infinite) == (0, 0) else { return nil }
        return tree
    }

    /// The same run with its windows made, where they were pending (`windowsPending`).
    package func windowed() throws -> RunSetup {
        guard windowsPending, let pattern else { return self }
        return try Self.unbounded(name: name, rule: rule, pattern: pattern, generation: generation, tiles: chosenTiles,
                                  halo: chosenHalo, tileCount: tileCount)
    }

    /// The same run in a new window of the unbounded plane around `cells`, whose top-left
    /// is at `live`'s, at `generation`, cut into at least `present` tiles (those of the
    /// window it replaces).
    package func moved(cells: BitGrid, at live: CellBounds, generation: UInt64, tileCount present: Int) throws -> RunSetup {
        // Tiles the coordinator added for joiners stay (chosen tiles are the user's).
        let tileCount = chosenTiles == nil ? max(self.tileCount, present) : self.tileCount
        let minSide = Self.minWindowSide(tiles: chosenTiles, halo: chosenHalo, tileCount: tileCount)
        let shape = try PlaneWindow.around(live, minSide: minSide)
        let (tiling, halo) = try Self.tiling(of: shape, tiles: chosenTiles, halo: chosenHalo, tileCount: tileCount)
        var next = RunSetup(name: name, shape: shape, rule: rule, tiling: tiling, halo: halo,
                            generation: generation, pattern: Pattern(cells: cells, position: (live.left, live.top), rule: rule),
                            soup: nil)
        (next.chosenTiles, next.chosenHalo, next.tileCount) = (chosenTiles, chosenHalo, tileCount)
        return next
    }

    /// The same run at `generation` with `parts` (Golly's coordinates) its live cells:
    /// in one window around them when they lie near enough together (as `moved`), else
    /// in a window for each group of them, side by side on one board (`PlaneAtlas`).
    package func regrouped(parts: [PlacedCells], generation: UInt64, tileCount present: Int) throws -> RunSetup {
        try Self.unbounded(name: name, rule: rule, pattern: Pattern(parts: parts, rule: rule, generation: generation),
                           generation: generation, tiles: chosenTiles, halo: chosenHalo,
                           tileCount: chosenTiles == nil ? max(tileCount, present) : tileCount)
    }

    /// The same atlas at `generation`, `parts` its live cells, when every window still
    /// has room around them (`PlaneAtlas.keeping`): the board's cells are already
    /// these, and nothing needs to be remade. Nil when a window must be.
    package func keepingWindows(parts: [PlacedCells], generation: UInt64) -> RunSetup? {
        guard let kept = atlas?.keeping(parts: parts.map(\.bounds)) else { return nil }
        var next = self
        (next.generation, next.pattern, next.atlas) = (generation, Pattern(parts: parts, rule: rule, generation: generation), kept)
        return next
    }

    /// The run of `placed`'s parts (Golly's coordinates, as `Pattern.placedAtOrigin`
    /// gives them), grouped into windows by their bounds alone: a macrocell's parts are
    /// not made here (HashLife takes its tree).
    private static func unbounded(name: String, rule: Rule, pattern placed: Pattern, generation: UInt64,
                                  tiles: (columns: Int, rows: Int)?, halo chosenHalo: Int?, tileCount: Int) throws -> RunSetup {
        let minSide = minWindowSide(tiles: tiles, halo: chosenHalo, tileCount: tileCount)
        var placed = placed
        if placed.partBounds.contains(where: { $0.width == 0 || $0.height == 0 }) {
            placed = Pattern(parts: placed.parts.filter { $0.cells.width > 0 && $0.cells.height > 0 }, rule: rule, generation: generation)
        }
        let bounds = placed.partBounds
        var groups = try PlaneAtlas.groups(of: bounds, minSide: minSide)
        let margin = PlaneAtlas.margin(forGroups: groups.count)
        if margin > PlaneAtlas.leastMargin { groups = try PlaneAtlas.groups(of: bounds, minSide: minSide, margin: margin) }
        let boxes = groups.map { members in CellBounds.enclosing(members.map { bounds[$0] })! }
        var pattern = Pattern(parts: [], rule: rule, generation: generation)
        let shape: BoardShape, atlas: PlaneAtlas?
        if boxes.count <= 1 {
            let box = boxes.first ?? CellBounds(left: 0, top: 0, width: 1, height: 1)
            shape = try PlaneWindow.around(box, minSide: minSide)
            if bounds.count == 1 {
                pattern = Pattern(cells: placed.parts[0].cells, position: (box.left, box.top), rule: rule, generation: generation)
            } else if !bounds.isEmpty {
                // Each part as it is, not one grid of their box (a 31473 x 31101 circuit's 122 MB).
                pattern = placed
            }
            atlas = nil
        } else {
            let made = try PlaneAtlas(groups: boxes, minSide: minSide, margin: margin)
            (shape, atlas) = (made.board, made)
            pattern = placed
        }
        let (tiling, halo) = try Self.tiling(of: shape, tiles: tiles, halo: chosenHalo, tileCount: tileCount)
        var setup = RunSetup(name: name, shape: shape, rule: rule, tiling: tiling, halo: halo, generation: generation,
                             pattern: pattern, soup: nil)
        (setup.chosenTiles, setup.chosenHalo, setup.tileCount, setup.atlas) = (tiles, chosenHalo, tileCount, atlas)
        return setup
    }

    /// The same run on one tile (of the chosen halo, else its own default): what one
    /// process steps fastest while a pattern is small, with no halo to trade.
    package func inOneTile() throws -> RunSetup {
        let (tiling, halo) = try Self.tiling(of: shape, tiles: nil, halo: chosenHalo, tileCount: 1)
        var one = RunSetup(name: name, shape: shape, rule: rule, tiling: tiling, halo: halo, generation: generation,
                           pattern: pattern, soup: soup)
        (one.chosenTiles, one.chosenHalo, one.tileCount, one.atlas) = (nil, chosenHalo, 1, atlas)
        return one
    }

    /// The same board and tiles at `generation`, its live cells `cells` at `live` (board
    /// coordinates) and none elsewhere: what a head start hands to the workers.
    package func handedOver(cells: BitGrid, at live: TileRect, generation: UInt64) -> RunSetup {
        let corner = CellBounds(live, of: shape)
        var next = self
        (next.generation, next.soup) = (generation, nil)
        next.pattern = Pattern(cells: cells, position: (corner.left, corner.top), rule: rule)
        return next
    }

    /// The soup (if any) with the pattern laid over it.
    package var start: StartingCells {
        if let atlas, let pattern { return StartingCells(soup: nil, overlays: atlas.overlays(of: pattern.parts)) }
        return StartingCells(soup: soup, overlays: pattern?.overlays(on: shape) ?? [])
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
    /// worker receives, and paints, only what lies on its tiles. (Cut as whole tiles'
    /// cells, a window of the unbounded plane around a Gosper gun's stream at generation
    /// 100000 sent 350 MB tiles, nearly all empty, at every move.)
    package func plan(generations: UInt64) -> RunPlan {
        var overlays = start.overlays
        if overlays.reduce(0, { $0 + $1.cells.words.count * 8 }) > Self.largestSharedPattern {
            overlays = tiling.tiles.flatMap { tile in
                let rect = tiling.rect(of: tile)
                return overlays.compactMap { $0.cropped(to: rect) }
            }
        }
        return RunPlan(tiling: tiling, rule: rule, halo: halo, generation: generation, generations: generations,
                       soup: soup, overlays: overlays, cells: nil)
    }
}
