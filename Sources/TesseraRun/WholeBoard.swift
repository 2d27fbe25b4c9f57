import TesseraCore
import TesseraHashLife
import TesseraPatterns

/// Cells a whole-board engine steps: one bit a cell (`BitGrid`), or bit planes of the
/// states (`StateGrid`).
protocol BoardCells: Sendable {
    var width: Int { get }
    var height: Int { get }
    /// The cells in any state but 0.
    var occupied: BitGrid { get }
    /// The smallest rectangle holding them, nil where there are none.
    var liveBounds: TileRect? { get }
    /// Cells of the same kind, all 0, of another size.
    func empty(width: Int, height: Int) -> Self
    func cropped(x: Int, y: Int, width: Int, height: Int) -> Self
    /// `other`'s cells not in state 0 written over these, its top-left at (x, y).
    mutating func place(_ other: Self, atX x: Int, y: Int)
    /// One cell's state, and a cell set to one.
    subscript(state x: Int, y: Int) -> Int { get set }
    /// Where an engine records which cells changed (`StateGrid.changes`): a part cut
    /// from a board, which cannot know what changed beyond its edges, and a board made of
    /// a stepped part and cells that were and stay 0.
    mutating func markEdgesChanged(reach: Int)
    mutating func placeChanges(of part: Self, atX x: Int, y: Int)
    /// Whether a cell in any state but 0 lies within `reach` of an edge, read from the
    /// edges alone.
    func reachesEdge(_ reach: Int) -> Bool
    /// A frame's dots in states (`StateGrid.stateDots`); nil for cells of two states.
    func dotsInStates(_ view: Viewport, left: Int, top: Int) -> [UInt8]?
    /// The cells as states (one plane for two), and cells of `states` states made from
    /// such (each in its state, on that many states' planes), with nothing known of what
    /// changed: what a pattern's states, a viewer's edit and rewind go by.
    var asStates: StateGrid { get }
    init(_ cells: StateGrid, states: Int)
    /// The cells' bit planes (bit k of each cell's state; one for two states), and cells
    /// made of such.
    var bitPlanes: [BitGrid] { get }
    init(bitPlanes: [BitGrid])
}

extension BitGrid: BoardCells {
    var occupied: BitGrid { self }
    func empty(width: Int, height: Int) -> BitGrid { BitGrid(width: width, height: height) }
    mutating func place(_ other: BitGrid, atX x: Int, y: Int) { formUnion(other, atX: x, y: y) }
    subscript(state x: Int, y: Int) -> Int {
        get { self[x, y] ? 1 : 0 }
        set { self[x, y] = newValue != 0 }
    }
    mutating func markEdgesChanged(reach: Int) {}
    mutating func placeChanges(of part: BitGrid, atX x: Int, y: Int) {}
    func reachesEdge(_ reach: Int) -> Bool { GrowingWindow.reachesEdge(self, reach: reach) }
    func dotsInStates(_ view: Viewport, left: Int, top: Int) -> [UInt8]? { nil }
    var asStates: StateGrid { StateGrid(ones: self, states: 2) }
    init(_ cells: StateGrid, states: Int) { self = cells.occupied }
    var bitPlanes: [BitGrid] { [self] }
    init(bitPlanes: [BitGrid]) { self = bitPlanes[0] }
}

extension StateGrid: BoardCells {
    func empty(width: Int, height: Int) -> StateGrid { StateGrid(width: width, height: height, states: 1 << planes.count) }
    subscript(state x: Int, y: Int) -> Int {
        get { self[x, y] }
        set { self[x, y] = newValue }
    }
    func reachesEdge(_ reach: Int) -> Bool { planes.contains { GrowingWindow.reachesEdge($0, reach: reach) } }
    func dotsInStates(_ view: Viewport, left: Int, top: Int) -> [UInt8]? {
        planes.count > 1 ? stateDots(in: view, left: left, top: top) : nil
    }
    var asStates: StateGrid { self }
    var bitPlanes: [BitGrid] { planes }
    init(bitPlanes: [BitGrid]) { self.init(layers: bitPlanes) }

    init(_ cells: StateGrid, states: Int) {
        guard cells.planes.count != Self.planes(for: states) else {
            self = cells
            changes = nil
            return
        }
        self.init(width: cells.width, height: cells.height, states: states)
        let occupied = cells.occupied
        for y in 0..<height { occupied.forEachLive(inRow: y) { x in self[x, y] = cells[x, y] } }
    }
}

/// A family with an engine of its own, in this process (Golly's ltlalgo and
/// generationsalgo): a bounded grid stepped whole, or on the unbounded plane a window
/// (`GrowingWindow`); where life is confined, only its box grown by the reach
/// (`ActiveRegion`).
actor WholeBoard<Cells: BoardCells>: LocalUniverse {
    /// Up to `generations` generations by HashLife from the cells whose top-left is at
    /// Golly's (x, y), given what a generation costs stepped whole: the cells after, in a
    /// window around them, and the generations done; or where HashLife ran them all, its
    /// squares (`life`) in place of the cells.
    typealias Leap = @Sendable (Cells, (x: Int, y: Int), _ generations: UInt64, _ perGeneration: Double) throws
        -> (cells: Cells, origin: (x: Int, y: Int), done: UInt64, life: StateHashLife?)

    /// How a family steps and writes its cells.
    struct Engine: Sendable {
        /// How far a cell's neighbourhood reaches.
        let reach: Int
        /// The states a cell may be in.
        let states: Int
        /// Whether a cell with nothing in reach may change (B0): then the whole board steps.
        let changesAlone: Bool
        /// Whether its step copies what nothing near has changed (`StateGrid.changes`):
        /// then the whole board steps, and no region is cut out of it and put back.
        var tracksChanges = false
        /// One generation of the cells into the second, a torus where asked.
        let step: @Sendable (Cells, inout Cells, Bool) throws -> Void
        /// Many generations of the unbounded plane at once, where the family has a HashLife.
        var leap: Leap?
        /// HashLife's step, 2^fixedStep generations (`--step`): HashLife from the first
        /// generation to the last, as bgolly's `-i`; nil: steps growing from 16, after
        /// the window's first, for as long as HashLife keeps ahead.
        var fixedStep: Int?
        /// Writes the cells, whose top-left is at Golly's (x, y), of a bounded grid or not.
        let write: @Sendable (BoardOutput, Cells, (x: Int, y: Int), _ bounded: Bool, UInt64) async throws -> Void
    }

    private let engine: Engine
    private let rule: Rule
    /// The bounded grid, nil on the unbounded plane.
    private let board: BoardShape?
    /// How the edges meet, where a torus's or a bounded plane's do not: a bounded grid's,
    /// or an infinite tube's or a strip's, whose window spans its sides exactly and grows
    /// along it.
    private let edges: EdgeJoin?
    /// Where the board is a window onto a tube or a strip: whether it runs across, and
    /// its side.
    private var along: (across: Bool, side: Int)? { edges?.unboundedAlong }
    private(set) var generation: UInt64
    private var cells: Cells
    /// Golly's coordinates of `cells[0, 0]`.
    private var origin: (x: Int, y: Int)
    /// The cells as HashLife's squares, in place of `cells`, where the run started from a
    /// macrocell's squares (`Pattern.stateTree`) or HashLife ran all the generations a
    /// leap was asked: stepped by HashLife from then on, and read from the squares.
    private var life: StateHashLife?
    /// The unbounded plane as a sparse map of tiles, in place of a window (`cells` then
    /// empty), for an engine with nothing else to it (no HashLife, no record of what
    /// changed, no B0) whose reach a tile's border holds.
    private var plane: StackedPlane?

    /// The run's starting cells as `start` makes them from its live cells (`ones`: state
    /// 1, where there are states), with the pattern's own `states` laid over them.
    init(_ setup: RunSetup, engine: Engine, start: (BitGrid) -> Cells, states: Cells?, life: StateHashLife? = nil) throws {
        (self.engine, rule, generation, self.life) = (engine, setup.rule, setup.generation, life)
        // The unbounded plane as tiles, for an engine with nothing else to it.
        let tiled = setup.isUnbounded && setup.shape.edges == nil && life == nil && engine.leap == nil && !engine.tracksChanges
            && !engine.changesAlone && engine.reach <= StackedPlane.mostReach
        if tiled {
            (board, edges, origin) = (nil, nil, (0, 0))
            cells = start(BitGrid(width: 0, height: 0))
            var plane = StackedPlane(planes: cells.bitPlanes.count, reach: engine.reach)
            for part in setup.startingParts { plane.place(start(part.cells).bitPlanes, origin: (part.left, part.top)) }
            if let states, let pattern = setup.pattern, !pattern.hasParts {
                plane.place(states.bitPlanes, origin: pattern.topLeft(on: setup.shape.topology))
            }
            if let squares = setup.pattern?.stateTree { plane.place(try Self.fitted(squares, to: setup.rule)) }
            self.plane = plane
            return
        }
        // Squares are kept only where the tiles or HashLife take them (`RunSetup`).
        precondition(setup.pattern?.stateTree == nil || life != nil, "a pattern's squares on a board that holds cells")
        if setup.isUnbounded {
            board = nil
            edges = setup.shape.edges
            let along = edges?.unboundedAlong
            let window = try GrowingWindow.around(setup.startingParts, reach: engine.reach, states: setup.rule.states, along: along,
                                                  tight: engine.leap != nil && along == nil)
            (cells, origin) = (start(window?.cells ?? BitGrid(width: 0, height: 0)), window?.origin ?? (0, 0))
        } else {
            (board, edges) = (setup.shape, setup.shape.edges)
            try GrowingWindow.checkFits(width: setup.shape.width, height: setup.shape.height, states: engine.states,
                                        what: "the \(setup.shape) board", fix: "give a smaller grid")
            origin = (setup.shape.left, setup.shape.top)
            cells = start(setup.start.cells(x: 0, y: 0, width: setup.shape.width, height: setup.shape.height, of: setup.shape))
        }
        if let states, let pattern = setup.pattern, !pattern.hasParts, cells.width > 0 {
            let (left, top) = pattern.topLeft(on: setup.shape.topology)
            cells.place(states, atX: left - origin.x, y: top - origin.y)
        }
    }

    func advance(_ generations: UInt64) async throws {
        if life != nil { return try stepSquares(generations) }
        if plane != nil { return try stepPlane(generations) }
        if let leap = engine.leap, engine.fixedStep != nil, board == nil, edges == nil {
            // HashLife throughout: the window only as it was read.
            if cells.width > 0 {
                let leapt = try leap(cells, origin, 0, .infinity)
                (cells, origin, life) = (leapt.cells, leapt.origin, leapt.life)
            }
            if life != nil { return try stepSquares(generations) }
        }
        guard let leap = engine.leap, board == nil, edges == nil, generations >= Self.leastLeap else {
            return try stepWindow(generations)
        }
        // The window first, to learn what a generation costs stepped whole; then HashLife
        // for as long as it keeps within that; then the window again.
        let clock = ContinuousClock(), start = clock.now
        try stepWindow(Self.probe)
        let perGeneration = (clock.now - start).seconds / Double(Self.probe)
        var left = generations - Self.probe
        if cells.width > 0 {
            let leapt = try leap(cells, origin, left, perGeneration)
            (cells, origin, life) = (leapt.cells, leapt.origin, leapt.life)
            generation += leapt.done
            left -= leapt.done
        }
        if life != nil { return }
        try stepWindow(left)
    }

    /// Steps `life` by HashLife, in `hashLifeSteps`.
    private func stepSquares(_ generations: UInt64) throws {
        generation += try Self.hashLifeSteps(generations, fixed: engine.fixedStep, growing: false) { life!.step(exponent: $0) }
    }

    /// Takes `generations` in HashLife's steps, each `step(exponent)` 2^exponent
    /// generations: an eighth of the run (at least 16), or where `growing` 16 doubling up
    /// to that (a HashLife that may be behind learns it in its first steps), or
    /// `fixed`'s throughout (`--step`); as the count left allows, and its binary digits
    /// at the end. Stops early where `goesOn`, asked after each step with the generations
    /// done, says no. The generations done. A new step size forgets every result
    /// HashLife remembers, so the sizes change as seldom as that allows: doubling to the
    /// end changed them ten times in 1000 generations, and a machine's static parts were
    /// worked out again each time (Goucher's Codd replicator 0.19 s of user time against
    /// 0.08 in steps of 64; steps of 8, 0.05, left JvN-loop-replicator 4.7 s against 1.0).
    static func hashLifeSteps(_ generations: UInt64, fixed: Int? = nil, growing: Bool = true, step: (Int) throws -> Void,
                              goesOn: (UInt64) -> Bool = { _ in true }) throws -> UInt64 {
        let most = fixed ?? max(4, Int.bitWidth - 1 - max(1, generations / 8).leadingZeroBitCount)
        var done: UInt64 = 0, exponent = fixed ?? (growing ? 4 : most)
        while done < generations {
            try Task.checkCancellation()
            let next = min(exponent, Int.bitWidth - 1 - (generations - done).leadingZeroBitCount)
            try step(next)
            done += 1 << UInt64(next)
            if !goesOn(done) { break }
            if next == exponent, exponent < most { exponent += 1 }
        }
        return done
    }

    /// Steps the sparse plane `generations` generations.
    private func stepPlane(_ generations: UInt64) throws {
        for done in 0..<generations {
            if done % 64 == 0 { try Task.checkCancellation() }
            guard !plane!.isEmpty else {
                generation += generations - done
                return
            }
            try plane!.advance { planes in
                let board = Cells(bitPlanes: planes)
                var next = board.empty(width: board.width, height: board.height)
                try engine.step(board, &next, false)
                return next.bitPlanes
            }
            generation += 1
        }
    }

    /// Steps the window (or the bounded board) `generations` generations.
    private func stepWindow(_ generations: UInt64) throws {
        var next = cells.empty(width: cells.width, height: cells.height)
        for done in 0..<generations {
            if done % 64 == 0 { try Task.checkCancellation() }
            // An engine that steps the whole board needs the live cells' box only when they
            // reach the window's edge, and to see whether they died out, now and then.
            let needsLive = !engine.tracksChanges || (board == nil && (done % 64 == 0 || cells.reachesEdge(engine.reach)))
            // Where life is, found once a generation for the window and the region both
            // (a bounded board needs only its box).
            let occupied = needsLive && board == nil ? cells.occupied : nil
            var live = occupied?.liveBounds ?? (needsLive ? cells.liveBounds : nil)
            if let occupied {
                guard cells.width > 0, let box = live else {
                    generation += generations - done
                    return
                }
                if GrowingWindow.reachesEdge(occupied, reach: engine.reach, rows: !(along?.across ?? false),
                                             columns: along?.across ?? true) {
                    live = try regrow(around: box)
                    next = cells.empty(width: cells.width, height: cells.height)
                }
            }
            try step(into: &next, live: live)
            swap(&cells, &next)
            generation += 1
        }
    }

    /// The fewest generations a HashLife is asked for: fewer (a viewer's frame) step the
    /// window, with no tree to build and read back.
    static var leastLeap: UInt64 { 64 }
    /// The generations stepped whole before a HashLife, to learn what one costs so.
    static var probe: UInt64 { 4 }

    /// One generation into `next`: of the region of the live cells' box `live` alone
    /// where it is confined, the rest 0; the whole board where a cell may change alone.
    private func step(into next: inout Cells, live: TileRect?) throws {
        // A strip's joined sides are dead: its window steps as the plane's does.
        switch edges {
        case nil, .strip?: break
        case let edges?: return next = try step(joining: edges)
        }
        let wraps = board?.topology == .torus
        if engine.tracksChanges { return try engine.step(cells, &next, wraps) }
        guard !engine.changesAlone,
              let region = ActiveRegion.of(live, reach: engine.reach, width: cells.width,
                                           height: cells.height, wraps: wraps),
              region.width < cells.width || region.height < cells.height else {
            return try engine.step(cells, &next, wraps)
        }
        next = cells.empty(width: cells.width, height: cells.height)
        guard region.width > 0, region.height > 0 else { return }
        var part = cells.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
        part.markEdgesChanged(reach: engine.reach)
        var stepped = part.empty(width: region.width, height: region.height)
        try engine.step(part, &stepped, false)
        next.place(stepped, atX: region.x, y: region.y)
        next.placeChanges(of: stepped, atX: region.x, y: region.y)
    }

    /// One generation of a grid whose edges meet as `edges` say: the cells with a border
    /// one cell wide filled as Golly fills it, stepped with nothing beyond, the border dropped.
    private func step(joining edges: EdgeJoin) throws -> Cells {
        let (width, height) = (cells.width, cells.height)
        var padded = cells.empty(width: width + 2, height: height + 2)
        padded.place(cells, atX: 1, y: 1)
        // What changed inside is known; the border, copied from anywhere, may all have.
        padded.placeChanges(of: cells, atX: 1, y: 1)
        padded.markEdgesChanged(reach: 1)
        if case .tube(let across, _) = edges {
            // The joined sides' rows (or columns), whole, as `EdgeJoin.fillBorder` fills
            // them a cell at a time: a tube's window is long, and stepped 64 cells a word.
            if across {
                padded.place(cells.cropped(x: 0, y: height - 1, width: width, height: 1), atX: 1, y: 0)
                padded.place(cells.cropped(x: 0, y: 0, width: width, height: 1), atX: 1, y: height + 1)
            } else {
                padded.place(cells.cropped(x: width - 1, y: 0, width: 1, height: height), atX: 0, y: 1)
                padded.place(cells.cropped(x: 0, y: 0, width: 1, height: height), atX: width + 1, y: 1)
            }
        } else {
            edges.fillBorder(width: width, height: height, state: { cells[state: $0, $1] }, set: { padded[state: $0 + 1, $1 + 1] = $2 })
        }
        var stepped = padded.empty(width: width + 2, height: height + 2)
        try engine.step(padded, &stepped, false)
        return stepped.cropped(x: 1, y: 1, width: width, height: height)
    }

    /// A new window around the live cells, with room again; their box in it. A tube's or
    /// strip's window keeps its sides and grows along it only.
    private func regrow(around live: TileRect) throws -> TileRect {
        let keep: TileRect, margins: (x: Int, y: Int), width: Int, height: Int
        if let along {
            let room = GrowingWindow.margin(reach: engine.reach, size: along.across ? live.width : live.height)
            keep = along.across ? TileRect(x: live.x, y: 0, width: live.width, height: cells.height)
                : TileRect(x: 0, y: live.y, width: cells.width, height: live.height)
            margins = along.across ? (room, 0) : (0, room)
            (width, height) = (keep.width + 2 * margins.x, keep.height + 2 * margins.y)
            try GrowingWindow.checkFits(width: width, height: height, states: engine.states, what: "a \(width)x\(height) window of the grid",
                                        fix: "run fewer generations")
        } else {
            let window = try GrowingWindow.grown(width: live.width, height: live.height, reach: engine.reach, states: engine.states)
            (keep, margins, width, height) = (live, window.margins, window.width, window.height)
        }
        var grown = cells.empty(width: width, height: height)
        grown.place(cells.cropped(x: keep.x, y: keep.y, width: keep.width, height: keep.height), atX: margins.x, y: margins.y)
        origin = (origin.x + keep.x - margins.x, origin.y + keep.y - margins.y)
        cells = grown
        return TileRect(x: live.x - keep.x + margins.x, y: live.y - keep.y + margins.y, width: live.width, height: live.height)
    }

    /// The cells in any state but 0.
    func countPopulation() -> Int { life != nil ? life!.population() : plane?.population ?? cells.occupied.population }
    func fill() -> Double { 1 }

    // MARK: As viewers and files see it

    func extent() -> (x: Int, y: Int, width: Int, height: Int) {
        if let board { return (0, 0, board.width, board.height) }
        if life != nil {
            return Viewport.board(fitting: life!.liveBounds().map { CellBounds(left: $0.x, top: $0.y, width: $0.width, height: $0.height) })
        }
        if let plane { return Viewport.board(fitting: plane.bounds) }
        return Viewport.board(fitting: cells.occupied.liveBounds.map {
            CellBounds(left: origin.x + $0.x, top: origin.y + $0.y, width: $0.width, height: $0.height)
        })
    }

    var tiles: (columns: Int, rows: Int) { (1, 1) }
    /// A bounded grid's cells may be edited, rewound and saved; the unbounded plane's
    /// window grows and moves under a viewer.
    nonisolated var isEditable: Bool { board != nil }
    nonisolated var stateCount: Int { engine.states }

    /// A dot is lit where a cell under it is in any state but 0. The viewport is a
    /// bounded grid's own coordinates, or Golly's.
    func frame(_ viewport: Viewport) -> BitGrid {
        if life != nil { return life!.dots(in: viewport) }
        if let plane {
            var dots = BitGrid(width: viewport.width, height: viewport.height)
            plane.forEachDot(in: viewport) { column, row, _ in dots[column, row] = true }
            return dots
        }
        let corner = corner(of: viewport)
        return cells.occupied.dots(in: viewport, left: corner.x, top: corner.y)
    }

    /// The frame's dots in their states, for a family of more than two; nil for two.
    func stateFrame(_ viewport: Viewport) -> (dots: [UInt8], states: Int)? {
        guard engine.states > 2 else { return nil }
        if life != nil { return (life!.stateDots(in: viewport), engine.states) }
        if let plane {
            // Each dot the lowest state but 0 under it, as `StateGrid.stateDots`.
            var dots = [UInt8](repeating: 0, count: viewport.width * viewport.height)
            plane.forEachDot(in: viewport) { column, row, state in
                let at = row * viewport.width + column
                if dots[at] == 0 || Int(dots[at]) > state { dots[at] = UInt8(clamping: state) }
            }
            return (dots, engine.states)
        }
        let corner = corner(of: viewport)
        return cells.dotsInStates(viewport, left: corner.x, top: corner.y).map { ($0, engine.states) }
    }

    /// Where `viewport` starts in `cells`: its coordinates are a bounded grid's own, or Golly's.
    private func corner(of viewport: Viewport) -> (x: Int, y: Int) {
        board == nil ? (viewport.x - origin.x, viewport.y - origin.y) : (viewport.x, viewport.y)
    }

    /// The sparse plane's cells as a window of their box, and Golly's coordinates of its
    /// top-left; or the window itself.
    private var window: (cells: Cells, origin: (x: Int, y: Int)) {
        guard let plane else { return (cells, origin) }
        guard let box = plane.bounds else { return (cells.empty(width: 0, height: 0), (0, 0)) }
        return (Cells(bitPlanes: plane.planes(in: box)), (box.left, box.top))
    }

    func liveBounds() -> TileRect? { board == nil ? nil : cells.liveBounds }
    func cells(in rect: TileRect) throws -> BitGrid {
        try checkHeldAsCells()
        return window.cells.occupied.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    func collect() throws -> BitGrid {
        try checkHeldAsCells()
        return window.cells.occupied
    }

    private func checkHeldAsCells() throws {
        guard life == nil else {
            throw TesseraError("this run's cells are held as HashLife's squares, too many for a grid", fix: "write them with --output")
        }
    }

    func collectStates() throws -> StateGrid {
        try checkHeldAsCells()
        return window.cells.asStates
    }

    /// Cells of two states come in state 1.
    func load(generation: UInt64, cells made: @escaping @Sendable (TileRect) -> BitGrid) throws {
        let ones = made(TileRect(x: 0, y: 0, width: cells.width, height: cells.height))
        try load(generation: generation, states: StateGrid(ones: ones, states: engine.states))
    }

    func load(generation: UInt64, states: StateGrid) throws {
        guard board != nil else { throw TesseraError.unboundedIsNotEditable }
        guard states.width == cells.width, states.height == cells.height else {
            throw TesseraError("a \(states.width)x\(states.height) board loaded into a \(cells.width)x\(cells.height) one")
        }
        (cells, self.generation) = (Cells(states, states: engine.states), generation)
    }

    func write(_ output: BoardOutput) async throws {
        if var held = life {
            // Read, not changed: the copy's squares are those of `life`.
            let box = held.liveBounds().map { CellBounds(left: $0.x, top: $0.y, width: $0.width, height: $0.height) }
            try output.write(statesIn: box, rule: rule, generation: generation,
                             squares: { held.gollySquares() }, row: { held.forEachCell(inRow: $0, $1) })
            return
        }
        if let plane { return try write(plane, to: output) }
        try await engine.write(output, cells, origin, board != nil, generation)
    }

    /// Writes the sparse plane tile by tile, never as a window of its box: two states as
    /// parts, more as rows of cells or a macrocell's squares.
    private func write(_ plane: StackedPlane, to output: BoardOutput) throws {
        guard engine.states > 2 else { return try output.write(parts: plane.parts, rule: rule, generation: generation) }
        let columns = plane.columnsByRow
        try output.write(statesIn: plane.bounds, rule: rule, generation: generation, squares: { plane.squares() }) { y, body in
            plane.forEachCell(inRow: y, columns: columns, body)
        }
    }
}

extension WholeBoard where Cells == BitGrid {
    /// Larger than Life (two states), as Golly's ltlalgo runs it.
    static func largerThanLife(_ setup: RunSetup) throws -> WholeBoard<BitGrid> {
        guard let ltl = setup.rule.largerThanLife else { preconditionFailure("a Larger than Life board for \(setup.rule)") }
        try checkRuns(ltl, setup)
        let rule = setup.rule
        let engine = Engine(reach: ltl.range, states: 2, changesAlone: ltl.bornFromNothing, step: { try ltl.step($0, into: &$1, wraps: $2, onEveryCore: true) },
                            write: { try await write($1, of: rule, to: $0, origin: $2, bounded: $3, generation: $4) })
        return try WholeBoard(setup, engine: engine, start: { $0 }, states: nil)
    }

    /// A two-state rule of the 3x3 neighbourhood, without B0, on one of Golly's other
    /// grids (a tube, a Klein bottle, …): the padded board (`step(joining:)`) steps in
    /// the tiles' kernel, 64 cells a word, rather than as a rule tree a cell at a time.
    static func twoStateJoined(_ setup: RunSetup) throws -> WholeBoard<BitGrid> {
        let rule = setup.rule
        precondition(rule.isTwoStateMoore && rule.emulation == .none && setup.shape.edges != nil)
        let kernel = Kernel.best
        let engine = Engine(reach: 1, states: 2, changesAlone: false, step: { source, target, _ in target = Self.step(source, rule: rule, using: kernel) },
                            write: { try await write($1, of: rule, to: $0, origin: $2, bounded: $3, generation: $4) })
        return try WholeBoard(setup, engine: engine, start: { $0 }, states: nil)
    }

    /// One generation of `cells` under `rule`, dead beyond the edges.
    static func step(_ cells: BitGrid, rule: Rule, using kernel: Kernel.Implementation) -> BitGrid {
        guard cells.width > 0, cells.height > 0 else { return cells }
        // A dead row above and below: the kernel reads one row past those it steps.
        let source = CellBuffer(width: cells.width, height: cells.height + 2)
        let target = CellBuffer(width: cells.width, height: cells.height + 2)
        source.prepare(rows: 0..<(cells.height + 2))
        target.prepare(rows: 0..<(cells.height + 2))
        source.insert(cells, atX: 0, y: 1)
        Kernel.step(source, into: target, rows: 1..<(cells.height + 1), rule: rule, using: kernel)
        return target.extract(x: 0, y: 1, width: cells.width, height: cells.height)
    }
}

extension WholeBoard {
    /// Writes two-state cells as Golly writes them.
    static func write(_ cells: BitGrid, of rule: Rule, to output: BoardOutput, origin: (x: Int, y: Int), bounded: Bool,
                      generation: UInt64) async throws {
        guard bounded else {
            let parts = cells.liveBounds.map {
                [PlacedCells(cells: cells.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height),
                             left: origin.x + $0.x, top: origin.y + $0.y)]
            } ?? []
            return try output.write(parts: parts, rule: rule, generation: generation)
        }
        try await output.write(generation: generation, live: cells.liveBounds) {
            cells.cropped(x: $0.x, y: $0.y, width: $0.width, height: $0.height)
        }
    }
}

extension WholeBoard where Cells == StateGrid {
    /// A Generations rule of three states or more, as Golly's generationsalgo runs it.
    static func generations(_ setup: RunSetup) throws -> WholeBoard<StateGrid> {
        guard let generations = setup.rule.generations else { preconditionFailure("a Generations board for \(setup.rule)") }
        // Compiled once, not a generation.
        let alive = generations.alive, count = generations.states
        return try states(setup, reach: 1, changesAlone: false) { try $0.step(alive: alive, states: count, into: &$1, wraps: $2, onEveryCore: true) }
    }

    /// A rule from a Golly rule file, as Golly's RuleLoader runs it; or a two-state rule
    /// of the 3x3 neighbourhood with B0 on a grid whose edges meet as Golly's other grids
    /// do (without B0: `twoStateJoined`).
    static func ruleTree(_ setup: RunSetup) throws -> WholeBoard<StateGrid> {
        let tree = try setup.rule.tree ?? RuleTree(twoState: setup.rule)
        // What a cell with nothing but state 0 around it becomes.
        let quiet = tree.next(Array(repeating: 0, count: tree.neighbourhood == .moore ? 9 : 5))
        if quiet != 0, setup.isUnbounded {
            throw TesseraError("rule \(setup.rule) turns empty space into state \(quiet), which the unbounded plane cannot hold",
                               fix: "give the rule a bounded grid, such as \(setup.rule):T500,500")
        }
        var leap: Leap?
        if quiet == 0 { leap = { try hashLife(tree, $0, from: $1, generations: $2, perGeneration: $3) } }
        // A macrocell's squares stay squares (`RunSetup` makes them cells anywhere but
        // on the unbounded plane).
        let life = try setup.pattern?.stateTree.map { StateHashLife(tree: tree, squares: try fitted($0, to: setup.rule)) }
        return try states(setup, reach: 1, changesAlone: quiet != 0, tracksChanges: true, leap: leap, life: life,
                          fixedStep: setup.stateHashLifeStep.map { $0.trailingZeroBitCount }) {
            try $0.step(tree, into: &$1, wraps: $2, onEveryCore: true)
        }
    }

    /// Up to `generations` of the cells by HashLife (`StateHashLife`), as Golly's
    /// RuleLoader and JvN engines step a rule tree: a machine that repeats (signals on
    /// wires, a replicator's tape) costs what is new in it, not its box. In
    /// `hashLifeSteps`; it hands back as soon as it has taken longer than stepping the
    /// window would have (a gas, a soup), plus 20 ms for building the tree.
    private static func hashLife(_ tree: RuleTree, _ cells: StateGrid, from origin: (x: Int, y: Int), generations: UInt64,
                                 perGeneration: Double) throws
        -> (cells: StateGrid, origin: (x: Int, y: Int), done: UInt64, life: StateHashLife?) {
        let clock = ContinuousClock(), start = clock.now
        var life = StateHashLife(tree: tree, grid: cells, left: origin.x, top: origin.y)
        var previous = (done: UInt64(0), seconds: 0.0)
        let done = try hashLifeSteps(generations, step: { life.step(exponent: $0) }, goesOn: { done in
            // The next step is twice this one: where it would cost twice as much too (a
            // gas), HashLife stops before it if that would leave it behind, rather than
            // after (Margolus/DLA's HashLife share of its 1000 generations: 23% → 10%).
            let seconds = (clock.now - start).seconds
            let step = (generations: done - previous.done, seconds: seconds - previous.seconds)
            previous = (done, seconds)
            return seconds + 2 * step.seconds <= perGeneration * Double(done + 2 * step.generations) + 0.02
        })
        // All of it: the squares stay squares (a window of a machine's box would be its
        // memory, and is made only where a viewer or a frame needs cells).
        if done == generations { return (cells.empty(width: 0, height: 0), origin, done, life) }
        guard let box = life.liveBounds() else { return (cells.empty(width: 0, height: 0), origin, done, nil) }
        let window = try GrowingWindow.grown(width: box.width, height: box.height, reach: 1, states: tree.states)
        let left = box.x - window.margins.x, top = box.y - window.margins.y
        var grown = cells.empty(width: window.width, height: window.height)
        life.forEachCell { x, y, state in grown[x - left, y - top] = state }
        return (grown, (left, top), done, nil)
    }

    /// Larger than Life with history states, as Golly's ltlalgo runs it.
    static func largerThanLifeWithHistory(_ setup: RunSetup) throws -> WholeBoard<StateGrid> {
        guard let ltl = setup.rule.largerThanLife else { preconditionFailure("a Larger than Life board for \(setup.rule)") }
        try checkRuns(ltl, setup)
        return try states(setup, reach: ltl.range, changesAlone: ltl.bornFromNothing) { try $0.step(ltl, into: &$1, wraps: $2, onEveryCore: true) }
    }

    private static func states(_ setup: RunSetup, reach: Int, changesAlone: Bool, tracksChanges: Bool = false,
                               leap: Leap? = nil, life: StateHashLife? = nil, fixedStep: Int? = nil,
                               step: @escaping @Sendable (StateGrid, inout StateGrid, Bool) throws -> Void) throws -> WholeBoard<StateGrid> {
        let rule = setup.rule
        var engine = Engine(reach: reach, states: rule.states, changesAlone: changesAlone, step: step,
                            write: { output, cells, origin, bounded, generation in
            // A two-state rule on one of Golly's other grids is written as two states are.
            guard rule.states > 2 else {
                return try await write(cells.occupied, of: rule, to: output, origin: origin, bounded: bounded, generation: generation)
            }
            try output.write(states: cells, left: origin.x, top: origin.y, rule: rule, generation: generation)
        })
        (engine.tracksChanges, engine.leap, engine.fixedStep) = (tracksChanges, leap, fixedStep)
        return try WholeBoard(setup, engine: engine, start: { StateGrid(ones: $0, states: rule.states) },
                              states: try setup.pattern?.states.map { try fitted($0, to: rule) }, life: life)
    }

    /// A pattern's states as the run's rule holds them: a file read under one rule and
    /// run under another (`--rule`) may hold states this one has not, which is refused.
    static func fitted(_ states: StateGrid, to rule: Rule) throws -> StateGrid {
        let occupied = states.occupied
        for y in 0..<states.height {
            try occupied.forEachLive(inRow: y) { x in
                guard states[x, y] < rule.states else { throw pastStates(states[x, y], of: rule) }
            }
        }
        return StateGrid(states, states: rule.states)
    }
}

extension WholeBoard {
    /// A pattern read under one rule and run under another (`--rule`) holding a state
    /// this one has not.
    static func pastStates(_ state: Int, of rule: Rule) -> TesseraError {
        TesseraError("the pattern has cells in state \(state), past the \(rule.states) states of \(rule)",
                     fix: "run it under its own rule, or one with more states")
    }

    /// A pattern's squares as the run's rule holds them: refused where they hold a state
    /// it has not (a file read under one rule and run under another, `--rule`).
    static func fitted(_ squares: StateQuadTree, to rule: Rule) throws -> StateQuadTree {
        let highest = squares.highestState
        guard highest < rule.states else { throw pastStates(highest, of: rule) }
        return squares
    }

    /// Refuses B0 on the unbounded plane, as Golly does.
    static func checkRuns(_ ltl: LargerThanLife, _ setup: RunSetup) throws {
        if setup.isUnbounded, ltl.bornFromNothing {
            throw TesseraError("Larger than Life rule \(ltl) has B0, which Golly allows only on a bounded grid",
                               fix: "give the rule a suffix such as \(ltl):T400,400")
        }
    }
}
