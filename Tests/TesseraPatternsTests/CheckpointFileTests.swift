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

    /// A tile of states (format 4): each part's planes, read back in their states; parts
    /// without their planes are refused before anything is written.
    @Test func statesReadBackAsTheTile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var a = StateGrid(width: 70, height: 9, states: 6), b = StateGrid(width: 30, height: 61, states: 6)
        for (x, y, state) in [(0, 0, 1), (69, 8, 5), (33, 4, 3)] { a[x, y] = state }
        for (x, y, state) in [(0, 0, 2), (29, 60, 4)] { b[x, y] = state }
        var expected = StateGrid(width: Self.width, height: Self.height, states: 6)
        expected.replace(with: a, atX: 5, y: 0)
        expected.replace(with: b, atX: 270, y: 9)
        let sum = try Checkpoint.writeTile([(5, 0, a.occupied), (270, 9, b.occupied)], width: Self.width, height: Self.height,
                                           of: Self.tile, generation: 42, in: dir, planes: 3, states: [a, b])
        #expect(try Checkpoint.readTileStates(entry(checksum: sum), in: dir, generation: 42) == expected)
        #expect(try Checkpoint.readTile(entry(checksum: sum), in: dir, generation: 42) == expected.occupied)
        #expect(throws: TesseraError.self) {
            try Checkpoint.writeTile([(5, 0, a.occupied)], width: Self.width, height: Self.height, of: Self.tile, generation: 42,
                                     in: dir, planes: 3, states: [])
        }
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

/// The unbounded plane's file (format 3): the shards' live parts, anywhere in Golly's
/// 64-bit coordinates, read back as written; a damaged file, one of another generation,
/// and a part past ±2^62 are refused.
@Suite struct CheckpointPlaneFileTests {
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ck-\(getpid())-\(UUID())").path
        try Checkpoint.createFolder(path)
        return path
    }

    @Test func partsFarApartReadBackAsWritten() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parts = [PlacedCells(cells: try Soup(density: 0.4, seed: 1).cells(x: 0, y: 0, width: 70, height: 9), left: -(1 << 40), top: 3),
                     PlacedCells(cells: try Soup(density: 0.4, seed: 2).cells(x: 0, y: 0, width: 64, height: 64), left: 1 << 61, top: -(1 << 61))]
        let entry = try Checkpoint.writePlane(parts, generation: 7, in: dir)
        #expect(try Checkpoint.readPlane(entry, in: dir, generation: 7) == parts)
        #expect(try Checkpoint.readPlane(Checkpoint.writePlane([], generation: 7, in: dir), in: dir, generation: 7).isEmpty)
    }

    @Test func aDamagedOrForeignFileIsRefused() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let part = PlacedCells(cells: try Soup(density: 0.5, seed: 3).cells(x: 0, y: 0, width: 40, height: 4), left: 0, top: 0)
        let entry = try Checkpoint.writePlane([part], generation: 9, in: dir)
        #expect(throws: TesseraError.self) { try Checkpoint.readPlane(entry, in: dir, generation: 10) }
        let path = dir + "/" + entry.file
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x10
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect { try Checkpoint.readPlane(entry, in: dir, generation: 9) } throws: {
            "\($0)".contains("checksum does not match")
        }
        // Corners past ±2^62, or whose far side is (the width of a part is added to them).
        for left in [(1 << 62) + 1, Int.min, (1 << 62) - 39] {
            let far = try Checkpoint.writePlane([PlacedCells(cells: part.cells, left: left, top: 0)], generation: 9, in: dir)
            #expect { try Checkpoint.readPlane(far, in: dir, generation: 9) } throws: {
                "\($0)".contains("does not hold live parts")
            }
        }
    }

    /// A bounded grid's parts must lie on it: one a cell past its right edge is refused
    /// with the checkpoint, which is passed over.
    @Test func partsOffTheirBoardAreRefused() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let board = BoardShape(width: 128, height: 64, topology: .plane)
        func checkpoint(at generation: UInt64, left: Int) throws {
            let folder = Checkpoint.folder(in: root, generation: generation)
            try Checkpoint.createFolder(folder)
            let part = PlacedCells(cells: try Soup(density: 0.5, seed: 4).cells(x: 0, y: 0, width: 16, height: 8), left: left, top: -32)
            let plane = try Checkpoint.writePlane([part], generation: generation, in: folder)
            let origin = Checkpoint.Origin(pattern: nil, name: nil, soup: nil)
            try Checkpoint.commit(Checkpoint.Manifest(generation: generation, rule: .life, board: board, end: 100, origin: origin, plane: plane),
                                  in: folder, root: root)
        }
        try checkpoint(at: 10, left: 64 - 16)
        try checkpoint(at: 20, left: 64 - 15)
        let restored = try #require(try Checkpoint.newest(in: root))
        #expect(restored.manifest.generation == 10 && restored.shape == board)
        #expect(restored.skipped.count == 1 && restored.skipped[0].contains("beyond its 128x64 plane"), "\(restored.skipped)")
    }
}

/// A manifest's own integrity: its digest covers every byte, and its tiles must tile the board.
@Suite struct CheckpointManifestTests {
    static let shape = BoardShape(width: 256, height: 256, topology: .torus)

    func manifest(tiles: [(x: Int, y: Int, width: Int, height: Int)]) -> Checkpoint.Manifest {
        Checkpoint.Manifest(
            generation: 300, rule: try! Rule(parsing: "B3678/S34678"), shape: Self.shape, columns: 1, rows: tiles.count, end: 1000,
            origin: Checkpoint.Origin(pattern: nil, name: nil, soup: try! Soup(density: 0.35, seed: 1)),
            tiles: tiles.enumerated().map { index, tile in
                Checkpoint.Manifest.Tile(column: 0, row: index, x: tile.x, y: tile.y, width: tile.width, height: tile.height,
                                         file: "tile-0-\(index).cells", checksum: "0")
            })
    }

    @Test func everyFlippedBitOfAManifestIsCaught() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-manifest-\(getpid())-\(UUID())").path
        try Checkpoint.createFolder(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let written = manifest(tiles: [(0, 0, 256, 128), (0, 128, 256, 128)])
        try Checkpoint.commit(written, in: dir, root: dir)
        let bytes = try #require(FileManager.default.contents(atPath: dir + "/" + Checkpoint.manifestName)).map { $0 }
        var read = try Checkpoint.manifest(bytes, path: "m")
        #expect(read.digest != Checkpoint.blankDigest)
        read.digest = Checkpoint.blankDigest
        #expect(read == written)
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                #expect(throws: TesseraError.self, "byte \(index) bit \(bit)") { try Checkpoint.manifest(flipped, path: "m") }
            }
        }
    }

    @Test func tilesMustTileTheBoard() throws {
        let halves = manifest(tiles: [(0, 0, 256, 128), (0, 128, 256, 128)])
        try Checkpoint.checkTiles(of: halves, cover: Self.shape, path: "m")
        for (tiles, problem) in [
            ([(0, 0, 256, 128), (0, 100, 256, 128), (0, 228, 256, 28)], "two tiles over the same cells"),
            ([(0, 0, 256, 128), (0, 128, 128, 128), (64, 128, 128, 128)], "two tiles over the same cells"),
            ([(0, 0, 256, 128)], "without a tile"),
            ([(0, 0, 256, 128), (0, 129, 256, 128)], "outside the board"),
        ] as [([(Int, Int, Int, Int)], String)] {
            let error = #expect(throws: TesseraError.self) {
                try Checkpoint.checkTiles(of: manifest(tiles: tiles.map { ($0.0, $0.1, $0.2, $0.3) }), cover: Self.shape, path: "m")
            }
            #expect(error?.description.contains(problem) == true, "\(tiles): \(String(describing: error))")
        }
    }
}
