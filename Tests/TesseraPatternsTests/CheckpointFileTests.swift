import Foundation
import Testing
import TesseraCore
@testable import TesseraPatterns

/// Tile files of a checkpoint: what a worker writes (its live parts, format 2) reads
/// back as the tile's cells, a file of the whole tile (format 1, written before) still
/// reads, and a file whose parts do not fit its tile is refused.
@Suite struct CheckpointFileTests {
    static let tile = TileID(column: 1, row: 0)
    static let (width, height) = (300, 70)

    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ck-\(getpid())-\(UUID())").path
        try Checkpoint.createFolder(path)
        return path
    }

    func entry(checksum: UInt64) -> Checkpoint.Manifest.Tile {
        Checkpoint.Manifest.Tile(column: Self.tile.column, row: Self.tile.row, x: 300, y: 0, width: Self.width, height: Self.height,
                                 file: Checkpoint.fileName(of: Self.tile), checksum: String(checksum, radix: 16))
    }

    @Test func livePartsReadBackAsTheTile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try Soup(density: 0.4, seed: 1).cells(x: 0, y: 0, width: 70, height: 9)
        let b = try Soup(density: 0.4, seed: 2).cells(x: 0, y: 0, width: 30, height: 61)
        var expected = BitGrid(width: Self.width, height: Self.height)
        a.copy(into: &expected, atX: 5, y: 0)
        b.copy(into: &expected, atX: 270, y: 9)
        let sum = try Checkpoint.writeTile([(5, 0, a), (270, 9, b)], width: Self.width, height: Self.height, of: Self.tile, generation: 42, in: dir)
        #expect(try Checkpoint.readTile(entry(checksum: sum), in: dir, generation: 42) == expected)
        // A tile with nothing alive is a header and a count.
        let none = try Checkpoint.writeTile([], width: Self.width, height: Self.height, of: Self.tile, generation: 42, in: dir)
        #expect(try Checkpoint.readTile(entry(checksum: none), in: dir, generation: 42) == BitGrid(width: Self.width, height: Self.height))
        #expect((try FileManager.default.attributesOfItem(atPath: dir + "/" + Checkpoint.fileName(of: Self.tile))[.size] as? Int) == 36)
    }

    @Test func aWholeTileFileStillReads() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cells = try Soup(density: 0.3, seed: 3).cells(x: 0, y: 0, width: Self.width, height: Self.height)
        var bytes = Checkpoint.magic
        for value in [UInt32(1), UInt32(Self.width), UInt32(Self.height), 0] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: UInt64(42).littleEndian) { bytes += $0 }
        bytes += [UInt8](repeating: 0, count: Checkpoint.headerSize - bytes.count)
        cells.words.withUnsafeBytes { bytes += $0 }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + Checkpoint.fileName(of: Self.tile)))
        let sum = bytes.withUnsafeBytes(Checkpoint.checksum(of:))
        #expect(try Checkpoint.readTile(entry(checksum: sum), in: dir, generation: 42) == cells)
    }

    @Test func aPartBeyondItsTileIsRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let part = BitGrid(width: 40, height: 4)
        let sum = try Checkpoint.writeTile([(280, 0, part)], width: Self.width, height: Self.height, of: Self.tile, generation: 42, in: dir)
        #expect(throws: TesseraError.self) { try Checkpoint.readTile(entry(checksum: sum), in: dir, generation: 42) }
    }
}
