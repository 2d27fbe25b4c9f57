import TesseraCore

/// What a viewer looks at: `width`×`height` dots whose top-left dot starts at board
/// cell (x, y), each dot covering `cellsPerDot`×`cellsPerDot` cells.
public struct Viewport: Hashable, Sendable {
    public var x: Int, y: Int
    public var cellsPerDot: Int
    public var width: Int, height: Int

    public init(x: Int, y: Int, cellsPerDot: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.cellsPerDot = max(1, cellsPerDot)
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The whole board of `width`×`height` cells in `dots` columns × `rows` dots, centred.
    public static func fitting(width: Int, height: Int, dots: Int, rows: Int) -> Viewport {
        let z = max(1, max(ceilDiv(width, max(1, dots)), ceilDiv(height, max(1, rows))))
        return Viewport(x: (width - dots * z) / 2, y: (height - rows * z) / 2, cellsPerDot: z, width: dots, height: rows)
    }
}

func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }

/// Cells from a neighbour for one side of a tile's halo, taken at one generation.
public struct HaloStrip: Sendable, Equatable {
    /// The tile that receives the strip.
    public let tile: TileID
    /// The side of the receiver's halo the cells fill.
    public let side: Direction
    public let generation: UInt64
    public let cells: BitGrid

    public init(tile: TileID, side: Direction, generation: UInt64, cells: BitGrid) {
        self.tile = tile
        self.side = side
        self.generation = generation
        self.cells = cells
    }
}

/// Carries halo strips to a neighbouring tile. This is the seam where transports plug
/// in: in memory to an actor in the same process, or over the network to another worker.
public protocol HaloLink: Sendable {
    /// The tile at the other end, which receives the strips.
    var tile: TileID { get }
    func send(_ strip: HaloStrip) async throws
}

/// Delivers strips to a tile actor in this process.
public struct LocalHaloLink: HaloLink {
    public let target: TileActor

    public init(target: TileActor) { self.target = target }

    public var tile: TileID { target.id }

    public func send(_ strip: HaloStrip) async throws { try await target.receive(strip) }
}

/// Owns one tile's cells. Every round it sends its edges to its neighbours, waits for
/// their edges to fill its halo, then advances up to the halo depth alone. Nothing
/// reads its cells except through its methods, which return values.
public actor TileActor {
    public nonisolated let id: TileID
    public nonisolated let rect: TileRect
    private let engine: TileEngine
    private var links: [Direction: any HaloLink] = [:]
    public private(set) var generation: UInt64
    private var inbox: [UInt64: [Direction: BitGrid]] = [:]
    /// Strips of a generation already taken out of the inbox.
    private var received: [UInt64: Int] = [:]
    private var waiter: (generation: UInt64, continuation: CheckedContinuation<Void, any Error>)?
    private var failure: (any Error)?
    private let overlap: Bool
    /// Seconds spent stepping cells, and waiting for neighbours' halos.
    public private(set) var computeSeconds = 0.0
    public private(set) var waitSeconds = 0.0

    /// - Parameters:
    ///   - deadSides: the sides where a plane board ends.
    public init(id: TileID, rect: TileRect, depth: Int, rule: Rule, deadSides: Set<Direction>,
                cells: BitGrid, generation: UInt64 = 0,
                implementation: Kernel.Implementation = Kernel.best, overlap: Bool? = nil, blocking: Bool? = nil) {
        self.id = id
        self.rect = rect
        self.generation = generation
        self.overlap = overlap ?? TileEngine.overlapPays(rect: rect, depth: depth)
        engine = TileEngine(rect: rect, depth: depth, rule: rule, deadSides: deadSides, cells: cells,
                            implementation: implementation, blocking: blocking)
    }

    /// Sets the link to the neighbour on each side that has one. A halo from this tile
    /// itself (a torus one tile across) is in hand at once; with overlap, the others
    /// are late and go into the engine's frames.
    public func connect(_ links: [Direction: any HaloLink]) {
        self.links = links
        if overlap { engine.expectLate(Set(links.filter { $0.value.tile != id }.keys)) }
    }

    /// Accepts a strip from a neighbour. A neighbour can run at most one round ahead, so
    /// strips are kept by generation.
    public func receive(_ strip: HaloStrip) throws {
        guard strip.generation >= generation else {
            throw TesseraError("tile \(id) got a halo for generation \(strip.generation) after reaching \(generation)")
        }
        inbox[strip.generation, default: [:]][strip.side] = strip.cells
        if let waiter, waiter.generation == strip.generation, haloesComplete(strip.generation) {
            self.waiter = nil
            waiter.continuation.resume()
        }
    }

    /// Stops a run in progress with `error` (a lost neighbour, say).
    public func fail(_ error: any Error) {
        failure = failure ?? error
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(throwing: error)
        }
    }

    /// Runs `generations` generations, trading halos every `engine.depth` generations.
    /// The interior steps while the halos travel (see `TileEngine`).
    public func run(generations: UInt64) async throws {
        var remaining = generations
        while remaining > 0 {
            if let failure { throw failure }
            let steps = Int(min(UInt64(engine.depth), remaining))
            for (side, link) in links {
                let strip = HaloStrip(tile: link.tile, side: side.opposite, generation: generation, cells: engine.edge(side))
                try await link.send(strip)
            }
            let clock = ContinuousClock()
            let interiorStart = clock.now
            // A tile's own strips (a torus one tile across) are already in.
            for (side, cells) in inbox[generation] ?? [:] where links[side]?.tile == id {
                engine.fillHalo(side, with: cells)
                inbox[generation]![side] = nil
                received[generation, default: 0] += 1
            }
            if overlap { engine.beginRound(steps) }
            let waitStart = clock.now
            try await haloes(for: generation)
            let computeStart = clock.now
            for (side, cells) in inbox.removeValue(forKey: generation) ?? [:] {
                engine.fillHalo(side, with: cells)
            }
            received[generation] = nil
            if !overlap { engine.beginRound(steps) }
            engine.finishRound(steps)
            waitSeconds += (computeStart - waitStart).seconds
            computeSeconds += (waitStart - interiorStart).seconds + (clock.now - computeStart).seconds
            generation += UInt64(steps)
            remaining -= UInt64(steps)
        }
    }

    private func haloes(for generation: UInt64) async throws {
        if haloesComplete(generation) { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if let failure {
                continuation.resume(throwing: failure)
            } else {
                waiter = (generation, continuation)
            }
        }
    }

    private func haloesComplete(_ generation: UInt64) -> Bool {
        (inbox[generation]?.count ?? 0) + (received[generation] ?? 0) == links.count
    }

    public var population: Int { engine.population }

    /// Replaces the tile's cells (a new pattern, an edit, a rewind) between runs.
    public func load(_ cells: BitGrid, generation: UInt64) {
        engine.load(cells)
        self.generation = generation
        inbox.removeAll()
        received.removeAll()
    }

    /// The dots of `view` this tile covers: a dot is lit when any cell under it is alive.
    /// Only the reduced dots leave the tile, never its cells.
    public func dots(in view: Viewport) -> (x: Int, y: Int, dots: BitGrid)? {
        let z = view.cellsPerDot
        let x0 = max(0, floorDiv(rect.x - view.x, z)), x1 = min(view.width, ceilDiv(rect.x + rect.width - view.x, z))
        let y0 = max(0, floorDiv(rect.y - view.y, z)), y1 = min(view.height, ceilDiv(rect.y + rect.height - view.y, z))
        guard x0 < x1, y0 < y1 else { return nil }
        var dots = BitGrid(width: x1 - x0, height: y1 - y0)
        for dy in y0..<y1 {
            let cellTop = max(rect.y, view.y + dy * z), cellBottom = min(rect.y + rect.height, view.y + (dy + 1) * z)
            for dx in x0..<x1 {
                let left = max(rect.x, view.x + dx * z), right = min(rect.x + rect.width, view.x + (dx + 1) * z)
                guard left < right else { continue }
                for row in cellTop..<cellBottom
                where engine.anyAlive(row: row - rect.y, x: left - rect.x, width: right - left) {
                    dots[dx - x0, dy - y0] = true
                    break
                }
            }
        }
        return (x0, y0, dots)
    }

    public var depth: Int { engine.depth }

    /// The tile's cells, as a value.
    public var cells: BitGrid { engine.cells(rows: 0..<rect.height) }

    /// Rows `rows` of this tile (counted from its top).
    public func cells(rows: Range<Int>) -> BitGrid { engine.cells(rows: rows) }
}
