import Foundation
import TesseraCore
import TesseraTiles

/// What a worker tells the coordinator when it connects.
public struct Hello: Sendable, Equatable {
    public let pid: UInt32
    /// Where peers send this worker's halo strips, e.g. `tcp://10.0.0.2:41234`.
    public let endpoint: String
    public let host: String

    public init(pid: UInt32, endpoint: String, host: String) {
        self.pid = pid
        self.endpoint = endpoint
        self.host = host
    }
}

/// Everything a worker needs to build its tiles and find its peers.
public struct Assignment: Sendable, Equatable {
    public let worker: Int
    public let tiling: Tiling
    public let rule: Rule
    public let halo: Int
    public let generation: UInt64
    /// When set, workers generate their tiles' cells from it; otherwise cells follow as `tileCells`.
    public let soup: Soup?
    /// A pattern the workers lay over the soup (or an empty board) themselves.
    public let overlay: Overlay?
    /// Each worker's inbox endpoint, by worker index.
    public let endpoints: [String]
    /// The worker index that owns each tile, in `tiling.tiles` order.
    public let owners: [Int]

    public init(worker: Int, tiling: Tiling, rule: Rule, halo: Int, generation: UInt64, soup: Soup?,
                overlay: Overlay? = nil, endpoints: [String], owners: [Int]) {
        self.overlay = overlay
        self.worker = worker
        self.tiling = tiling
        self.rule = rule
        self.halo = halo
        self.generation = generation
        self.soup = soup
        self.endpoints = endpoints
        self.owners = owners
    }

    public func owner(of tile: TileID) -> Int { owners[tile.row * tiling.columns + tile.column] }
    public var myTiles: [TileID] { tiling.tiles.filter { owner(of: $0) == worker } }

    /// Whether workers make their tiles' cells themselves, rather than wait for `tileCells`.
    public var cellsMadeByWorkers: Bool { soup != nil || overlay != nil }

    /// The starting cells of `tile`, made from the soup and the overlay.
    public func cells(of tile: TileID) -> BitGrid {
        let rect = tiling.rect(of: tile)
        return StartingCells(soup: soup, overlay: overlay)
            .cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height, of: tiling.shape)
    }
}

/// How a worker spent a run.
public struct WorkerReport: Sendable, Equatable {
    public var computeSeconds: Double
    public var waitSeconds: Double
    public var bytesSent: UInt64
    public var populations: [TileID: Int]

    public init(computeSeconds: Double = 0, waitSeconds: Double = 0, bytesSent: UInt64 = 0, populations: [TileID: Int] = [:]) {
        self.computeSeconds = computeSeconds
        self.waitSeconds = waitSeconds
        self.bytesSent = bytesSent
        self.populations = populations
    }
}

/// What a viewer asks the presenter to do.
public enum ViewerCommand: Sendable, Equatable {
    case togglePause
    case step
    case faster
    case slower
    case nextPattern
    case toggleCell(x: Int, y: Int)
    case save
    case rewind
}

/// One generation-consistent picture of the board, reduced to a viewer's viewport,
/// with the run's vital signs.
public struct Frame: Sendable, Equatable {
    public var generation: UInt64
    public var population: Int
    public var generationsPerSecond: Double
    public var cellUpdatesPerSecond: Double
    public var workers: Int
    public var tiles: (columns: Int, rows: Int)
    public var paused: Bool
    /// Seconds between generations; 0 is as fast as it goes.
    public var delay: Double
    public var board: (width: Int, height: Int)
    public var viewport: Viewport
    public var dots: BitGrid
    /// A line for the viewer to show once (where a save went, say).
    public var note: String

    public init(generation: UInt64, population: Int, generationsPerSecond: Double, cellUpdatesPerSecond: Double,
                workers: Int, tiles: (columns: Int, rows: Int), paused: Bool, delay: Double,
                board: (width: Int, height: Int), viewport: Viewport, dots: BitGrid, note: String) {
        self.generation = generation
        self.population = population
        self.generationsPerSecond = generationsPerSecond
        self.cellUpdatesPerSecond = cellUpdatesPerSecond
        self.workers = workers
        self.tiles = tiles
        self.paused = paused
        self.delay = delay
        self.board = board
        self.viewport = viewport
        self.dots = dots
        self.note = note
    }

    public static func == (a: Frame, b: Frame) -> Bool {
        a.generation == b.generation && a.population == b.population && a.generationsPerSecond == b.generationsPerSecond
            && a.cellUpdatesPerSecond == b.cellUpdatesPerSecond && a.workers == b.workers
            && a.tiles == b.tiles && a.paused == b.paused && a.delay == b.delay && a.board == b.board
            && a.viewport == b.viewport && a.dots == b.dots && a.note == b.note
    }
}

/// Every message between coordinator and workers, between workers, and between the
/// presenter and its viewers.
public enum Message: Sendable, Equatable {
    case hello(Hello)
    case assign(Assignment)
    case tileCells(tile: TileID, generation: UInt64, cells: BitGrid)
    case ready
    case start(generations: UInt64)
    case heartbeat(generation: UInt64)
    case done(WorkerReport)
    /// Asks for board rows `rows` (all columns): each tile they cross answers with its part.
    case collect(rows: Range<Int>)
    case halo(HaloStrip)
    case shutdown
    case abort(reason: String)
    case failure(reason: String)
    case frameRequest(Viewport)
    case frameTile(tile: TileID, x: Int, y: Int, dots: BitGrid)
    case view(Viewport)
    case command(ViewerCommand)
    case frame(Frame)
    /// A presenter in its own process asks to drive the coordinator.
    case presenterHello
}

/// The binary format: a fixed 32-byte little-endian header, then a payload.
///
/// | bytes | field |
/// |---|---|
/// | 0–3 | magic `TSRA` |
/// | 4–5 | protocol version |
/// | 6–7 | message kind |
/// | 8–11, 12–15 | tile column, row |
/// | 16–23 | generation |
/// | 24–27 | payload length |
/// | 28–31 | halo side (halo strips), else 0 |
public enum Wire {
    public static let magic: [UInt8] = Array("TSRA".utf8)
    public static let version: UInt16 = 1
    public static let headerSize = 32
    /// The largest payload accepted: a 2^15 × 2^15-cell tile and then some.
    public static let maxPayload = 1 << 30

    enum Kind: UInt16 {
        case hello = 1, assign, tileCells, ready, start, heartbeat, done, collect, halo, shutdown, abort, failure
        case frameRequest, frameTile, view, command, frame, presenterHello
    }

    public static func encode(_ message: Message) -> [UInt8] {
        var payload = WireWriter()
        var tile = TileID(column: 0, row: 0), generation: UInt64 = 0, side: UInt32 = 0
        let kind: Kind
        switch message {
        case .hello(let hello):
            kind = .hello
            payload.u32(hello.pid)
            payload.string(hello.endpoint)
            payload.string(hello.host)
        case .assign(let a):
            kind = .assign
            payload.u32(UInt32(a.worker))
            payload.u64(UInt64(a.tiling.shape.width))
            payload.u64(UInt64(a.tiling.shape.height))
            payload.u8(a.tiling.shape.topology == .torus ? 0 : 1)
            payload.u32(UInt32(a.tiling.columns))
            payload.u32(UInt32(a.tiling.rows))
            payload.u16(a.rule.birth)
            payload.u16(a.rule.survive)
            payload.u32(UInt32(a.halo))
            payload.u64(a.generation)
            payload.u8(a.soup == nil ? 0 : 1)
            payload.u64(a.soup?.density.bitPattern ?? 0)
            payload.u64(a.soup?.seed ?? 0)
            payload.u8(a.overlay == nil ? 0 : 1)
            if let overlay = a.overlay {
                payload.u64(UInt64(bitPattern: Int64(overlay.x)))
                payload.u64(UInt64(bitPattern: Int64(overlay.y)))
                payload.grid(overlay.cells)
            }
            payload.u32(UInt32(a.endpoints.count))
            for endpoint in a.endpoints { payload.string(endpoint) }
            payload.u32(UInt32(a.owners.count))
            for owner in a.owners { payload.u32(UInt32(owner)) }
        case .tileCells(let t, let g, let cells):
            kind = .tileCells
            (tile, generation) = (t, g)
            payload.grid(cells)
        case .ready: kind = .ready
        case .start(let generations):
            kind = .start
            payload.u64(generations)
        case .heartbeat(let g):
            kind = .heartbeat
            generation = g
        case .done(let report):
            kind = .done
            payload.u64(report.computeSeconds.bitPattern)
            payload.u64(report.waitSeconds.bitPattern)
            payload.u64(report.bytesSent)
            payload.u32(UInt32(report.populations.count))
            for (t, population) in report.populations.sorted(by: { $0.key < $1.key }) {
                payload.u32(UInt32(t.column))
                payload.u32(UInt32(t.row))
                payload.u64(UInt64(population))
            }
        case .collect(let rows):
            kind = .collect
            payload.u64(UInt64(rows.lowerBound))
            payload.u64(UInt64(rows.upperBound))
        case .halo(let strip):
            kind = .halo
            (tile, generation, side) = (strip.tile, strip.generation, UInt32(strip.side.rawValue))
            payload.grid(strip.cells)
        case .shutdown: kind = .shutdown
        case .abort(let reason):
            kind = .abort
            payload.string(reason)
        case .failure(let reason):
            kind = .failure
            payload.string(reason)
        case .frameRequest(let viewport):
            kind = .frameRequest
            payload.viewport(viewport)
        case .frameTile(let t, let x, let y, let dots):
            kind = .frameTile
            tile = t
            payload.u64(UInt64(bitPattern: Int64(x)))
            payload.u64(UInt64(bitPattern: Int64(y)))
            payload.grid(dots)
        case .view(let viewport):
            kind = .view
            payload.viewport(viewport)
        case .command(let command):
            kind = .command
            var (code, x, y): (UInt8, Int, Int) = (0, 0, 0)
            switch command {
            case .togglePause: code = 0
            case .step: code = 1
            case .faster: code = 2
            case .slower: code = 3
            case .nextPattern: code = 4
            case .toggleCell(let cx, let cy): (code, x, y) = (5, cx, cy)
            case .save: code = 6
            case .rewind: code = 7
            }
            payload.u8(code)
            payload.u64(UInt64(bitPattern: Int64(x)))
            payload.u64(UInt64(bitPattern: Int64(y)))
        case .frame(let f):
            kind = .frame
            generation = f.generation
            payload.u64(UInt64(f.population))
            payload.u64(f.generationsPerSecond.bitPattern)
            payload.u64(f.cellUpdatesPerSecond.bitPattern)
            payload.u32(UInt32(f.workers))
            payload.u32(UInt32(f.tiles.columns))
            payload.u32(UInt32(f.tiles.rows))
            payload.u8(f.paused ? 1 : 0)
            payload.u64(f.delay.bitPattern)
            payload.u64(UInt64(f.board.width))
            payload.u64(UInt64(f.board.height))
            payload.viewport(f.viewport)
            payload.grid(f.dots)
            payload.string(f.note)
        case .presenterHello: kind = .presenterHello
        }
        var header = WireWriter()
        header.bytes.append(contentsOf: magic)
        header.u16(version)
        header.u16(kind.rawValue)
        header.u32(UInt32(tile.column))
        header.u32(UInt32(tile.row))
        header.u64(generation)
        header.u32(UInt32(payload.bytes.count))
        header.u32(side)
        return header.bytes + payload.bytes
    }

    /// Decodes a message from a peer, or logs one line saying why it was refused (a
    /// stranger or a broken peer must never bring `role` down) and returns nil.
    public static func decodeOrLog(_ bytes: [UInt8], role: String) -> Message? {
        do {
            return try decode(bytes)
        } catch {
            FileHandle.standardError.write(Data("tessera \(role): refused a message: \(error)\n".utf8))
            return nil
        }
    }

    /// Decodes one message, refusing anything malformed with a `TesseraError` that says what.
    public static func decode(_ bytes: [UInt8]) throws -> Message {
        guard bytes.count >= headerSize else {
            throw TesseraError("truncated message: \(bytes.count) bytes, shorter than the \(headerSize)-byte header")
        }
        guard Array(bytes[0..<4]) == magic else { throw TesseraError("not a Tessera message (bad magic)") }
        var header = WireReader(bytes, from: 4)
        let peerVersion = try header.u16()
        guard peerVersion == version else {
            throw TesseraError(
                "peer speaks protocol version \(peerVersion), this tessera speaks \(version)",
                fix: "run the same tessera build on every machine")
        }
        let rawKind = try header.u16()
        guard let kind = Kind(rawValue: rawKind) else { throw TesseraError("unknown message kind \(rawKind)") }
        let tile = TileID(column: Int(try header.u32()), row: Int(try header.u32()))
        let generation = try header.u64()
        let length = Int(try header.u32())
        let side = try header.u32()
        guard length <= maxPayload else { throw TesseraError("oversized message: payload of \(length) bytes") }
        guard bytes.count == headerSize + length else {
            throw TesseraError("truncated or oversized message: header says \(length) payload bytes, got \(bytes.count - headerSize)")
        }
        var p = WireReader(bytes, from: headerSize)
        let message: Message
        switch kind {
        case .hello:
            message = .hello(Hello(pid: try p.u32(), endpoint: try p.string(), host: try p.string()))
        case .assign:
            let worker = Int(try p.u32())
            let width = try p.count(try p.u64()), height = try p.count(try p.u64())
            let topology: Topology = try p.u8() == 0 ? .torus : .plane
            let columns = try p.count(UInt64(try p.u32())), rows = try p.count(UInt64(try p.u32()))
            let rule = Rule(birth: try p.u16(), survive: try p.u16())
            let halo = Int(try p.u32())
            let start = try p.u64()
            let hasSoup = try p.u8() == 1
            let density = Double(bitPattern: try p.u64()), seed = try p.u64()
            var overlay: Overlay? = nil
            if try p.u8() == 1 {
                let x = Int(Int64(bitPattern: try p.u64())), y = Int(Int64(bitPattern: try p.u64()))
                overlay = Overlay(cells: try p.grid(), x: x, y: y)
            }
            let endpoints = try (0..<p.count(UInt64(try p.u32()))).map { _ in try p.string() }
            let owners = try (0..<p.count(UInt64(try p.u32()))).map { _ in Int(try p.u32()) }
            let tiling = try Tiling(shape: BoardShape(width: width, height: height, topology: topology),
                                    columns: columns, rows: rows)
            guard owners.count == columns * rows, owners.allSatisfy({ $0 < endpoints.count }), worker < endpoints.count else {
                throw TesseraError("assignment names tiles or workers that do not exist")
            }
            message = .assign(Assignment(
                worker: worker, tiling: tiling, rule: rule, halo: halo, generation: start,
                soup: hasSoup ? try Soup(density: density, seed: seed) : nil, overlay: overlay,
                endpoints: endpoints, owners: owners))
        case .tileCells:
            message = .tileCells(tile: tile, generation: generation, cells: try p.grid())
        case .ready: message = .ready
        case .start: message = .start(generations: try p.u64())
        case .heartbeat: message = .heartbeat(generation: generation)
        case .done:
            var report = WorkerReport(computeSeconds: Double(bitPattern: try p.u64()),
                                      waitSeconds: Double(bitPattern: try p.u64()), bytesSent: try p.u64())
            for _ in 0..<(try p.count(UInt64(try p.u32()))) {
                let t = TileID(column: Int(try p.u32()), row: Int(try p.u32()))
                report.populations[t] = try p.count(try p.u64())
            }
            message = .done(report)
        case .collect:
            let (top, bottom) = (try p.u64(), try p.u64())
            guard top <= bottom, bottom <= UInt64(Int32.max) else { throw TesseraError("collect asks for rows \(top)..<\(bottom)") }
            message = .collect(rows: Int(top)..<Int(bottom))
        case .halo:
            guard let direction = Direction(rawValue: Int(side)) else { throw TesseraError("halo strip for unknown side \(side)") }
            message = .halo(HaloStrip(tile: tile, side: direction, generation: generation, cells: try p.grid()))
        case .shutdown: message = .shutdown
        case .abort: message = .abort(reason: try p.string())
        case .failure: message = .failure(reason: try p.string())
        case .frameRequest: message = .frameRequest(try p.viewport())
        case .frameTile:
            let x = Int(Int64(bitPattern: try p.u64())), y = Int(Int64(bitPattern: try p.u64()))
            message = .frameTile(tile: tile, x: x, y: y, dots: try p.grid())
        case .view: message = .view(try p.viewport())
        case .command:
            let code = try p.u8()
            let x = Int(Int64(bitPattern: try p.u64())), y = Int(Int64(bitPattern: try p.u64()))
            let commands: [ViewerCommand] = [.togglePause, .step, .faster, .slower, .nextPattern,
                                             .toggleCell(x: x, y: y), .save, .rewind]
            guard Int(code) < commands.count else { throw TesseraError("unknown viewer command \(code)") }
            message = .command(commands[Int(code)])
        case .frame:
            let population = try p.count(try p.u64())
            let gps = Double(bitPattern: try p.u64()), cups = Double(bitPattern: try p.u64())
            let workers = Int(try p.u32()), columns = Int(try p.u32()), rows = Int(try p.u32())
            let paused = try p.u8() == 1
            let delay = Double(bitPattern: try p.u64())
            let width = try p.count(try p.u64()), height = try p.count(try p.u64())
            let viewport = try p.viewport()
            message = .frame(Frame(generation: generation, population: population, generationsPerSecond: gps,
                                   cellUpdatesPerSecond: cups, workers: workers, tiles: (columns, rows), paused: paused,
                                   delay: delay, board: (width, height), viewport: viewport, dots: try p.grid(),
                                   note: try p.string()))
        case .presenterHello: message = .presenterHello
        }
        guard p.atEnd else { throw TesseraError("\(kind) message has \(bytes.count - p.offset) unexpected trailing bytes") }
        return message
    }
}

struct WireWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func string(_ s: String) {
        u32(UInt32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    mutating func viewport(_ v: Viewport) {
        for value in [v.x, v.y, v.cellsPerDot, v.width, v.height] { u64(UInt64(bitPattern: Int64(value))) }
    }

    mutating func grid(_ g: BitGrid) {
        u32(UInt32(g.width))
        u32(UInt32(g.height))
        bytes.reserveCapacity(bytes.count + g.words.count * 8)
        g.words.withUnsafeBytes { raw in
            // Words go out little-endian; on big-endian hosts they would need swapping.
            bytes.append(contentsOf: raw)
        }
    }
}

struct WireReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    var atEnd: Bool { offset == bytes.count }

    private mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - offset >= n else {
            throw TesseraError("truncated message: needed \(n) more bytes at offset \(offset)")
        }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let slice = try take(MemoryLayout<T>.size)
        return slice.reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }

    mutating func u8() throws -> UInt8 { try take(1).first! }
    mutating func u16() throws -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws -> UInt64 { try integer(UInt64.self) }

    /// A count or size read from the wire, refused if it could not be real.
    func count(_ v: UInt64) throws -> Int {
        guard v <= UInt64(Wire.maxPayload) * 8 else { throw TesseraError("implausible size \(v) in message") }
        return Int(v)
    }

    mutating func string() throws -> String {
        let n = try count(UInt64(try u32()))
        return String(decoding: try take(n), as: UTF8.self)
    }

    mutating func viewport() throws -> Viewport {
        let values = try (0..<5).map { _ in Int(Int64(bitPattern: try u64())) }
        guard values[2] >= 1, (0...1 << 16).contains(values[3]), (0...1 << 16).contains(values[4]) else {
            throw TesseraError("implausible viewport \(values)")
        }
        return Viewport(x: values[0], y: values[1], cellsPerDot: values[2], width: values[3], height: values[4])
    }

    mutating func grid() throws -> BitGrid {
        let width = Int(try u32()), height = Int(try u32())
        let words = (width + 63) / 64 * height
        guard words <= (bytes.count - offset) / 8 else {
            throw TesseraError("truncated message: a \(width)x\(height) grid needs \(words * 8) bytes")
        }
        let raw = try take(words * 8)
        let values = raw.withUnsafeBytes { buffer in
            (0..<words).map { UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
        }
        return BitGrid(width: width, height: height, words: values)
    }
}
