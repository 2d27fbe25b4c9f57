import TesseraCore

/// A payload's encoder and decoder, side by side. A decoder checks every field against
/// what it can be, so whatever it returns is safe to use.
package protocol WireCodable {
    func encode(to writer: inout WireWriter)
    init(from reader: inout WireReader) throws
}

/// The most workers one run has: more than any cluster here, few enough to allocate for.
package let maxWorkers = 4096
/// The most pattern parts one assignment carries (a pattern's live blocks, a shard's tiles).
package let maxOverlays = 1 << 20
/// The most a population can be: a board of 2^31 × 2^31 cells.
private let maxPopulation = 1 << 62

extension TileID: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u32(UInt32(column))
        w.u32(UInt32(row))
    }

    package init(from r: inout WireReader) throws {
        self.init(column: try r.count(upTo: Int(Int32.max), "tile column"), row: try r.count(upTo: Int(Int32.max), "tile row"))
    }
}

extension WireWriter {
    /// A list of tiles, counted.
    package mutating func tiles(_ tiles: [TileID]) {
        u32(UInt32(tiles.count))
        for tile in tiles { tile.encode(to: &self) }
    }
}

extension WireReader {
    /// A counted list of at most `Tiling.maxTiles` tiles.
    package mutating func tiles() throws -> [TileID] {
        try (0..<(try count(upTo: Tiling.maxTiles, "tile count"))).map { _ in try TileID(from: &self) }
    }
}

extension Rule: WireCodable {
    /// A Life-like rule is its two masks; any other 3x3 rule (a table, or a name that is
    /// not the digits) a marker no mask can be, its 512 bits and its name; a family with
    /// an engine of its own (Larger than Life, Generations) another marker and its name,
    /// read back as Golly reads it; a rule file's a third and its tree as a rule file
    /// (`RuleTree.treeText`), which a worker without the file reads as Golly would.
    private static let tableMarker: UInt16 = 0xFFFF, namedMarker: UInt16 = 0xFFFE, treeMarker: UInt16 = 0xFFFD
    /// The longest rule file text a message carries.
    static let longestTreeText = 64 << 20

    package func encode(to w: inout WireWriter) {
        if let tree {
            w.u16(Self.treeMarker)
            w.u16(0)
            w.string(tree.treeText)
            return
        }
        if !isTwoStateMoore {
            w.u16(Self.namedMarker)
            w.u16(0)
            w.string(description)
            return
        }
        guard table != nil || description != Rule(birth: birth, survive: survive).description else {
            w.u16(birth)
            w.u16(survive)
            return
        }
        w.u16(Self.tableMarker)
        w.u16(0)
        for word in (table ?? RuleTable { next($0) }).words { w.u64(word) }
        w.string(description)
    }

    package init(from r: inout WireReader) throws {
        let birth = try r.u16(), survive = try r.u16()
        if birth == Self.tableMarker, survive == 0 {
            let words = try (0..<8).map { _ in try r.u64() }
            self.init(table: RuleTable(words: words), name: try r.string(upTo: 1024))
            return
        }
        if birth == Self.treeMarker, survive == 0 {
            self.init(tree: try RuleTree(parsing: try r.string(upTo: Self.longestTreeText)))
            return
        }
        if birth == Self.namedMarker, survive == 0 {
            let name = try r.string(upTo: 1024)
            self = try Rule(parsing: name)
            guard !isTwoStateMoore else { throw TesseraError("rule \(name) in message is not a family of its own") }
            return
        }
        guard birth <= 0x1FF, survive <= 0x1FF else {
            throw TesseraError("implausible rule B\(birth)/S\(survive) in message")
        }
        self.init(birth: birth, survive: survive)
    }
}

extension Tiling: WireCodable {
    package func encode(to w: inout WireWriter) {
        shape.encode(to: &w)
        w.u32(UInt32(columns))
        w.u32(UInt32(rows))
    }

    package init(from r: inout WireReader) throws {
        let shape = try BoardShape(from: &r)
        let columns = try r.count(upTo: shape.width, "tile columns"), rows = try r.count(upTo: shape.height, "tile rows")
        try self.init(shape: shape, columns: columns, rows: rows)
    }
}

extension BoardShape: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.int(width)
        w.int(height)
        let code: UInt8 = switch topology {
        case .torus: 0
        case .plane: 1
        case .infinite: 2
        }
        w.u8(code)
        w.int(left)
        w.int(top)
    }

    package init(from r: inout WireReader) throws {
        let width = try r.int(in: 1...BoardShape.maxSide, "board width")
        let height = try r.int(in: 1...BoardShape.maxSide, "board height")
        let topology: Topology
        switch try r.u8() {
        case 0: topology = .torus
        case 1: topology = .plane
        case 2: topology = .infinite
        case let other: throw TesseraError("unknown topology \(other) in message")
        }
        let limit = BoardShape.maxCoordinate
        let left = try r.int(in: -limit...limit, "board left"), top = try r.int(in: -limit...limit, "board top")
        self.init(width: width, height: height, topology: topology, left: left, top: top)
    }
}

extension Viewport: WireCodable {
    package func encode(to w: inout WireWriter) {
        for value in [x, y, cellsPerDot, width, height] { w.int(value) }
    }

    package init(from r: inout WireReader) throws {
        let values = try (0..<5).map { _ in Int(Int64(bitPattern: try r.u64())) }
        guard Viewport.isWithinLimits(x: values[0], y: values[1], cellsPerDot: values[2], width: values[3], height: values[4]) else {
            throw TesseraError("implausible viewport \(values) (x, y, cells per dot, width, height) in message")
        }
        self.init(x: values[0], y: values[1], cellsPerDot: values[2], width: values[3], height: values[4])
    }
}

extension Hello: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u32(pid)
        w.string(endpoint)
        w.string(host)
    }

    package init(from r: inout WireReader) throws {
        let pid = try r.u32(), endpoint = try r.string(upTo: 512), host = try r.string(upTo: 256)
        try Endpoint.checkPeer(endpoint)
        self.init(pid: pid, endpoint: endpoint, host: host)
    }
}

extension Assignment: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u32(UInt32(worker))
        tiling.encode(to: &w)
        rule.encode(to: &w)
        w.u32(UInt32(halo))
        w.u64(generation)
        switch start {
        case .painted(let soup, let overlays):
            w.u8(0)
            w.bool(soup != nil)
            if let soup {
                w.double(soup.density)
                w.u64(soup.seed)
            }
            w.parts(overlays)
        case .loaded: w.u8(1)
        case .goesOn: w.u8(2)
        case .restored: w.u8(3)
        }
        w.u32(UInt32(endpoints.count))
        for endpoint in endpoints { w.string(endpoint) }
        for owner in owners { w.u32(UInt32(owner)) }
        w.u64(epoch)
        w.u64(haloToken.high)
        w.u64(haloToken.low)
    }

    package init(from r: inout WireReader) throws {
        let worker = try r.count(upTo: maxWorkers, "worker index")
        let tiling = try Tiling(from: &r)
        let rule = try Rule(from: &r)
        let halo = try r.count(upTo: tiling.smallestSide, "halo depth")
        try tiling.validate(halo: halo, reach: rule.reach)
        let generation = try r.u64()
        let start: Start
        switch try r.u8() {
        case 0:
            let soup = try r.bool() ? try Soup(density: Double(bitPattern: try r.u64()), seed: try r.u64()) : nil
            start = .painted(soup: soup, overlays: try r.parts(at: -BoardShape.maxSide...BoardShape.maxSide, "overlay"))
        case 1: start = .loaded
        case 2: start = .goesOn
        case 3: start = .restored
        case let kind: throw TesseraError("an assignment's tiles start in no way numbered \(kind)")
        }
        let endpoints = try (0..<r.count(upTo: maxWorkers, "worker count")).map { _ in
            let endpoint = try r.string(upTo: 512)
            try Endpoint.checkPeer(endpoint)
            return endpoint
        }
        let owners = try tiling.tiles.map { _ in try r.count(upTo: maxWorkers, "tile owner") }
        guard worker < endpoints.count, owners.allSatisfy({ $0 < endpoints.count }) else {
            throw TesseraError("assignment names tiles or workers that do not exist")
        }
        self.init(worker: worker, tiling: tiling, rule: rule, halo: halo, generation: generation, start: start,
                  endpoints: endpoints, owners: owners, epoch: try r.u64(), haloToken: HaloToken(high: try r.u64(), low: try r.u64()))
    }
}

extension SnapshotOrder: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u64(generation)
        w.string(buddy)
        w.string(keepsFor)
        w.tiles(keeps)
        w.bool(retains != nil)
        if let retains { w.u64(retains) }
    }

    package init(from r: inout WireReader) throws {
        let generation = try r.u64()
        let buddy = try r.string(upTo: 512), keepsFor = try r.string(upTo: 512)
        try Endpoint.checkPeer(buddy)
        try Endpoint.checkPeer(keepsFor)
        let keeps = try r.tiles()
        let retains = try r.bool() ? try r.u64() : nil
        self.init(generation: generation, buddy: buddy, keepsFor: keepsFor, keeps: keeps, retains: retains)
    }
}

extension TileCells: WireCodable {
    package func encode(to w: inout WireWriter) {
        tile.encode(to: &w)
        w.u64(generation)
        w.cells(cells, states: states)
    }

    package init(from r: inout WireReader) throws {
        let tile = try TileID(from: &r), generation = try r.u64()
        let (cells, states) = try r.cells("tile \(tile)'s cells")
        self.init(tile: tile, generation: generation, cells: cells, states: states)
    }
}

extension TileParts: WireCodable {
    package func encode(to w: inout WireWriter) {
        tile.encode(to: &w)
        w.u64(generation)
        w.parts(parts)
    }

    package init(from r: inout WireReader) throws {
        let tile = try TileID(from: &r), generation = try r.u64()
        self.init(tile: tile, generation: generation, parts: try r.parts(at: 0...BoardShape.maxSide, "part"))
    }
}

extension Bands: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u64(generation)
        w.u64(epoch)
        w.parts(parts)
    }

    /// Golly's coordinates, within 2^62 of the origin.
    package init(from r: inout WireReader) throws {
        let generation = try r.u64(), epoch = try r.u64()
        self.init(generation: generation, epoch: epoch, parts: try r.parts(at: -(1 << 62)...(1 << 62), "band"))
    }
}

extension ShardAssignment: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u32(UInt32(shard))
        w.u32(UInt32(map.shards))
        for start in map.starts {
            w.u64(UInt64(truncatingIfNeeded: start >> 64))
            w.u64(UInt64(truncatingIfNeeded: start))
        }
        rule.encode(to: &w)
        w.bool(board != nil)
        board?.encode(to: &w)
        w.int(depth)
        w.u64(generation)
        for endpoint in endpoints { w.string(endpoint) }
        w.u64(epoch)
        w.u64(haloToken.high)
        w.u64(haloToken.low)
        w.parts(parts)
        w.int(partCount)
    }

    package init(from r: inout WireReader) throws {
        let shard = try r.count(upTo: maxWorkers, "shard index"), shards = try r.count(upTo: maxWorkers, "shard count")
        let starts = try (0..<shards).map { _ in UInt128(try r.u64()) << 64 | UInt128(try r.u64()) }
        guard shard < shards, starts.first == 0, zip(starts, starts.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw TesseraError("a shard assignment whose map is no map (shard \(shard) of \(shards), ranges out of order)")
        }
        let rule = try Rule(from: &r)
        let board = try r.bool() ? try BoardShape(from: &r) : nil
        guard board?.topology != .infinite else { throw TesseraError("a shard assignment's bounded grid is unbounded") }
        let depth = try r.int(in: 1...64, "stretch depth"), generation = try r.u64()
        let endpoints = try (0..<shards).map { _ in
            let endpoint = try r.string(upTo: 512)
            try Endpoint.checkPeer(endpoint)
            return endpoint
        }
        let epoch = try r.u64(), token = HaloToken(high: try r.u64(), low: try r.u64())
        let parts = try r.parts(at: -(1 << 62)...(1 << 62), "part")
        let count = try r.int(in: parts.count...(1 << 40), "part count")
        self.init(shard: shard, map: ShardMap(starts: starts), rule: rule, board: board, depth: depth, generation: generation,
                  endpoints: endpoints, epoch: epoch, haloToken: token, parts: parts, partCount: count)
    }
}

extension ShardFigures: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.int(population)
        w.int(tiles)
        w.bool(bounds != nil)
        if let b = bounds { for value in [b.left, b.top, b.width, b.height] { w.int(value) } }
    }

    package init(from r: inout WireReader) throws {
        let population = try r.int(in: 0...maxPopulation, "population"), tiles = try r.int(in: 0...Int(Int32.max), "tile count")
        var bounds: CellBounds? = nil
        if try r.bool() {
            let limit = 1 << 62
            bounds = CellBounds(left: try r.int(in: -limit...limit, "live cells' left"), top: try r.int(in: -limit...limit, "live cells' top"),
                                width: try r.int(in: 1...limit, "live cells' width"), height: try r.int(in: 1...limit, "live cells' height"))
        }
        self.init(population: population, tiles: tiles, bounds: bounds)
    }
}

extension WireWriter {
    /// Cells placed at (x, y): a count, then each one's corner and cells.
    mutating func parts(_ parts: [Overlay]) {
        u32(UInt32(parts.count))
        for part in parts {
            int(part.x)
            int(part.y)
            cells(part.cells, states: part.states)
        }
    }

    /// Two-state cells (a 0, then the grid), or states (their planes as layers).
    mutating func cells(_ cells: BitGrid, states: StateGrid?) {
        guard let states else {
            u8(0)
            return grid(cells)
        }
        layers(states.layers)
    }
}

extension WireReader {
    /// Cells placed at (x, y), each corner within `range`.
    mutating func parts(at range: ClosedRange<Int>, _ what: String) throws -> [Overlay] {
        try (0..<count(upTo: maxOverlays, "\(what) count")).map { _ in
            let x = try int(in: range, "\(what) x"), y = try int(in: range, "\(what) y")
            let (cells, states) = try self.cells(what)
            return states.map { Overlay(states: $0, x: x, y: y) } ?? Overlay(cells: cells, x: x, y: y)
        }
    }

    /// Cells as `WireWriter.cells` writes them: two states, or states with their cells
    /// in any state but 0.
    mutating func cells(_ what: String) throws -> (BitGrid, StateGrid?) {
        if try peekU8() == 0 {
            _ = try u8()
            return (try grid(), nil)
        }
        let states = StateGrid(layers: try layers(what))
        return (states.occupied, states)
    }
}

extension TileState: WireCodable {
    package func encode(to w: inout WireWriter) {
        tile.encode(to: &w)
        w.u64(generation)
        w.layers(layers)
    }

    package init(from r: inout WireReader) throws {
        let tile = try TileID(from: &r), generation = try r.u64()
        self.init(tile: tile, generation: generation, layers: try r.layers("tile \(tile)"))
    }
}

extension FramePart: WireCodable {
    package func encode(to w: inout WireWriter) {
        tile.encode(to: &w)
        w.int(x)
        w.int(y)
        w.grid(dots)
        w.bytes(states)
    }

    package init(from r: inout WireReader) throws {
        let tile = try TileID(from: &r)
        let x = try r.int(in: 0...Viewport.maxDots, "frame x"), y = try r.int(in: 0...Viewport.maxDots, "frame y")
        let dots = try r.grid()
        guard x + dots.width <= Viewport.maxDots, y + dots.height <= Viewport.maxDots else {
            throw TesseraError("implausible \(dots.width)x\(dots.height) frame part at (\(x),\(y)) in message")
        }
        let states = try r.bytes(upTo: dots.width * dots.height, "frame part states")
        guard states.isEmpty || states.count == dots.width * dots.height else {
            throw TesseraError("a \(dots.width)x\(dots.height) frame part came with \(states.count) states")
        }
        self.init(tile: tile, x: x, y: y, dots: dots, states: states)
    }
}

extension RunProgress: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u64(generation)
        w.double(computeSeconds)
        w.double(waitSeconds)
    }

    package init(from r: inout WireReader) throws {
        self.init(generation: try r.u64(), computeSeconds: try r.amount("compute time"), waitSeconds: try r.amount("wait time"))
    }
}

extension WorkerReport: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.double(computeSeconds)
        w.double(waitSeconds)
        w.u64(bytesSent)
        w.u32(UInt32(populations.count))
        for (tile, population) in populations.sorted(by: { $0.key < $1.key }) {
            tile.encode(to: &w)
            w.int(population)
        }
        w.u32(UInt32(tileSeconds.count))
        for (tile, seconds) in tileSeconds.sorted(by: { $0.key < $1.key }) {
            tile.encode(to: &w)
            w.double(seconds)
        }
        w.bool(shard != nil)
        shard?.encode(to: &w)
    }

    package init(from r: inout WireReader) throws {
        self.init(computeSeconds: try r.amount("compute time"), waitSeconds: try r.amount("wait time"), bytesSent: try r.u64())
        for _ in 0..<(try r.count(upTo: Tiling.maxTiles, "tile count")) {
            let tile = try TileID(from: &r)
            populations[tile] = try r.int(in: 0...maxPopulation, "population")
        }
        for _ in 0..<(try r.count(upTo: Tiling.maxTiles, "tile count")) {
            let tile = try TileID(from: &r)
            tileSeconds[tile] = try r.amount("tile compute time")
        }
        if try r.bool() { shard = try ShardFigures(from: &r) }
    }
}

extension HaloStrip: WireCodable {
    package func encode(to w: inout WireWriter) {
        tile.encode(to: &w)
        w.u8(UInt8(side.rawValue))
        w.u64(generation)
        w.u8(whole ? 1 : 0)
        w.u32(UInt32(pieces.count))
        for piece in pieces {
            w.u32(UInt32(piece.offset))
            w.layers(piece.layers)
        }
    }

    package init(from r: inout WireReader) throws {
        let tile = try TileID(from: &r)
        let code = try r.u8()
        guard let side = Direction(rawValue: Int(code)) else { throw TesseraError("halo strip for unknown side \(code)") }
        let generation = try r.u64()
        let whole = try r.u8()
        guard whole <= 1 else { throw TesseraError("halo strip with whole-edge flag \(whole)") }
        // An edge is at most 2^31 cells long: 2^23 pieces.
        let count = try r.count(upTo: BoardShape.maxSide / HaloStrip.pieceLength, "piece count")
        let pieces = try (0..<count).map { _ in
            HaloStrip.Piece(offset: try r.count(upTo: BoardShape.maxSide, "piece offset"), layers: try r.layers("a halo piece"))
        }
        self.init(tile: tile, side: side, generation: generation, pieces: pieces, whole: whole == 1)
    }
}

extension PresenterWelcome: WireCodable {
    package func encode(to w: inout WireWriter) {
        tiling.encode(to: &w)
        rule.encode(to: &w)
        w.u64(generation)
        w.int(population)
        w.u32(UInt32(workers))
    }

    package init(from r: inout WireReader) throws {
        self.init(tiling: try Tiling(from: &r), rule: try Rule(from: &r), generation: try r.u64(),
                  population: try r.int(in: 0...maxPopulation, "population"),
                  workers: try r.count(upTo: maxWorkers, "worker count"))
    }
}

extension PresenterRequest: WireCodable {
    package func encode(to w: inout WireWriter) {
        switch self {
        case .advance(let generations):
            w.u8(0)
            w.u64(generations)
        case .frame(let viewport):
            w.u8(1)
            viewport.encode(to: &w)
        case .collect(let rows):
            w.u8(2)
            w.rows(rows)
        case .load(let generation, let board):
            w.u8(3)
            w.u64(generation)
            w.grid(board)
        case .finish:
            w.u8(4)
        case .stateFrame(let viewport):
            w.u8(5)
            viewport.encode(to: &w)
        case .collectStates:
            w.u8(6)
        case .loadStates(let generation, let board):
            w.u8(7)
            w.u64(generation)
            w.layers(board.layers)
        }
    }

    package init(from r: inout WireReader) throws {
        switch try r.u8() {
        case 0: self = .advance(generations: try r.u64())
        case 1: self = .frame(try Viewport(from: &r))
        case 2: self = .collect(rows: try r.rows())
        case 3: self = .load(generation: try r.u64(), board: try r.grid())
        case 4: self = .finish
        case 5: self = .stateFrame(try Viewport(from: &r))
        case 6: self = .collectStates
        case 7: self = .loadStates(generation: try r.u64(), board: StateGrid(layers: try r.layers("a board's states")))
        case let other: throw TesseraError("unknown presenter request \(other)")
        }
    }
}

extension PresenterReply: WireCodable {
    package func encode(to w: inout WireWriter) {
        switch self {
        case .advanced(let generation, let population):
            w.u8(0)
            w.u64(generation)
            w.int(population)
        case .frame(let dots):
            w.u8(1)
            w.grid(dots)
        case .board(let cells):
            w.u8(2)
            w.grid(cells)
        case .loaded(let generation, let population):
            w.u8(3)
            w.u64(generation)
            w.int(population)
        case .stateFrame(let dots, let states):
            w.u8(4)
            w.u32(UInt32(states))
            w.bytes(dots)
        case .states(let board):
            w.u8(5)
            w.layers(board.layers)
        }
    }

    package init(from r: inout WireReader) throws {
        switch try r.u8() {
        case 0: self = .advanced(generation: try r.u64(), population: try r.int(in: 0...maxPopulation, "population"))
        case 1: self = .frame(try r.grid())
        case 2: self = .board(try r.grid())
        case 3: self = .loaded(generation: try r.u64(), population: try r.int(in: 0...maxPopulation, "population"))
        case 4:
            let states = try r.count(upTo: 256, "state count")
            let dots = try r.bytes(upTo: Viewport.maxDots * Viewport.maxDots, "frame states")
            guard dots.allSatisfy({ Int($0) < states }) else { throw TesseraError("a frame's states go past its \(states)") }
            self = .stateFrame(dots: dots, states: states)
        case 5: self = .states(StateGrid(layers: try r.layers("the board's states")))
        case let other: throw TesseraError("unknown presenter reply \(other)")
        }
    }
}

extension ViewerCommand: WireCodable {
    package func encode(to w: inout WireWriter) {
        let (code, x, y): (UInt8, Int, Int) = switch self {
        case .togglePause: (0, 0, 0)
        case .step: (1, 0, 0)
        case .faster: (2, 0, 0)
        case .slower: (3, 0, 0)
        case .nextPattern: (4, 0, 0)
        case .toggleCell(let x, let y, _): (5, x, y)
        case .save: (6, 0, 0)
        case .rewind: (7, 0, 0)
        }
        w.u8(code)
        w.int(x)
        w.int(y)
        if case .toggleCell(_, _, let state) = self { w.u8(UInt8(state)) }
    }

    package init(from r: inout WireReader) throws {
        let code = try r.u8()
        let x = try r.int(in: -BoardShape.maxSide...BoardShape.maxSide, "cell x")
        let y = try r.int(in: -BoardShape.maxSide...BoardShape.maxSide, "cell y")
        switch code {
        case 0: self = .togglePause
        case 1: self = .step
        case 2: self = .faster
        case 3: self = .slower
        case 4: self = .nextPattern
        case 5:
            // State 0 sets nothing: a toggle is between a state and 0.
            let state = Int(try r.u8())
            guard state > 0 else { throw TesseraError("implausible cell state 0 in message") }
            self = .toggleCell(x: x, y: y, state: state)
        case 6: self = .save
        case 7: self = .rewind
        default: throw TesseraError("unknown viewer command \(code)")
        }
    }
}

extension Frame: WireCodable {
    package func encode(to w: inout WireWriter) {
        w.u64(generation)
        w.int(population)
        w.double(generationsPerSecond)
        w.double(cellUpdatesPerSecond)
        w.u32(UInt32(workers))
        w.u32(UInt32(tiles.columns))
        w.u32(UInt32(tiles.rows))
        w.bool(paused)
        w.double(delay)
        w.int(board.x)
        w.int(board.y)
        w.int(board.width)
        w.int(board.height)
        viewport.encode(to: &w)
        w.grid(dots)
        w.u32(UInt32(stateCount))
        w.bytes(states)
        w.string(note)
    }

    package init(from r: inout WireReader) throws {
        let generation = try r.u64(), population = try r.int(in: 0...maxPopulation, "population")
        let gps = try r.amount("generations per second"), cups = try r.amount("cell-updates per second")
        let workers = try r.count(upTo: maxWorkers, "worker count")
        let columns = try r.count(upTo: BoardShape.maxSide, "tile columns"), rows = try r.count(upTo: BoardShape.maxSide, "tile rows")
        let paused = try r.bool(), delay = try r.amount("delay")
        let far = Viewport.maxCoordinate
        let x = try r.int(in: -far...far, "board left"), y = try r.int(in: -far...far, "board top")
        // Groups far apart on the unbounded plane span more than any one board.
        let width = try r.int(in: 0...2 * far, "board width"), height = try r.int(in: 0...2 * far, "board height")
        let viewport = try Viewport(from: &r)
        let dots = try r.grid()
        guard dots.width <= Viewport.maxDots, dots.height <= Viewport.maxDots else {
            throw TesseraError("implausible \(dots.width)x\(dots.height) frame in message")
        }
        let stateCount = try r.count(upTo: 256, "state count")
        let states = try r.bytes(upTo: dots.width * dots.height, "frame states")
        guard states.isEmpty || (stateCount > 2 && states.count == dots.width * dots.height && states.allSatisfy { Int($0) < stateCount })
        else { throw TesseraError("a frame's \(states.count) states do not fit its \(dots.width)x\(dots.height) dots of \(stateCount) states") }
        self.init(generation: generation, population: population, generationsPerSecond: gps, cellUpdatesPerSecond: cups,
                  workers: workers, tiles: (columns, rows), paused: paused, delay: delay, board: (x, y, width, height),
                  viewport: viewport, dots: dots, note: try r.string())
        (self.states, self.stateCount) = (states, stateCount)
    }
}
