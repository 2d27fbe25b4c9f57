import TesseraCore

/// The cells of one tile of a rule of more than two states (Generations, Larger than
/// Life with history, a rule file) as bit planes (`StateGrid`), plus a halo `margin`
/// cells deep: `depth` generations of `rule.reach` cells. A round takes whole edges from
/// the neighbours, every plane, then steps the whole buffer `depth` times, state 0
/// beyond it: what that gets wrong moves in `reach` cells a generation, and reaches the
/// interior's edge only as the round ends. No skipping, overlap or blocking.
///
/// Owned by exactly one `TileActor`; not `Sendable`.
final class StateTileEngine: TileStepping {
    let rect: TileRect
    let depth: Int
    let margin: Int
    private let step: @Sendable (StateGrid, inout StateGrid, Bool) throws -> Void
    private var cells: StateGrid
    private var spare: StateGrid
    /// Cells beyond a plane board's edges, kept in state 0 every generation.
    private let dead: [Box]

    /// Nil for a rule of two states (`TileEngine` steps those). `start`'s states are the
    /// rule's (`TileActor` checks them).
    init?(rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>, start: TileStart,
          implementation: Kernel.Implementation) {
        guard let step = rule.stateStep(using: implementation) else { return nil }
        (self.rect, self.depth, self.step) = (rect, depth, step)
        margin = depth * rule.reach
        // Rows of whole 256-cell vectors, which the steps take without a tail: the columns
        // past the east halo are as wrong as anything beyond the buffer, and as far away.
        let width = (rect.width + 2 * margin + 255) / 256 * 256
        cells = StateGrid(width: width, height: rect.height + 2 * margin, states: rule.states)
        spare = cells
        dead = Box.beyond(deadSides, of: rect, margin: margin)
        write(start)
    }

    var layerCount: Int { cells.planes.count }

    private func write(_ start: TileStart) {
        switch start {
        case .cells(let bits):
            cells.replace(with: StateGrid(ones: bits, states: 2), atX: margin, y: margin)
        case .moved(let state):
            cells.replace(with: StateGrid(layers: state.layers), atX: margin, y: margin)
        case .painted(let starting, let shape):
            if let soup = starting.soup {
                let bits = soup.cells(x: shape.left + rect.x, y: shape.top + rect.y, width: rect.width, height: rect.height)
                cells.replace(with: StateGrid(ones: bits, states: 2), atX: margin, y: margin)
            }
            for overlay in starting.overlays {
                guard let part = overlay.cropped(to: rect) else { continue }
                let states = part.states ?? StateGrid(ones: part.cells, states: 2)
                cells.place(states, atX: part.x - rect.x + margin, y: part.y - rect.y + margin)
            }
        }
    }

    func haloSize(_ side: Direction) -> (width: Int, height: Int) {
        let b = Box.side(side, of: rect, margin: margin, halo: true)
        return (b.width, b.height)
    }

    func expectLate(_ lateSides: Set<Direction>) {}

    func wrapAcross(_ wraps: Bool) {}

    func planRound(_ generations: Int, from generation: UInt64) -> Bool { false }

    /// The whole edge, every plane, whenever anything on it is not in state 0.
    func strip(for side: Direction) -> (pieces: [HaloStrip.Piece], whole: Bool) {
        let edge = Box.side(side, of: rect, margin: margin, halo: false)
        let part = cells.cropped(x: edge.x, y: edge.y, width: edge.width, height: edge.height)
        guard part.planes.contains(where: { $0.population > 0 }) else { return ([], true) }
        return ([HaloStrip.Piece(offset: 0, layers: part.layers)], true)
    }

    func fillHalo(_ strip: HaloStrip) throws {
        guard strip.whole else {
            throw TesseraError("a halo strip for the \(strip.side) side of a tile of states came without its whole edge")
        }
        let halo = Box.side(strip.side, of: rect, margin: margin, halo: true)
        cells.clear(x: halo.x, y: halo.y, width: halo.width, height: halo.height)
        for piece in strip.pieces {
            guard let b = piece.box(side: strip.side, width: halo.width, height: halo.height) else { continue }
            cells.replace(with: StateGrid(layers: piece.layers), atX: halo.x + b.x, y: halo.y + b.y)
        }
    }

    func beginRound(_ generations: Int) throws {
        precondition(generations <= depth)
        for _ in 0..<generations {
            try step(cells, &spare, false)
            swap(&cells, &spare)
            for box in dead { cells.clear(x: box.x, y: box.y, width: box.width, height: box.height) }
        }
    }

    func finishRound(_ generations: Int) {}

    private var inside: StateGrid { cells.cropped(x: margin, y: margin, width: rect.width, height: rect.height) }

    var population: Int { inside.occupied.population }

    func liveBounds(within: TileRect?) -> TileRect? {
        let whole = TileRect(x: 0, y: 0, width: rect.width, height: rect.height)
        guard let area = (within ?? whole).intersection(whole) else { return nil }
        return inside.occupied.liveBounds(in: area)
    }

    func load(_ bits: BitGrid) { load(states: StateGrid(ones: bits, states: 2)) }

    func load(states: StateGrid) {
        cells = StateGrid(width: cells.width, height: cells.height, states: 1 << cells.planes.count)
        cells.replace(with: states, atX: margin, y: margin)
    }

    func state(tile: TileID, generation: UInt64) -> TileState {
        TileState(tile: tile, generation: generation, layers: inside.layers)
    }

    func resend(_ side: Direction) {}

    func visitLive(in area: TileRect, from: (_ y: Int) -> Int, _ visit: (_ x: Int, _ y: Int) -> Int) {
        let occupied = inside.occupied
        guard let limit = TileRect(x: 0, y: 0, width: rect.width, height: rect.height).intersection(area) else { return }
        var y = limit.y
        while y < limit.y + limit.height {
            let next = from(y)
            guard next <= y else {
                y = next
                continue
            }
            var x = limit.x
            while x < limit.x + limit.width {
                guard occupied[x, y] else {
                    x += 1
                    continue
                }
                x = max(x + 1, visit(x, y))
            }
            y += 1
        }
    }

    func stateDots(in view: Viewport, left: Int, top: Int) -> [UInt8]? { inside.stateDots(in: view, left: left, top: top) }

    func liveParts() -> [Overlay] {
        let states = inside
        guard let box = states.occupied.liveBounds(in: TileRect(x: 0, y: 0, width: rect.width, height: rect.height)) else { return [] }
        return [Overlay(states: states.cropped(x: box.x, y: box.y, width: box.width, height: box.height), x: box.x, y: box.y)]
    }

    func cells(in area: TileRect) -> (cells: BitGrid, states: StateGrid?) {
        let part = cells.cropped(x: margin + area.x, y: margin + area.y, width: area.width, height: area.height)
        return (part.occupied, part)
    }

    var residentBytes: Int? { 2 * cells.planes.reduce(0) { $0 + $1.words.count * 8 } }

    var blocksStepped: (blocks: Int, rows: Int) { (0, 0) }
}
