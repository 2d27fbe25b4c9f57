import Synchronization
import TesseraCore

/// Owns one tile's cells. Every round it sends its edges to its neighbours, waits for
/// their edges to fill its halo, then advances up to the halo depth alone. Nothing
/// reads its cells except through its methods, which return values.
///
/// A round suspends (sending edges, waiting for halos), and other calls run while it
/// does; so `run` refuses to start twice, and whatever reads or replaces the cells
/// refuses while a run is in progress instead of seeing half a round.
public actor TileActor {
    public nonisolated let id: TileID
    public nonisolated let rect: TileRect
    /// How far the tile has come, readable from any thread (a heartbeat's).
    public nonisolated let progress = TileProgress()
    private let engine: any TileStepping
    private var links: [Direction: any HaloLink] = [:]
    public private(set) var generation: UInt64
    /// Strips in hand, by generation: at most this round's and the next one's.
    private var inbox: [UInt64: [Direction: HaloStrip]] = [:]
    /// Sides already filled, by generation (a tile's own strips, on a torus one tile across).
    private var filled: [UInt64: Set<Direction>] = [:]
    private var waiter: (generation: UInt64, halos: Completion<Void>)?
    private var running = false
    private var failure: (any Error)?
    private let overlap: Bool
    /// The states a cell may be in: planes from elsewhere must hold none past them.
    private let stateCount: Int
    /// Bytes of halo cells this tile has sent.
    public private(set) var sentBytes = 0

    /// - Parameters:
    ///   - deadSides: the sides where a plane board ends.
    ///   - skipping: whether rounds skip the blocks that cannot change (off: every cell,
    ///     every generation, for comparison).
    /// - Throws: when `implementation` does not run on this CPU.
    public init(id: TileID, rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>,
                start: TileStart, generation: UInt64 = 0, implementation: Kernel.Implementation = Kernel.best,
                overlap: Bool? = nil, blocking: Bool? = nil, skipping: Bool = true) throws {
        try implementation.checkSupported()
        self.id = id
        self.rect = rect
        self.generation = generation
        // The families' whole-buffer steps have no frames to take late halos.
        self.overlap = rule.isTwoStateMoore && (overlap ?? TileEngine.overlapPays(rect: rect, depth: depth, rule: rule))
        stateCount = rule.states
        // Refused before any cells are made of it.
        if case .moved(let state) = start {
            // A two-state tile's layers are its cells and the generation before.
            let layers = rule.statePlanes ?? 2
            guard state.layers.count == layers, state.width == rect.width, state.height == rect.height else {
                throw TesseraError("tile \(id) moved as \(state.layers.count) layers of \(state.width)x\(state.height) cells, where it is \(layers) of \(rect.width)x\(rect.height)")
            }
            if rule.steppedAsStates { try Self.check(StateGrid(layers: state.layers), of: rule.states, "tile \(id) moved") }
        }
        if case .painted(let starting, _) = start {
            for states in starting.overlays.compactMap(\.states) { try Self.check(states, of: rule.states, "a pattern for tile \(id)") }
        }
        engine = StateTileEngine(rect: rect, depth: depth, rule: rule, deadSides: deadSides, start: start, implementation: implementation)
            ?? TileEngine(rect: rect, depth: depth, rule: rule, deadSides: deadSides, start: start,
                          implementation: implementation, blocking: blocking, skipping: skipping)
        progress.record(generation: generation)
    }

    public init(id: TileID, rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>,
                cells: BitGrid, generation: UInt64 = 0, implementation: Kernel.Implementation = Kernel.best,
                overlap: Bool? = nil, blocking: Bool? = nil, skipping: Bool = true) throws {
        try self.init(id: id, rect: rect, depth: depth, rule: rule, deadSides: deadSides, start: .cells(cells),
                      generation: generation, implementation: implementation, overlap: overlap, blocking: blocking,
                      skipping: skipping)
    }

    /// Sets the link to the neighbour on each side that has one. A halo from this tile
    /// itself (a torus one tile across) is in hand at once; with overlap, the others
    /// are late and go into the engine's frames.
    public func connect(_ links: [Direction: any HaloLink]) {
        self.links = links
        if overlap { engine.expectLate(Set(links.filter { $0.value.tile != id }.keys)) }
        engine.wrapAcross(links[.west]?.tile == id && links[.east]?.tile == id)
    }

    /// Accepts a strip from a neighbour. A neighbour runs at most one round ahead, so
    /// only strips for this round or the next are taken, each side once, and only of
    /// the halo's size; anything else is refused with an error that says why, and
    /// changes nothing.
    public func receive(_ strip: HaloStrip) throws {
        guard links[strip.side] != nil else {
            throw TesseraError("tile \(id) has no neighbour on its \(strip.side) side to take a halo strip from")
        }
        let size = engine.haloSize(strip.side)
        for piece in strip.pieces where piece.box(side: strip.side, width: size.width, height: size.height) == nil {
            throw TesseraError("a \(piece.cells.width)x\(piece.cells.height) piece at \(piece.offset) of a halo strip for the \(strip.side) side of tile \(id), whose halo there is \(size.width)x\(size.height)")
        }
        for piece in strip.pieces where piece.layers.count != engine.layerCount {
            throw TesseraError("a halo piece of \(piece.layers.count) layers for tile \(id), whose cells have \(engine.layerCount)")
        }
        if stateCount > 2 {
            for piece in strip.pieces { try Self.check(StateGrid(layers: piece.layers), of: stateCount, "a halo piece for tile \(id)") }
        }
        guard strip.generation >= generation, strip.generation - generation <= UInt64(engine.depth) else {
            throw TesseraError("tile \(id) at generation \(generation) got a halo strip for generation \(strip.generation)")
        }
        guard inbox[strip.generation]?[strip.side] == nil, filled[strip.generation]?.contains(strip.side) != true else {
            throw TesseraError("tile \(id) already has its \(strip.side) halo strip for generation \(strip.generation)")
        }
        inbox[strip.generation, default: [:]][strip.side] = strip
        if let waiter, waiter.generation == strip.generation, haloesComplete(strip.generation) {
            waiter.halos.succeed()
        }
    }

    /// Refuses planes from elsewhere more than the rule's `count` states take, or holding
    /// a state past them: the engines' copies and steps take neither.
    private static func check(_ states: StateGrid, of count: Int, _ what: String) throws {
        guard states.planes.count <= StateGrid.planes(for: count), states.holdsOnly(below: count) else {
            throw TesseraError("\(what) holds states past the \(count) of its rule")
        }
    }

    /// Stops a run in progress with `error` (a lost neighbour, say).
    public func fail(_ error: any Error) {
        failure = failure ?? error
        waiter?.halos.fail(error)
    }

    /// Runs `generations` generations, trading halos every `engine.depth` generations.
    /// The interior steps while the halos travel (see `TileEngine`). Cancelling the
    /// task that runs it ends a wait for halos at once.
    public func run(generations: UInt64) async throws {
        guard !running else { throw TesseraError("tile \(id) is already running") }
        guard generation.addingReportingOverflow(generations).overflow == false else {
            throw TesseraError("tile \(id) cannot run \(generations) generations past generation \(generation)")
        }
        running = true
        defer { running = false }
        var remaining = generations
        while remaining > 0 {
            if let failure { throw failure }
            try Task.checkCancellation()
            let steps = Int(min(UInt64(engine.depth), remaining))
            let overlapped = engine.planRound(steps, from: generation)
            for (side, link) in links {
                let (pieces, whole) = engine.strip(for: side)
                let strip = HaloStrip(tile: link.tile, side: side.opposite, generation: generation, pieces: pieces, whole: whole)
                sentBytes += strip.cellBytes
                try await link.send(strip)
            }
            // Compute is the thread's CPU time over the two stretches with no `await` in
            // them; the wait is wall time. On a busy machine a tile's wall time counts the
            // turns other processes took, and would make an idle worker's tiles look busy.
            let clock = ContinuousClock()
            let interiorStart = CPUClock.thread
            // A tile's own strips (a torus one tile across) are already in.
            for (side, strip) in inbox[generation] ?? [:] where links[side]?.tile == id {
                try engine.fillHalo(strip)
                inbox[generation]![side] = nil
                filled[generation, default: []].insert(side)
            }
            if overlapped { try engine.beginRound(steps) }
            let (interior, waitStart) = (CPUClock.thread - interiorStart, clock.now)
            try await haloes(for: generation)
            let (waited, computeStart) = (clock.now - waitStart, CPUClock.thread)
            for strip in (inbox.removeValue(forKey: generation) ?? [:]).values {
                try engine.fillHalo(strip)
            }
            filled[generation] = nil
            if !overlapped { try engine.beginRound(steps) }
            engine.finishRound(steps)
            generation += UInt64(steps)
            remaining -= UInt64(steps)
            progress.record(generation: generation, compute: interior + (CPUClock.thread - computeStart), wait: waited)
        }
    }

    private func haloes(for generation: UInt64) async throws {
        if haloesComplete(generation) { return }
        if let failure { throw failure }
        let halos = Completion<Void>()
        waiter = (generation, halos)
        defer { waiter = nil }
        try await halos.value()
    }

    /// Whether a run waits for its neighbours' strips right now.
    var isWaitingForHalos: Bool { waiter != nil }

    private func haloesComplete(_ generation: UInt64) -> Bool {
        (inbox[generation]?.count ?? 0) + (filled[generation]?.count ?? 0) == links.count
    }

    private func checkIdle(_ what: String) throws {
        guard !running else { throw TesseraError("tile \(id) cannot \(what) while it runs: its cells are between generations") }
    }

    public func population() throws -> Int {
        try checkIdle("count its cells")
        return engine.population
    }

    /// The smallest rectangle (board coordinates) holding every live cell of this tile,
    /// of those in `area` (board coordinates) if given; nil when it has none.
    public func liveBounds(in area: TileRect? = nil) throws -> TileRect? {
        try checkIdle("look for its live cells")
        let within = area.map { TileRect(x: $0.x - rect.x, y: $0.y - rect.y, width: $0.width, height: $0.height) }
        return engine.liveBounds(within: within).map { TileRect(x: rect.x + $0.x, y: rect.y + $0.y, width: $0.width, height: $0.height) }
    }

    /// Replaces the tile's cells (a new pattern, an edit, a rewind) between runs, in
    /// their `states` where given (the rule's planes at most).
    public func load(_ cells: BitGrid, states: StateGrid? = nil, generation: UInt64) throws {
        try checkIdle("take new cells")
        guard cells.width == rect.width, cells.height == rect.height else {
            throw TesseraError("cells for tile \(id) are \(cells.width)x\(cells.height), expected \(rect.width)x\(rect.height)")
        }
        if let states {
            guard states.width == rect.width, states.height == rect.height else {
                throw TesseraError("states for tile \(id) are \(states.width)x\(states.height), expected \(rect.width)x\(rect.height)")
            }
            try Self.check(states, of: stateCount, "cells for tile \(id)")
            engine.load(states: states)
        } else {
            engine.load(cells)
        }
        self.generation = generation
        inbox.removeAll()
        filled.removeAll()
        progress.record(generation: generation)
    }

    /// Everything needed to carry the tile on elsewhere (`TileStart.moved`).
    public func state() throws -> TileState {
        try checkIdle("move")
        return engine.state(tile: id, generation: generation)
    }

    /// The tiles on `sides` moved: their new hosts need whole strips.
    public func neighboursMoved(_ sides: Set<Direction>) {
        for side in sides { engine.resend(side) }
    }

    /// The dots of `view` this tile covers: a dot is lit when any cell under it is alive
    /// (within `clip`, board coordinates, if given). Only the reduced dots leave the
    /// tile, never its cells.
    public func dots(in view: Viewport, clip: TileRect? = nil) throws -> (x: Int, y: Int, dots: BitGrid)? {
        try checkIdle("draw a frame")
        guard let area = clip.map(rect.intersection) ?? rect, let (columns, rows) = view.dots(covering: area) else { return nil }
        var dots = BitGrid(width: columns.count, height: rows.count)
        let z = view.cellsPerDot
        let seen = TileRect(x: view.x + columns.lowerBound * z, y: view.y + rows.lowerBound * z,
                            width: columns.count * z, height: rows.count * z).intersection(area)!
        // Dots lit in each row of dots: a row all lit needs none of its other cell rows.
        var lit = [Int](repeating: 0, count: rows.count)
        let inside = TileRect(x: seen.x - rect.x, y: seen.y - rect.y, width: seen.width, height: seen.height)
        engine.visitLive(in: inside, from: { y in
            let dy = (rect.y + y - view.y) / z
            return lit[dy - rows.lowerBound] == columns.count ? view.y + (dy + 1) * z - rect.y : y
        }) { x, y in
            let dx = (rect.x + x - view.x) / z, dy = (rect.y + y - view.y) / z
            if !dots[dx - columns.lowerBound, dy - rows.lowerBound] {
                dots[dx - columns.lowerBound, dy - rows.lowerBound] = true
                lit[dy - rows.lowerBound] += 1
            }
            return view.x + (dx + 1) * z - rect.x
        }
        return (columns.lowerBound, rows.lowerBound, dots)
    }

    /// Each dot's lowest state but 0 (as `StateGrid.stateDots` gives it) over the dots at
    /// (x, y), `width`×`height` of `view` (the part `dots(in:)` gave), row by row, where
    /// the rule has more than two states; empty otherwise.
    public func stateDots(in view: Viewport, x: Int, y: Int, width: Int, height: Int) throws -> [UInt8] {
        try checkIdle("draw a frame")
        guard width > 0, height > 0, let all = engine.stateDots(in: view, left: view.x - rect.x, top: view.y - rect.y) else { return [] }
        var part: [UInt8] = []
        part.reserveCapacity(width * height)
        for row in y..<(y + height) { part += all[(row * view.width + x)..<(row * view.width + x + width)] }
        return part
    }

    /// Blocks stepped one at a time so far (the skipping stepper's work), and rows of them.
    public var blocksStepped: (blocks: Int, rows: Int) { engine.blocksStepped }

    /// Memory this tile's cells hold, nil where the system does not say.
    public var residentBytes: Int? { engine.residentBytes }

    /// The tile's live cells as pieces placed on the board: what an in-memory snapshot
    /// keeps, so that one of a huge, mostly empty tile costs what lives on it.
    public func liveParts() throws -> [Overlay] {
        try checkIdle("hand out its cells")
        return engine.liveParts().map { $0.offset(by: rect.x, rect.y) }
    }

    /// The part of `area` (board coordinates) in this tile: its top-left corner (board
    /// coordinates) and its cells in any state but 0, with their states where the rule
    /// has more than two; nil when `area` misses the tile.
    public func cells(in area: TileRect) throws -> (x: Int, y: Int, cells: BitGrid, states: StateGrid?)? {
        try checkIdle("hand out its cells")
        guard let part = area.intersection(rect) else { return nil }
        let inside = TileRect(x: part.x - rect.x, y: part.y - rect.y, width: part.width, height: part.height)
        let (cells, states) = engine.cells(in: inside)
        return (part.x, part.y, cells, states)
    }
}

/// How far a tile has come and how it spent its time, written by the tile after each
/// round and read by anyone: atomics, hence `Sendable`.
public final class TileProgress: Sendable {
    private let generationReached = Atomic<UInt64>(0)
    private let computeNanoseconds = Atomic<UInt64>(0)
    private let waitNanoseconds = Atomic<UInt64>(0)

    public init() {}

    package func record(generation: UInt64, compute: Duration = .zero, wait: Duration = .zero) {
        generationReached.store(generation, ordering: .relaxed)
        computeNanoseconds.add(UInt64(compute.seconds * 1e9), ordering: .relaxed)
        waitNanoseconds.add(UInt64(wait.seconds * 1e9), ordering: .relaxed)
    }

    public var generation: UInt64 { generationReached.load(ordering: .relaxed) }
    /// Seconds spent stepping cells, and waiting for neighbours' halos, over the tile's life.
    public var computeSeconds: Double { Double(computeNanoseconds.load(ordering: .relaxed)) / 1e9 }
    public var waitSeconds: Double { Double(waitNanoseconds.load(ordering: .relaxed)) / 1e9 }
}
