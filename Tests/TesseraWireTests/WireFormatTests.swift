import Testing
import TesseraCore
@testable import TesseraWire


@Suite struct WireFormatTests {
    static let tiling = try! Tiling(shape: BoardShape(width: 100, height: 60, topology: .plane), columns: 3, rows: 2)
    static let grid = try! Soup(density: 0.5, seed: 4).cells(x: 0, y: 0, width: 70, height: 3)
    static let otherGrid = try! Soup(density: 0.5, seed: 5).cells(x: 0, y: 0, width: 70, height: 3)
    static let token = HaloToken(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
    static let viewport = Viewport(x: -40, y: 12, cellsPerDot: 4, width: 200, height: 50)
    static let frame = Frame(generation: 77, population: 1234, generationsPerSecond: 30.5, cellUpdatesPerSecond: 8.5e10,
                             workers: 2, tiles: (2, 1), paused: true, delay: 0.03, board: (-7, 3, 100, 60),
                             viewport: viewport, dots: grid, note: "saved /tmp/x.rle")
    /// The same frame with its dots' states, a rule of six.
    static let coloured: Frame = {
        var frame = Self.frame
        frame.states = (0..<(grid.width * grid.height)).map { grid[$0 % grid.width, $0 / grid.width] ? UInt8(1 + $0 % 5) : 0 }
        frame.stateCount = 6
        return frame
    }()

    /// At least one of every kind; `coversEveryKind` keeps it so.
    static let messages: [Message] = [
        .hello(Hello(pid: 42, endpoint: "tcp://10.0.0.2:5555", host: "node-2")),
        .assign(Assignment(worker: 1, tiling: tiling, rule: try! Rule(parsing: "B36/S23"), halo: 4, generation: 99,
                           start: .painted(soup: try! Soup(density: 0.35, seed: 7), overlays: []), endpoints: ["tcp://a:1", "tcp://b:2"],
                           owners: [0, 0, 0, 1, 1, 1], haloToken: Self.token)),
        .assign(Assignment(worker: 0, tiling: tiling, rule: .life, halo: 1, generation: 0,
                           start: .painted(soup: nil, overlays: [Overlay(cells: grid, x: -3, y: 40), Overlay(cells: grid, x: 7, y: 0)]), endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0], haloToken: Self.token)),
        // A window of the unbounded plane, far from the origin.
        .assign(Assignment(worker: 0, tiling: try! Tiling(shape: BoardShape(width: 768, height: 512, topology: .infinite,
                                                                           left: 1_000_000_000_000, top: -(1 << 40)),
                                                         columns: 1, rows: 2),
                           rule: .life, halo: 16, generation: 5, start: .loaded, endpoints: ["tcp://a:1"], owners: [0, 0], haloToken: Self.token)),
        // A rule run as a table: its 512 bits and its name.
        .assign(Assignment(worker: 0, tiling: tiling, rule: try! Rule(parsing: "B2-a/S12"), halo: 2, generation: 0,
                           start: .painted(soup: try! Soup(density: 0.3, seed: 8), overlays: []), endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0],
                           haloToken: Self.token)),
        // Painted by the workers, with no pattern part on this one's tiles.
        .assign(Assignment(worker: 0, tiling: tiling, rule: .life, halo: 1, generation: 0,
                           start: .painted(soup: nil, overlays: []), endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0], haloToken: Self.token)),
        // The same board going on with tiles on other workers.
        .assign(Assignment(worker: 1, tiling: tiling, rule: .life, halo: 2, generation: 1 << 33, start: .goesOn,
                           endpoints: ["tcp://a:1", "tcp://b:2"], owners: [1, 0, 0, 1, 0, 1], epoch: 1 << 40, haloToken: Self.token)),
        .handOff(op: 8, tiles: [TileID(column: 2, row: 0), TileID(column: 0, row: 1)]),
        .leaving,
        .stays(reason: "no other worker could take its tiles"),
        .halt(op: 12),
        .halted(op: 12),
        .checkpoint(op: 9, folder: "/scratch/run/generation-00000000000000001000"),
        .checkpointed(op: 9, tile: TileID(column: 1, row: 0), checksum: 0xFEED_F00D_DEAD_BEEF),
        .tileState(op: 8, TileState(tile: TileID(column: 2, row: 0), generation: 1 << 33, cells: grid,
                                    previous: try! Soup(density: 0.2, seed: 5).cells(x: 0, y: 0, width: 70, height: 3))),
        .load(op: 3, TileCells(tile: TileID(column: 2, row: 1), generation: 7, cells: grid)),
        .ready,
        .loaded(op: 3, tile: TileID(column: 1, row: 0)),
        .start(op: 4, generations: 1 << 40),
        .done(op: 4, WorkerReport(computeSeconds: 1.5, waitSeconds: 0.25, bytesSent: 1 << 33,
                                  populations: [TileID(column: 0, row: 0): 5, TileID(column: 1, row: 0): 0])),
        .done(op: 4, {
            var report = WorkerReport(populations: [TileID(column: 0, row: 1): 9])
            report.tileSeconds = [TileID(column: 0, row: 1): 0.125, TileID(column: 2, row: 1): 3]
            return report
        }()),
        .frameRequest(op: 5, viewport, clip: nil),
        .frameRequest(op: 6, viewport, clip: TileRect(x: 768, y: 0, width: 4352, height: 4352)),
        .frameTile(op: 5, FramePart(tile: TileID(column: 1, row: 1), x: 10, y: 3, dots: grid)),
        .shardFrame(op: 5, dots: grid),
        .collect(op: 6, area: TileRect(x: 300, y: 4096, width: 70, height: 4096)),
        .cells(op: 6, TileCells(tile: TileID(column: 0, row: 1), generation: 1 << 50, cells: grid)),
        .heartbeat(RunProgress(generation: 12, computeSeconds: 3.5, waitSeconds: 0.5)),
        .failure(reason: "tile (0,0) is sad"),
        .shutdown,
        .abort(reason: "interrupted by SIGINT"),
        .refused(reason: "this run already has its 2 workers"),
        .halo(HaloStrip(tile: TileID(column: 1, row: 1), side: .southWest, generation: 1 << 35, cells: grid,
                        previous: try! Soup(density: 0.2, seed: 5).cells(x: 0, y: 0, width: 70, height: 3)), epoch: 3),
        .halo(HaloStrip(tile: TileID(column: 0, row: 1), side: .north, generation: 12, pieces: [], whole: false), epoch: .max),
        .presenterHello,
        .presenterWelcome(PresenterWelcome(tiling: tiling, rule: .life, generation: 9, population: 33, workers: 2)),
        .presenterRequest(op: 1, .advance(generations: 10)),
        .presenterRequest(op: 2, .frame(viewport)),
        .presenterRequest(op: 3, .collect(rows: 0..<60)),
        .presenterRequest(op: 4, .load(generation: 5, board: grid)),
        .presenterRequest(op: 5, .finish),
        .presenterReply(op: 1, .advanced(generation: 19, population: 40)),
        .presenterReply(op: 2, .frame(grid)),
        .presenterReply(op: 3, .board(grid)),
        .presenterReply(op: 4, .loaded(generation: 5, population: 105)),
        .presenterRequest(op: 6, .stateFrame(viewport)),
        .presenterRequest(op: 7, .collectStates),
        .presenterRequest(op: 8, .loadStates(generation: 9, board: StateGrid(layers: [grid, Self.otherGrid]))),
        .presenterReply(op: 6, .stateFrame(dots: [0, 1, 5, 3], states: 6)),
        .presenterReply(op: 6, .stateFrame(dots: [], states: 2)),
        .presenterReply(op: 7, .states(StateGrid(layers: [grid, Self.otherGrid, grid]))),
        .view(viewport),
        .detach,
        .command(.togglePause), .command(.step), .command(.faster), .command(.slower), .command(.nextPattern),
        .command(.toggleCell(x: -5, y: 1 << 30, state: 1)), .command(.toggleCell(x: 3, y: 4, state: 255)), .command(.save), .command(.rewind),
        .frame(frame),
        .frame(coloured),
        .snapshot(op: 31, SnapshotOrder(generation: 640, buddy: "tcp://10.0.0.3:5000", keepsFor: "tcp://10.0.0.4:5001",
                                        keeps: [TileID(column: 1, row: 0), TileID(column: 2, row: 1)], retains: 320)),
        .snapshot(op: 32, SnapshotOrder(generation: 0, buddy: "tcp://a:1", keepsFor: "tcp://b:2", keeps: [], retains: nil)),
        .snapshotted(op: 31),
        .snapshotCopy(TileParts(tile: TileID(column: 2, row: 1), generation: 640,
                                parts: [Overlay(cells: grid, x: 512, y: 300), Overlay(cells: grid, x: 0, y: 1 << 20)])),
        .snapshotCopy(TileParts(tile: TileID(column: 0, row: 0), generation: 0, parts: [])),
        .bands(Bands(generation: 4096, parts: [Overlay(cells: grid, x: -1_000_000_000_000, y: 64)])),
        .bands(Bands(generation: 0, parts: [])),
        .bands(Bands(generation: 64, epoch: 3, parts: [])),
        .shard(ShardAssignment(shard: 1, map: ShardMap(starts: [0, 1 << 100, .max]), rule: .life, board: nil, depth: 32,
                               generation: 1 << 40, endpoints: ["tcp://a:1", "tcp://b:2", "memory://worker-3"], epoch: 2,
                               haloToken: Self.token, parts: [Overlay(cells: grid, x: -1 << 40, y: 5)], partCount: 9000)),
        .shard(ShardAssignment(shard: 0, map: ShardMap(starts: [0]), rule: Rule(birth: 0b1000, survive: 0b1100),
                               board: BoardShape(width: 4096, height: 64, topology: .torus, left: -2048, top: 0), depth: 1,
                               generation: 0, endpoints: ["tcp://a:1"], epoch: 1, haloToken: Self.token, parts: [])),
        .readParts(op: 40),
        .parts(op: 40, [Overlay(cells: grid, x: -(1 << 61), y: 1 << 61)], last: false),
        .parts(op: 41, [], last: true),
        .shardCells([Overlay(cells: grid, x: 64, y: -64), Overlay(cells: grid, x: 0, y: 0)]),
        .done(op: 42, {
            var report = WorkerReport(computeSeconds: 2, bytesSent: 1 << 33)
            report.shard = ShardFigures(population: 1 << 40, tiles: 123_456, bounds: CellBounds(left: -(1 << 50), top: 3, width: 1 << 51, height: 9))
            return report
        }()),
        .done(op: 43, {
            var report = WorkerReport()
            report.shard = ShardFigures(population: 0, tiles: 0, bounds: nil)
            return report
        }()),
        .assign(Assignment(worker: 1, tiling: tiling, rule: .life, halo: 2, generation: 640, start: .restored,
                           endpoints: ["tcp://a:1", "tcp://b:2"], owners: [0, 1, 0, 1, 0, 1], haloToken: Self.token)),
    ]

    /// Every family's rule reads back as itself, with its name: masks, tables (named,
    /// or a MAP the counts decide), Larger than Life, Generations.
    @Test(arguments: ["B3/S23", "B2-a/S12", "W22", "MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA",
                      "R5,C0,M1,S34..58,B34..45,NM", "R10,C255,M1,S2..3,B3..3,NM", "345/3/6", "23/3/2"])
    func rulesRoundTrip(text: String) throws {
        let rule = try Rule(parsing: text)
        var writer = WireWriter()
        rule.encode(to: &writer)
        var reader = WireReader(writer.bytes, from: 0)
        let read = try Rule(from: &reader)
        #expect(read == rule && read.description == rule.description)
    }

    @Test func coversEveryKind() {
        let covered = Set(Self.messages.map(\.kind))
        #expect(covered == Set(Wire.Kind.allCases), "no sample of \(Set(Wire.Kind.allCases).subtracting(covered))")
    }

    @Test(arguments: messages.indices)
    func roundTripsOnItsLanes(index: Int) throws {
        let message = Self.messages[index]
        let bytes = Wire.encode(message)
        #expect(Array(bytes[0..<4]) == Array("TSRA".utf8))
        for lane in Lane.allCases {
            if message.kind.lanes.contains(lane) {
                #expect(try Wire.decode(bytes, on: lane) == message)
            } else {
                #expect(refusal(bytes, on: lane).contains("does not belong on \(lane.rawValue)"), "\(message.kind) on \(lane)")
            }
        }
    }

    /// Each lane's type takes exactly the kinds of its lane, and gives back the message.
    @Test(arguments: messages.indices)
    func laneTypesHoldTheirLanesKinds(index: Int) throws {
        let message = Self.messages[index]
        func check<T: LaneMessage>(_ type: T.Type) throws {
            let onLane = message.kind.lanes.contains(T.lane)
            #expect((T(message) != nil) == onLane, "\(message.kind) as \(T.self)")
            guard onLane else { return }
            #expect(T(message)?.message == message)
            #expect(try Wire.decode(Wire.encode(message), as: T.self).message == message)
        }
        try check(ToWorker.self)
        try check(ToCoordinator.self)
        try check(HaloMessage.self)
        try check(ToPresenter.self)
        try check(FromViewer.self)
        try check(ToViewer.self)
    }

    /// A worker's halo port takes halo strips only: no control message, however well formed.
    @Test func haloPortTakesHaloStripsOnly() {
        for message: Message in [.shutdown, .abort(reason: "x"), .start(op: 1, generations: 5), .heartbeat(RunProgress(generation: 1)),
                                 .cells(op: 1, TileCells(tile: TileID(column: 0, row: 0), generation: 0, cells: Self.grid))] {
            #expect(refusal(Wire.encode(message), on: .halo).contains("does not belong on a worker's halo port"))
        }
    }

    func refusal(_ bytes: [UInt8], on lane: Lane = .toCoordinator) -> String {
        do {
            _ = try Wire.decode(bytes, on: lane)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test func refusesTruncatedAndOversizedMessages() {
        let halo = Wire.encode(Self.messages.first { $0.kind == .halo }!)
        #expect(refusal(Array(halo.dropLast(3)), on: .halo).contains("truncated"))
        #expect(refusal(halo + [0, 0], on: .halo).contains("truncated or oversized"))
        #expect(refusal(Array(halo.prefix(10)), on: .halo).contains("shorter than the 12-byte header"))
        var huge = Wire.encode(.ready)
        huge.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(refusal(huge).contains("oversized"))
    }

    @Test func refusesOtherVersionsAndStrangers() {
        var future = Wire.encode(.ready)
        future[4] = UInt8(Wire.version + 1)
        #expect(refusal(future).contains("protocol version \(Wire.version + 1)"))
        var stranger = Wire.encode(.ready)
        stranger[0] = UInt8(ascii: "X")
        #expect(refusal(stranger).contains("not a Tessera message"))
        var unknown = Wire.encode(.ready)
        unknown[6] = 200
        #expect(refusal(unknown).contains("unknown message kind"))
    }

    /// Every number from the wire is checked before use: the lies that crashed or hung a run.
    @Test func refusesLiesInsideThePayload() throws {
        // A grid that claims more rows than the bytes hold (tile 8 bytes, generation 8, then width, height).
        var grid = Wire.encode(.cells(op: 1, TileCells(tile: TileID(column: 0, row: 0), generation: 0, cells: Self.grid)))
        grid.replaceSubrange(12 + 8 + 8 + 8 + 4..<12 + 8 + 8 + 8 + 8, with: [0, 0, 1, 0])
        #expect(refusal(grid).contains("truncated"))
        // An assignment whose tiles name a worker that does not exist.
        let bad = Assignment(worker: 0, tiling: Self.tiling, rule: .life, halo: 1, generation: 0, start: .loaded,
                             endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 3], haloToken: Self.token)
        #expect(refusal(Wire.encode(.assign(bad)), on: .toWorker).contains("do not exist"))
        // An assignment whose tiles start in a fifth way: the one byte two ways differ in.
        func starting(_ start: Assignment.Start) -> [UInt8] {
            Wire.encode(.assign(Assignment(worker: 0, tiling: Self.tiling, rule: .life, halo: 1, generation: 0, start: start,
                                           endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0], haloToken: Self.token)))
        }
        var start = starting(.goesOn)
        let restored = starting(.restored)
        let kind = try #require(start.indices.first { start[$0] != restored[$0] })
        start[kind] = 7
        #expect(refusal(start, on: .toWorker).contains("start in no way numbered 7"))
        // An area of negative width (after the op, x and y).
        var area = Wire.encode(.collect(op: 1, area: TileRect(x: 8, y: 0, width: 16, height: 4)))
        area.replaceSubrange(36..<44, with: [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(refusal(area, on: .toWorker).contains("area width"))
        // A side past the eight (after the epoch and the tile).
        var side = Wire.encode(Self.messages.first { $0.kind == .halo }!)
        side[28] = 8
        #expect(refusal(side, on: .halo).contains("unknown side"))
        // A whole-edge flag that is neither yes nor no (after the side and the generation).
        var flag = Wire.encode(Self.messages.first { $0.kind == .halo }!)
        flag[37] = 2
        #expect(refusal(flag, on: .halo).contains("whole-edge flag 2"))
        // A viewport near ±2^63, which overflowed every worker's arithmetic.
        var view = Wire.encode(.view(Self.viewport))
        view.replaceSubrange(12..<20, with: [0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(refusal(view, on: .fromViewer).contains("implausible viewport"))
        // Exactly -2^63, whose abs() trapped: the wire fuzzer's find (a viewer could crash a presenter).
        view.replaceSubrange(12..<20, with: [0, 0, 0, 0, 0, 0, 0, 0x80])
        #expect(refusal(view, on: .fromViewer).contains("implausible viewport"))
        // A frame too big for any viewer: 65536 dots a side.
        var wide = Wire.encode(.frameRequest(op: 1, Self.viewport, clip: nil))
        wide.replaceSubrange(12 + 8 + 24..<12 + 8 + 32, with: [0, 0, 1, 0, 0, 0, 0, 0])
        #expect(refusal(wide, on: .toWorker).contains("implausible viewport"))
        // Seconds that are not a number.
        var nan = Wire.encode(.heartbeat(RunProgress(generation: 1, computeSeconds: 1)))
        nan.replaceSubrange(20..<28, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init))
        #expect(refusal(nan).contains("implausible compute time"))
        // Birth on nine neighbours, which no cell has.
        var nine = Wire.encode(.presenterWelcome(PresenterWelcome(tiling: Self.tiling, rule: .life, generation: 0, population: 0, workers: 1)))
        nine[12 + 8 + 8 + 1 + 8 + 8 + 4 + 4 + 1] |= 2  // after width, height, topology, left, top, columns, rows
        #expect(refusal(nine, on: .toPresenter).contains("implausible rule"))
        // A moving tile whose generation before does not match its cells (its second
        // layer's width 69 where the first's is 70, the same words), or with no layers.
        let moving = TileState(tile: TileID(column: 0, row: 0), generation: 1, cells: Self.grid, previous: Self.grid)
        var lopsided = Wire.encode(.tileState(op: 1, moving))
        let second = lopsided.count - Self.grid.words.count * 8 - 8
        #expect(lopsided[second] == 70)
        lopsided[second] = 69
        #expect(refusal(lopsided, on: .toWorker).contains("layers of cells of different sizes"))
        var none = Wire.encode(.tileState(op: 1, moving))
        let count = none.count - 2 * (Self.grid.words.count * 8 + 8) - 1
        #expect(none[count] == 2)
        none[count] = 0
        #expect(refusal(none, on: .toWorker).contains("0 layers of cells"))
        // A hand-off is for workers only.
        #expect(refusal(Wire.encode(.handOff(op: 1, tiles: [])), on: .toCoordinator).contains("does not belong"))
        // A frame's state past its rule's, and states that are not one a dot.
        var past = Self.coloured
        past.stateCount = 5
        #expect(refusal(Wire.encode(.frame(past)), on: .toViewer).contains("do not fit"))
        var short = Self.coloured
        short.states.removeLast()
        #expect(refusal(Wire.encode(.frame(short)), on: .toViewer).contains("do not fit"))
        // An endpoint that is not one.
        #expect(refusal(Wire.encode(.hello(Hello(pid: 1, endpoint: "x:1", host: "h")))).contains("bad endpoint"))
        // An edit to state 0, which sets nothing (the state is the last byte).
        var nothing = Wire.encode(.command(.toggleCell(x: 1, y: 2, state: 3)))
        nothing[nothing.count - 1] = 0
        #expect(refusal(nothing, on: .fromViewer).contains("cell state 0"))
    }

    /// Random damage to real messages, from a seeded generator: each is refused with a
    /// one-line reason, or decodes to a message that encodes and decodes to itself.
    @Test func damagedMessagesAreRefusedOrDecodeConsistently() throws {
        var generator = SplitMix64(seed: 20261123)
        var refused = 0, decoded = 0
        for _ in 0..<40 {
            for message in Self.messages {
                var bytes = Wire.encode(message)
                let lane = message.kind.lanes.first!
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let at = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[at] = UInt8.random(in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
                do {
                    let got = try Wire.decode(bytes, on: lane)
                    #expect(try Wire.decode(Wire.encode(got), on: lane) == got)
                    decoded += 1
                } catch let error as TesseraError {
                    #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(message.kind): \(error.description.debugDescription)")
                    refused += 1
                }
            }
        }
        #expect(refused > 200 && decoded > 100, "refused \(refused), decoded \(decoded)")
    }

    @Test func survivesRandomBytes() {
        var generator = SplitMix64(seed: 7)
        for length in [0, 1, 11, 12, 13, 100, 4096] {
            for _ in 0..<50 {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if length >= 8 { bytes.replaceSubrange(0..<6, with: Array("TSRA".utf8) + [2, 0]) }
                for lane in Lane.allCases {
                    let answer = refusal(bytes, on: lane)
                    #expect(answer == "accepted" || !answer.contains("\n"))
                }
            }
        }
    }
}
