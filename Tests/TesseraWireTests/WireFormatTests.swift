import Testing
import TesseraCore
import TesseraTiles
@testable import TesseraWire

@Suite struct WireFormatTests {
    static let tiling = try! Tiling(shape: BoardShape(width: 100, height: 60, topology: .plane), columns: 3, rows: 2)
    static let grid = try! Soup(density: 0.5, seed: 4).cells(x: 0, y: 0, width: 70, height: 3)

    static let messages: [Message] = [
        .hello(Hello(pid: 42, endpoint: "tcp://10.0.0.2:5555", host: "node-2")),
        .assign(Assignment(worker: 1, tiling: tiling, rule: try! Rule(parsing: "B36/S23"), halo: 4, generation: 99,
                           soup: try! Soup(density: 0.35, seed: 7), endpoints: ["tcp://a:1", "tcp://b:2"],
                           owners: [0, 0, 0, 1, 1, 1])),
        .assign(Assignment(worker: 0, tiling: tiling, rule: .life, halo: 1, generation: 0, soup: nil,
                           endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0])),
        .assign(Assignment(worker: 0, tiling: tiling, rule: .life, halo: 1, generation: 0, soup: nil,
                           overlay: Overlay(cells: grid, x: -3, y: 40), endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 0])),
        .tileCells(tile: TileID(column: 2, row: 1), generation: 7, cells: grid),
        .ready, .start(generations: 1 << 40), .heartbeat(generation: 12), .collect(rows: 4096..<8192), .shutdown,
        .done(WorkerReport(computeSeconds: 1.5, waitSeconds: 0.25, bytesSent: 1 << 33,
                           populations: [TileID(column: 0, row: 0): 5, TileID(column: 1, row: 0): 0])),
        .halo(HaloStrip(tile: TileID(column: 1, row: 1), side: .southWest, generation: 1 << 35, cells: grid)),
        .abort(reason: "interrupted by SIGINT"), .failure(reason: "tile (0,0) is sad"),
    ]

    static let halo = messages.first { if case .halo = $0 { true } else { false } }!

    @Test(arguments: messages.indices)
    func roundTrips(index: Int) throws {
        let message = Self.messages[index]
        let bytes = Wire.encode(message)
        #expect(Array(bytes[0..<4]) == Array("TSRA".utf8))
        #expect(try Wire.decode(bytes) == message)
    }

    func refusal(_ bytes: [UInt8]) -> String {
        do {
            _ = try Wire.decode(bytes)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test func refusesTruncatedAndOversizedMessages() {
        let halo = Wire.encode(Self.halo)
        #expect(refusal(Array(halo.dropLast(3))).contains("truncated"))
        #expect(refusal(halo + [0, 0]).contains("truncated or oversized"))
        #expect(refusal(Array(halo.prefix(20))).contains("shorter than the 32-byte header"))
        var huge = Wire.encode(.ready)
        huge.replaceSubrange(24..<28, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(refusal(huge).contains("oversized"))
    }

    @Test func refusesOtherVersionsAndStrangers() {
        var future = Wire.encode(.ready)
        future[4] = 9
        #expect(refusal(future).contains("protocol version 9"))
        var stranger = Wire.encode(.ready)
        stranger[0] = UInt8(ascii: "X")
        #expect(refusal(stranger).contains("not a Tessera message"))
        var unknown = Wire.encode(.ready)
        unknown[6] = 200
        #expect(refusal(unknown).contains("unknown message kind"))
    }

    @Test func refusesLiesInsideThePayload() {
        // A grid that claims more rows than the bytes hold.
        var grid = Wire.encode(.tileCells(tile: TileID(column: 0, row: 0), generation: 0, cells: Self.grid))
        grid.replaceSubrange(36..<40, with: [0, 0, 1, 0])
        #expect(refusal(grid).contains("truncated"))
        // An assignment whose tiles name a worker that does not exist.
        let bad = Assignment(worker: 0, tiling: Self.tiling, rule: .life, halo: 1, generation: 0, soup: nil,
                             endpoints: ["tcp://a:1"], owners: [0, 0, 0, 0, 0, 3])
        #expect(refusal(Wire.encode(.assign(bad))).contains("do not exist"))
        // Rows that end before they start.
        var rows = Wire.encode(.collect(rows: 8..<16))
        rows.replaceSubrange(40..<48, with: [2, 0, 0, 0, 0, 0, 0, 0])
        #expect(refusal(rows).contains("collect asks for rows 8..<2"))
        var side = Wire.encode(Self.halo)
        side[28] = 8
        #expect(refusal(side).contains("unknown side"))
    }

    @Test func survivesRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 31, 32, 33, 100, 4096] {
            for _ in 0..<50 {
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if length >= 8 { bytes.replaceSubrange(0..<6, with: Array("TSRA".utf8) + [1, 0]) }
                _ = refusal(bytes)  // must throw or decode, never crash
            }
        }
    }
}
