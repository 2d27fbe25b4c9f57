import TesseraCore

/// Where a tile's starting cells come from.
public enum TileStart: Sendable, Equatable {
    /// The cells of the tile's rectangle, whole.
    case cells(BitGrid)
    /// A soup and a pattern, each written only where it lies: a huge, mostly empty tile
    /// touches no memory beyond the pattern's.
    case painted(StartingCells, board: BoardShape)
    /// A tile moved from another worker: its cells and the generation before, so its
    /// skipping and its strips go on exactly as they would have where it was.
    case moved(TileState)
}


/// The cells of one tile plus a halo `margin` cells deep on every side. Each exchange
/// fills the halo from the neighbours; the tile can then advance up to `depth`
/// generations alone, because information moves `reach` cells per generation (one for
/// the 3x3 rules, Larger than Life's range), and the margin is `depth` times that.
///
/// A round runs one of two ways, chosen at its start:
/// - Sparse, when few blocks changed lately (see `BlockActivity`): each generation
///   steps only the blocks that can change, and a strip carries only the pieces of the
///   edge whose blocks changed during the round; the receiver keeps the rest.
/// - Dense, otherwise: every cell, as fast as the kernel goes. Halos that may arrive
///   late (`lateSides`) need not hold the tile up: `beginRound` copies the border
///   frames on those sides (halo plus 2·margin interior cells) and advances everything
///   else, the bulk of the work; `finishRound` steps the frames once the late halos are
///   in and copies their middle band back. A frame on the north or south runs the
///   whole width, so it also covers the corners.
/// After dense rounds nothing is known of the blocks; now and then (less often the
/// busier the tile stays) a sparse round steps every block of its first generation with
/// tracking, so the tile learns when it has quietened down.
///
/// Larger than Life steps every cell of the buffer each generation, whole rows and
/// columns (its kernel has no band of rows to shrink to), with no skipping, overlap or
/// blocking: what it gets wrong near the buffer's edges reaches `reach` cells further
/// in each generation, and no further than the margin by the round's end.
///
/// Owned by exactly one `TileActor`; not `Sendable`.
final class TileEngine: TileStepping {
    /// How the round in progress runs.
    enum Round: Equatable {
        /// `probe`: nothing is known of the blocks, so the first generation steps them
        /// all, with tracking, to learn which change.
        case sparse(probe: Bool)
        case dense(overlapped: Bool)
    }

    /// A sparse round when at most this share of the blocks changed.
    static let sparseShare = 0.25
    /// The most dense rounds between two probes of a tile that stays busy.
    static let longestProbeInterval = 64

    let rect: TileRect
    /// Layers of a halo piece or a moved tile's state: the cells and the generation before.
    var layerCount: Int { 2 }
    /// Generations a round may run alone.
    let depth: Int
    /// Halo cells on each side: `depth` generations of `rule.reach` cells.
    let margin: Int
    /// Larger than Life's rule, which steps the whole buffer; nil for the 3x3 kernels.
    private let largerThanLife: LargerThanLife?
    let rules: Rule.Steps
    /// The generation the round in progress starts from.
    private var roundStart: UInt64 = 0
    let implementation: Kernel.Implementation
    /// Whether a round's generations go down the main region as one wavefront.
    let blocking: Bool
    private let main: Region
    /// Border frames for late halos, each with the band of the interior it computes.
    private var frames: [(region: Region, band: Box)] = []
    /// Whether the frames compute the top and bottom interior bands, so the main region skips them.
    private var skipTop = false, skipBottom = false
    private var lateSides: Set<Direction> = []
    /// Cells beyond a plane board's edges, kept dead.
    private let dead: [Box]
    /// The cells next to those edges, all a step of a two-state rule can bring to life
    /// beyond them: its stepping rules (`Rule.steps`) bear no cell with no live
    /// neighbour, so cells further out, dead before, stay dead. Cleared each generation
    /// instead of the whole margin, which took an 8192² plane soup a sixth of its time.
    private let deadEdge: [Box]
    /// The words a dense round steps, wrapping across (`wrapAcross`); nil: every word.
    private var across: Range<Int>?
    private var width: Int { rect.width + 2 * margin }
    private var height: Int { rect.height + 2 * margin }
    /// Which blocks changed; nil when skipping is off.
    let activity: BlockActivity?
    private(set) var round = Round.dense(overlapped: false)
    /// Whether the last round was sparse all through: then this tile knows which pieces
    /// of its edges changed, and the main region's north and south halos still hold
    /// what that round left there (a dense round leaves leftovers), so only the pieces
    /// that changed need writing.
    private var lastRoundSparse = false
    /// The pieces of each edge whose blocks changed in the sparse round in progress.
    private var dirty: [Direction: Set<Int>] = [:]
    /// Sides whose whole edge this tile has sent since its cells were last replaced.
    private var sent: Set<Direction> = []
    /// Each halo side as received, by generation parity ([even, odd]).
    private var kept: [Direction: [BitGrid]] = [:]
    /// Sparse rounds between looks for memory a glider's wake no longer needs (see
    /// `BlockActivity.releaseDeadFrames`): a look reads the liveness of every prepared
    /// frame's rows, and every word of those that seem dead.
    static let roundsBetweenReleases = 32
    private var roundsSinceRelease = 0
    private var probeInterval = 1, roundsSinceProbe = 0

    /// - Parameter skipping: whether rounds may skip blocks that cannot change.
    init(rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>, start: TileStart,
         implementation: Kernel.Implementation, blocking: Bool? = nil, skipping: Bool = true) {
        self.rect = rect
        largerThanLife = rule.largerThanLife
        self.blocking = largerThanLife == nil && (blocking ?? Self.blockingPays(rect: rect, depth: depth))
        self.depth = depth
        margin = depth * rule.reach
        self.rules = rule.steps
        self.implementation = implementation
        let (w, h) = (rect.width + 2 * margin, rect.height + 2 * margin)
        main = Region(x: 0, y: 0, width: w, height: h)
        dead = Box.beyond(deadSides, of: rect, margin: margin)
        deadEdge = Box.beyond(deadSides, of: rect, margin: margin, depth: rule.reach)
        activity = skipping && largerThanLife == nil ? BlockActivity(width: w, height: h) : nil
        write(start)
    }

    /// The interior, in buffer coordinates.
    private var interior: Box { Box(x: margin, y: margin, width: rect.width, height: rect.height) }

    /// Writes starting cells into the (empty) current buffer, and tells the activity
    /// which blocks hold them.
    private func write(_ start: TileStart) {
        var written: [Box] = []
        switch start {
        case .cells(let cells):
            main.write(cells, atX: margin, y: margin)
            written = [interior]
        case .moved(let state):
            // As after a round that stepped every cell: the other buffer holds the true
            // generation before, nothing is known of the blocks, strips go out whole.
            main.write(state.cells, atX: margin, y: margin)
            main.write(state.previous, atX: margin, y: margin, intoNext: true)
            activity?.invalidate()
            return
        case .painted(let starting, let shape):
            if let soup = starting.soup {
                main.write(soup.cells(x: shape.left + rect.x, y: shape.top + rect.y, width: rect.width, height: rect.height),
                           atX: margin, y: margin)
                written = [interior]
            }
            for overlay in starting.overlays {
                let box = Box(x: overlay.x - rect.x + margin, y: overlay.y - rect.y + margin,
                              width: overlay.cells.width, height: overlay.cells.height)
                if let part = box.intersection(interior) {
                    var cells = overlay.cells.cropped(x: part.x - box.x, y: part.y - box.y, width: part.width, height: part.height)
                    if starting.soup != nil { cells.formUnion(main.cells(part)) }
                    main.write(cells, atX: part.x, y: part.y)
                    written.append(part)
                }
            }
        }
        activity?.reset(liveIn: written, of: main)
    }

    /// Temporal blocking pays when the tile does not fit in a core's L2 cache and a
    /// round has generations enough to share each trip to memory.
    static func blockingPays(rect: TileRect, depth: Int) -> Bool {
        depth >= 4 && (rect.width + 2 * depth) * (rect.height + 2 * depth) / 8 > 1 << 20
    }

    /// Overlap pays when the frames are a small part of the tile (the 3x3 kernels only).
    static func overlapPays(rect: TileRect, depth: Int, rule: Rule) -> Bool {
        rule.isTwoStateMoore && min(rect.width, rect.height) >= 16 * depth
    }

    static func byteCount(rect: TileRect, depth: Int, rule: Rule) -> Int {
        let k = depth * rule.reach, (w, h) = (rect.width + 2 * k, rect.height + 2 * k)
        // A tile of states (`StateTileEngine`): two grids of bit planes.
        if let planes = rule.statePlanes {
            let (plane, over) = ((w + 63) / 64 * 8).multipliedReportingOverflow(by: h)
            let (all, past) = plane.multipliedReportingOverflow(by: 2 * planes)
            return over || past ? .max : all
        }
        let frames = overlapPays(rect: rect, depth: depth, rule: rule)
            ? 2 * (CellBuffer.byteCount(width: w, height: 3 * k) + CellBuffer.byteCount(width: 3 * k, height: h)) : 0
        return 2 * (CellBuffer.byteCount(width: w, height: h) + frames)
    }

    /// Makes halos on `lateSides` go into border frames, filled after `beginRound`.
    func expectLate(_ lateSides: Set<Direction>) {
        let (w, h, k) = (width, height, margin)
        let north = !lateSides.isDisjoint(with: [.north, .northEast, .northWest])
        let south = !lateSides.isDisjoint(with: [.south, .southEast, .southWest])
        var frames: [(Region, Box)] = []
        if north {
            frames.append((Region(x: 0, y: 0, width: w, height: 3 * k), Box(x: k, y: k, width: rect.width, height: k)))
        }
        if south {
            frames.append((Region(x: 0, y: h - 3 * k, width: w, height: 3 * k),
                           Box(x: k, y: rect.height, width: rect.width, height: k)))
        }
        if lateSides.contains(.west) {
            frames.append((Region(x: 0, y: 0, width: 3 * k, height: h), Box(x: k, y: k, width: k, height: rect.height)))
        }
        if lateSides.contains(.east) {
            frames.append((Region(x: w - 3 * k, y: 0, width: 3 * k, height: h),
                           Box(x: rect.width, y: k, width: k, height: rect.height)))
        }
        self.frames = frames
        self.lateSides = lateSides
        skipTop = north
        skipBottom = south
    }

    /// Whether halos on `side` go into the frames (they may come after `beginRound`).
    func isLate(_ side: Direction) -> Bool { lateSides.contains(side) }

    /// Where the tile is its own west and east neighbour, a dense round steps only its
    /// interior's words, each row wrapping onto itself (`Region.step`'s `across`): the
    /// column halos then cost nothing, and a 4096-cell row is 64 words, not the 68 of
    /// 4096 cells and two 128-cell halos. Only where the halos are whole words and the
    /// interior whole 256-cell columns (`Tiling.wrapsInWords`).
    func wrapAcross(_ wraps: Bool) {
        let whole = largerThanLife == nil && Tiling.wrapsInWords(tileWidth: rect.width, margin: margin)
        across = wraps && whole ? (margin / 64)..<((margin + rect.width) / 64) : nil
    }

    /// The halo on `side`, or (not `halo`) the edge cells that neighbour's halo takes.
    private func region(_ side: Direction, halo: Bool) -> Box { Box.side(side, of: rect, margin: margin, halo: halo) }

    /// The size of the halo on `side`: what a strip for it must measure.
    func haloSize(_ side: Direction) -> (width: Int, height: Int) {
        let b = region(side, halo: true)
        return (b.width, b.height)
    }

    /// Decides how the next round of `generations` from `generation` runs; returns
    /// whether halos may arrive after `beginRound` (a dense round with late sides).
    func planRound(_ generations: Int, from generation: UInt64) -> Bool {
        roundStart = generation
        if let activity {
            if let changed = activity.changed {
                if isQuiet(changed) {
                    round = .sparse(probe: false)
                    activity.learnLiveness(of: main)
                    return false
                }
            } else {
                roundsSinceProbe += 1
                if roundsSinceProbe >= probeInterval {
                    roundsSinceProbe = 0
                    round = .sparse(probe: true)
                    return false
                }
            }
        }
        round = .dense(overlapped: !lateSides.isEmpty)
        return !lateSides.isEmpty
    }

    /// Whether so few blocks changed that stepping only theirs beats stepping all.
    private func isQuiet(_ changed: [BlockActivity.Change]) -> Bool {
        Double(changed.count) <= Self.sparseShare * Double(activity?.blockCount ?? 0)
    }

    /// The box of `piece` in the halo on `side`, in buffer coordinates.
    private func box(of piece: HaloStrip.Piece, on side: Direction) -> Box {
        let halo = region(side, halo: true)
        let b = piece.box(side: side, width: halo.width, height: halo.height)!
        return Box(x: halo.x + b.x, y: halo.y + b.y, width: b.width, height: b.height)
    }

    /// What the neighbour on `side` needs for its halo this round: after a sparse round
    /// the stretches of the edge whose blocks changed in it; else the whole edge, as the
    /// stretches that hold live cells.
    func strip(for side: Direction) -> (pieces: [HaloStrip.Piece], whole: Bool) {
        let edge = region(side, halo: false)
        let corner = side.dx != 0 && side.dy != 0, along = side.dx == 0 ? edge.width : edge.height
        func box(_ stretch: Range<Int>) -> Box {
            corner ? edge
                : side.dx == 0 ? Box(x: edge.x + stretch.lowerBound, y: edge.y, width: stretch.count, height: edge.height)
                : Box(x: edge.x, y: edge.y + stretch.lowerBound, width: edge.width, height: stretch.count)
        }
        func piece(_ stretch: Range<Int>) -> HaloStrip.Piece {
            let b = box(stretch)
            return HaloStrip.Piece(offset: corner ? 0 : stretch.lowerBound, cells: main.cells(b), previous: main.cells(b, ofNext: true))
        }
        guard lastRoundSparse, sent.contains(side) else {
            sent.insert(side)
            let unit = HaloStrip.pieceLength
            guard !corner, along > unit else {
                let all = piece(0..<along)
                return (all.isEmpty ? [] : [all], true)
            }
            let count = (along + unit - 1) / unit
            func stretch(_ index: Int) -> Range<Int> { (index * unit)..<min(along, (index + 1) * unit) }
            // Stretches in blocks known empty in both buffers are not even copied out: a
            // deep edge of a huge, mostly empty tile is megabytes.
            let possible = (0..<count).filter { index in
                let b = box(stretch(index))
                return activity.map { $0.mayBeAlive(b) || $0.mayBeAlive(b, inNext: true) } ?? true
            }
            if possible.count < count {
                let alive = possible.filter { index in
                    let b = box(stretch(index))
                    return [main.current, main.next].contains { $0.population(x: b.x, y: b.y, width: b.width, height: b.height) > 0 }
                }
                return (Self.stretches(Set(alive), unit: unit, length: along).map(piece), true)
            }
            let all = piece(0..<along)
            let alive = (0..<count).filter { !all.isEmpty(stretch($0), side: side) }
            // A busy edge goes as it is, without cutting it up.
            if alive.count == count { return ([all], true) }
            return (Self.stretches(Set(alive), unit: unit, length: along).map { all.slice($0, side: side) }, true)
        }
        let changed = dirty[side] ?? []
        if corner { return (changed.isEmpty ? [] : [piece(0..<along)], false) }
        return (Self.stretches(changed, unit: HaloStrip.pieceLength, length: along).map(piece), false)
    }

    /// Runs of consecutive `indices`, as ranges of cells `unit` long each, clipped to `length`.
    static func stretches(_ indices: Set<Int>, unit: Int, length: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        for index in indices.sorted() {
            if let last = runs.last, last.upperBound == index { runs[runs.count - 1] = last.lowerBound..<(index + 1) } else {
                runs.append(index..<(index + 1))
            }
        }
        return runs.map { ($0.lowerBound * unit)..<min(length, $0.upperBound * unit) }
    }

    /// Takes the pieces of the neighbour's edge (at the round's generation) into the kept
    /// halo, and fills the halo from it: in a sparse round both buffers of the main
    /// region (just the new pieces, when the halos were kept); in a dense one the main
    /// region before `beginRound`, the frames after it.
    func fillHalo(_ strip: HaloStrip) throws {
        let side = strip.side, received = strip.pieces
        let halo = region(side, halo: true)
        let parity = Int(strip.generation & 1)
        if strip.whole, received.count == 1, received[0].cells.width == halo.width, received[0].cells.height == halo.height {
            // A busy edge, whole: kept as it came, without copying.
            let all = received[0]
            kept[side] = parity == 0 ? [all.cells, all.previous] : [all.previous, all.cells]
        } else {
            if strip.whole {
                let empty = BitGrid(width: halo.width, height: halo.height)
                kept[side] = [empty, empty]
            } else if kept[side] == nil {
                throw TesseraError("the first halo strip for the \(side) side of a tile came without its whole edge")
            }
            for piece in received {
                let b = box(of: piece, on: side)
                piece.cells.copy(into: &kept[side]![parity], atX: b.x - halo.x, y: b.y - halo.y)
                piece.previous.copy(into: &kept[side]![1 - parity], atX: b.x - halo.x, y: b.y - halo.y)
            }
        }
        let (now, before) = (kept[side]![parity], kept[side]![1 - parity])
        switch round {
        case .sparse:
            // A tile that skips blocks needs both buffers right, here as everywhere. Only
            // the north and south halos keep between rounds: steps never reach their
            // rows' invalid margins, but they write leftovers into the west and east
            // halos and the corners (an outer column has no neighbour to read), and into
            // the padding beyond the east halo, where a glider born of those leftovers
            // would wander for good and wake the blocks it passes.
            if lastRoundSparse && side.dx == 0 && !strip.whole {
                for piece in received {
                    let b = box(of: piece, on: side)
                    main.write(piece.cells, atX: b.x, y: b.y)
                    main.write(piece.previous, atX: b.x, y: b.y, intoNext: true)
                }
            } else {
                main.write(now, atX: halo.x, y: halo.y)
                main.write(before, atX: halo.x, y: halo.y, intoNext: true)
                if side.dx == 1 {
                    let padding = Box(x: width, y: halo.y, width: main.box.width - width, height: halo.height)
                    main.clear(padding)
                    main.clear(padding, in: main.next)
                }
            }
            // A whole strip says nothing of what changed: all of it may have.
            if strip.whole {
                activity?.markChanged(halo)
            } else {
                for piece in received { activity?.markChanged(box(of: piece, on: side)) }
            }
        case .dense(let overlapped):
            if overlapped && isLate(side) {
                for frame in frames { frame.region.write(now, atX: halo.x, y: halo.y) }
            } else {
                main.write(now, atX: halo.x, y: halo.y)
            }
        }
    }

    /// The tile's edges (the strips its neighbours' halos come from), and the rectangle
    /// inside all four sides' strips: a block within it touches no edge.
    private struct Edges {
        let strips: [(Direction, Box)]
        let inner: (x0: Int, y0: Int, x1: Int, y1: Int)

        init(_ strips: [(Direction, Box)]) {
            self.strips = strips
            var inner = (x0: Int.min, y0: Int.min, x1: Int.max, y1: Int.max)
            for (side, edge) in strips where side.dx == 0 || side.dy == 0 {
                switch (side.dx, side.dy) {
                case (-1, _): inner.x0 = edge.x + edge.width
                case (1, _): inner.x1 = edge.x
                case (_, -1): inner.y0 = edge.y + edge.height
                default: inner.y1 = edge.y
                }
            }
            self.inner = inner
        }
    }

    /// Notes the pieces of each edge that the latest generation's changes touch.
    private func noteDirtyPieces(_ activity: BlockActivity, edges: Edges) {
        guard let changed = activity.changed else { return }
        let length = HaloStrip.pieceLength, inner = edges.inner
        for change in changed {
            let block = activity.box(of: change.block)
            if block.x >= inner.x0, block.x + block.width <= inner.x1, block.y >= inner.y0, block.y + block.height <= inner.y1 { continue }
            for (side, edge) in edges.strips {
                guard let part = edge.intersection(block) else { continue }
                let indices: ClosedRange<Int> = switch (side.dx, side.dy) {
                case (0, _): ((part.x - edge.x) / length)...((part.x + part.width - 1 - edge.x) / length)
                case (_, 0): ((part.y - edge.y) / length)...((part.y + part.height - 1 - edge.y) / length)
                default: 0...0
                }
                dirty[side, default: []].formUnion(indices)
            }
        }
    }

    /// Starts a round of `generations` (at most `depth`) once the edges went out and
    /// every halo that is not late is filled: in a dense round, does all the work that
    /// needs no late halo. A sparse round does its work in `finishRound`.
    func beginRound(_ generations: Int) throws {
        precondition(generations <= depth)
        guard case .dense = round else { return }
        if let largerThanLife {
            try main.step(generations, by: largerThanLife, using: implementation, dead: dead)
            return
        }
        for frame in frames {
            let r = frame.region
            r.copy(Box(x: r.origin.x, y: r.origin.y, width: r.current.width, height: r.current.height), from: main)
            // The main region computes whole rows, so its halo holds leftovers: beyond a
            // plane's edge they must read as dead.
            for box in dead { r.clear(box) }
        }
        let k = margin, height = self.height, top = skipTop, bottom = skipBottom
        // Rows next to a late halo are the frames' job; the rest stays valid.
        main.step(generations, from: roundStart, rules: rules, using: implementation, dead: deadEdge, blocking: blocking,
                  across: across) { g in
            rowSpan(g + 1 + (top ? k : 0), height - 1 - g - (bottom ? k : 0))
        }
    }

    /// Ends the round once every halo is filled.
    func finishRound(_ generations: Int) {
        dirty = [:]
        switch round {
        case .sparse(let probe):
            guard let activity else { return }
            let edges = Edges(Direction.allCases.map { ($0, region($0, halo: false)) })
            for g in 0..<generations {
                if activity.changed?.isEmpty == true {
                    // Nothing changed in two generations: the rest of the round only
                    // swaps buffers. A settled board of still lifes and blinkers costs
                    // nothing a generation.
                    activity.stepUnchanged(main, generations: generations - g)
                    break
                }
                activity.step(main, rows: rowSpan(g + 1, height - 1 - g), rule: rules.from(roundStart + UInt64(g)), using: implementation, dead: deadEdge)
                noteDirtyPieces(activity, edges: edges)
                if probe && g == 0 {
                    guard let changed = activity.changed, !isQuiet(changed) else {
                        probeInterval = 1
                        continue
                    }
                    // Still busy: the rest of the round steps every cell as fast as the
                    // kernel goes, and the next look comes after twice as many rounds.
                    probeInterval = min(probeInterval * 2, Self.longestProbeInterval)
                    main.step(generations - 1, from: roundStart + 1, rules: rules, using: implementation, dead: deadEdge,
                              blocking: blocking, across: across) { g in
                        rowSpan(g + 2, height - 2 - g)
                    }
                    endDense()
                    return
                }
            }
            lastRoundSparse = true
            roundsSinceRelease += 1
            if roundsSinceRelease >= Self.roundsBetweenReleases {
                roundsSinceRelease = 0
                activity.releaseDeadFrames(of: main)
            }
        case .dense:
            for (frame, band) in frames {
                let rows = frame.current.height
                frame.step(generations, from: roundStart, rules: rules, using: implementation, dead: deadEdge) { g in rowSpan(g + 1, rows - 1 - g) }
                // The previous generation too: the next round's strips carry it.
                main.copy(band, from: frame, both: true)
            }
            endDense()
        }
    }

    /// After a round that stepped every cell untracked: nothing is known of the blocks,
    /// and the halos hold leftovers.
    private func endDense() {
        lastRoundSparse = false
        activity?.invalidate()
    }

    var population: Int {
        activity?.population(of: main, in: interior) ?? main.current.population(x: margin, y: margin, width: rect.width, height: rect.height)
    }

    /// The smallest rectangle of the interior (tile coordinates) that holds every live
    /// cell, of those in `within` (tile coordinates) if given; nil when none is: only
    /// blocks known to hold live cells are looked at.
    func liveBounds(within: TileRect?) -> TileRect? {
        var limit = interior
        if let within {
            guard let part = Box(x: within.x + margin, y: within.y + margin, width: within.width, height: within.height)
                .intersection(interior) else { return nil }
            limit = part
        }
        var found: Box? = nil
        func look(_ area: Box) {
            guard let part = area.intersection(limit),
                  let b = main.current.liveBounds(x: part.x, y: part.y, width: part.width, height: part.height) else { return }
            let box = Box(x: b.x, y: b.y, width: b.width, height: b.height)
            found = found.map { $0.union(box) } ?? box
        }
        if let activity, let blocks = activity.aliveBlocks {
            for block in blocks { look(activity.box(of: block)) }
        } else {
            look(limit)
        }
        return found.map { TileRect(x: $0.x - margin, y: $0.y - margin, width: $0.width, height: $0.height) }
    }

    /// Replaces the tile's cells: the round after sends and expects whole strips again.
    func load(_ cells: BitGrid) {
        main.clearAll()
        write(.cells(cells))
        sent = []
        kept = [:]
        lastRoundSparse = false
    }

    func load(states: StateGrid) { load(states.occupied) }

    func stateDots(in view: Viewport, left: Int, top: Int) -> [UInt8]? { nil }

    /// The interior's cells and the generation before (see `TileState`).
    func state(tile: TileID, generation: UInt64) -> TileState {
        TileState(tile: tile, generation: generation, cells: main.cells(interior), previous: main.cells(interior, ofNext: true))
    }

    /// The neighbour on `side` is a new one (its tile moved): it keeps nothing of what
    /// this tile sent before, so the next strip goes whole.
    func resend(_ side: Direction) { sent.remove(side) }

    /// Visits live cells of `area` (interior coordinates) row by row, reading only blocks
    /// that may hold one, a word at a time. `visit(x, y)` returns the column to go on
    /// from, and `from(y)` the row to go on from before row `y` is read, so a caller
    /// wanting one cell a dot skips the rest of the dot, and the rest of a row of dots
    /// that are all lit: drawing a frame costs what is alive in it, not its dots times
    /// their cells, and a dense board about one row of cells a row of dots.
    func visitLive(in area: TileRect, from: (_ y: Int) -> Int, _ visit: (_ x: Int, _ y: Int) -> Int) {
        guard let limit = Box(x: area.x + margin, y: area.y + margin, width: area.width, height: area.height)
            .intersection(interior) else { return }
        for part in activity?.aliveParts(of: limit) ?? [limit] {
            let end = part.x + part.width
            var y = part.y
            while y < part.y + part.height {
                let next = from(y - margin) + margin
                guard next <= y else {
                    y = next
                    continue
                }
                defer { y += 1 }
                let row = main.current.row(y)
                var x = part.x
                while x < end {
                    var bits = row[x >> 6] >> UInt64(x & 63)
                    if end - x < 64 { bits &= (1 << UInt64(end - x)) - 1 }
                    guard bits != 0 else {
                        x = (x | 63) + 1
                        continue
                    }
                    let live = x + bits.trailingZeroBitCount
                    x = max(live + 1, visit(live - margin, y - margin) + margin)
                }
            }
        }
    }

    /// The interior's live cells as pieces (interior coordinates): each run of side-by-side
    /// blocks that may hold live cells (`BlockActivity.aliveParts`), or the whole interior
    /// when nothing is known of the blocks. Pieces with no live cell are left out.
    func liveParts() -> [Overlay] {
        var runs: [Box] = []
        for part in activity?.aliveParts(of: interior) ?? [interior] {
            if let last = runs.last, last.y == part.y, last.x + last.width == part.x {
                runs[runs.count - 1].width += part.width
            } else {
                runs.append(part)
            }
        }
        return runs.compactMap { run in
            let grid = main.current.extract(x: run.x, y: run.y, width: run.width, height: run.height)
            return grid.population > 0 ? Overlay(cells: grid, x: run.x - margin, y: run.y - margin) : nil
        }
    }

    /// The cells of `area` (interior coordinates), which lies inside the tile.
    func cells(in area: TileRect) -> (cells: BitGrid, states: StateGrid?) {
        (main.current.extract(x: margin + area.x, y: margin + area.y, width: area.width, height: area.height), nil)
    }

    /// Memory the cells hold: what was ever written, not the board's area.
    var residentBytes: Int? {
        var total = 0
        for region in [main] + frames.map(\.region) {
            guard let bytes = region.residentBytes else { return nil }
            total += bytes
        }
        return total
    }

    /// Blocks stepped by tracked generations so far, and rows of them.
    var blocksStepped: (blocks: Int, rows: Int) { (activity?.stepped ?? 0, activity?.steppedRows ?? 0) }
}
