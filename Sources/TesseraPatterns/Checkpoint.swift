import FoundationEssentials
import TesseraCore

/// A run saved in a folder, to resume from: a subfolder per checkpoint,
/// `generation-<N>/`, with one file of cells per tile (each written by the worker that
/// hosts it, all at once), or, where the workers hold shards of a sparse plane, one
/// file of its live parts (`plane.cells`, written by the coordinator), and
/// `manifest.json`, written last and renamed into place: a
/// checkpoint without its manifest does not count. The manifest names the generation,
/// rule, board and tiling, where the run started from (`Origin`), each tile file's
/// checksum and a digest of its own bytes: a manifest altered by one bit, or a tile file
/// that no longer matches it, is passed over before anything of it is used. The newest
/// checkpoint whose files all match is the one a run resumes from, and only the last two
/// are kept.
///
/// A tile file is a 32-byte header (`TSRC`, format, width, height, generation) and the
/// tile's cells, 64 a little-endian word, as in `BitGrid`: in format 1 (read, no longer
/// written) its rows whole; in format 2 its live parts, a count and then each part's
/// corner in the tile, width, height and rows, so a huge, mostly empty tile takes what
/// lives on it.
/// The parts' file is format 3, width and height 0: a 64-bit count of parts, then each
/// part's corner in Golly's coordinates (two 64-bit integers), its width, height and rows.
/// (The generation before is not kept: a tile started from cells alone steps
/// bit-exactly, see `TesseraTiles.BlockActivity`.)
public enum Checkpoint {
    public struct Manifest: Codable, Sendable, Equatable {
        public struct Tile: Codable, Sendable, Equatable {
            public let column: Int, row: Int
            public let x: Int, y: Int, width: Int, height: Int
            public let file: String
            /// `checksum(of:)` of the file, in hex.
            public let checksum: String

            public init(column: Int, row: Int, x: Int, y: Int, width: Int, height: Int, file: String, checksum: String) {
                (self.column, self.row, self.x, self.y, self.width, self.height) = (column, row, x, y, width, height)
                (self.file, self.checksum) = (file, checksum)
            }
        }

        /// 2: with `origin` and `digest` (1 had neither and is not read); 3: shards' parts
        /// (`plane`) in place of tiles, which a version that reads only 2 refuses.
        public var format = 2
        public let generation: UInt64
        /// Golly's form, without a bounded-grid suffix (the board says that).
        public let rule: String
        public let width: Int, height: Int
        public let topology: String
        public let columns: Int, rows: Int
        /// The generation the run was to stop at.
        public let end: UInt64
        public let origin: Origin
        public let tiles: [Tile]
        /// Where the workers held shards (no tiles): the file of the live parts and its
        /// checksum.
        public let plane: Plane?
        /// `checksum(of:)` of the manifest file's bytes with this field's 16 hex digits
        /// written as zeros; `commit` fills it in.
        public var digest = Checkpoint.blankDigest

        public init(generation: UInt64, rule: Rule, shape: BoardShape, columns: Int, rows: Int, end: UInt64, origin: Origin,
                    tiles: [Tile]) {
            self.generation = generation
            self.rule = rule.description
            (width, height, topology) = (shape.width, shape.height, shape.topology.rawValue)
            (self.columns, self.rows, self.end, self.origin, self.tiles) = (columns, rows, end, origin, tiles)
            plane = nil
        }

        /// The manifest of shards on `board` (nil: Golly's unbounded plane), their live
        /// parts in `plane`.
        public init(generation: UInt64, rule: Rule, board: BoardShape?, end: UInt64, origin: Origin, plane: Plane) {
            self.generation = generation
            self.rule = rule.description
            (width, height, topology) = (board?.width ?? 0, board?.height ?? 0, (board?.topology ?? .infinite).rawValue)
            (columns, rows, self.end, self.origin, tiles, self.plane) = (0, 0, end, origin, [], plane)
            format = 3
        }

        public struct Plane: Codable, Sendable, Equatable {
            public let file: String
            /// `checksum(of:)` of the file, in hex.
            public let checksum: String
        }

        public var shape: BoardShape? {
            guard let topology = Topology(rawValue: topology), topology != .infinite, width > 0, height > 0,
                  width <= BoardShape.maxSide, height <= BoardShape.maxSide else { return nil }
            return BoardShape(width: width, height: height, topology: topology)
        }
    }

    public static let manifestName = "manifest.json"
    static let blankDigest = String(repeating: "0", count: 16)
    static let digestKey = Array(#""digest" : ""#.utf8)
    static let magic: [UInt8] = Array("TSRC".utf8)
    static let headerSize = 32

    public static func folder(in root: String, generation: UInt64) -> String {
        root + "/" + String(cFormat: "generation-%020llu", generation)
    }

    /// Creates `folder` (and what leads to it) unless it is there.
    public static func createFolder(_ folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw TesseraError("cannot create checkpoint folder \(folder)", fix: "check the path and its permissions")
        }
    }

    public static func fileName(of tile: TileID) -> String { "tile-\(tile.column)-\(tile.row).cells" }
    public static let planeFileName = "plane.cells"

    /// A fast 64-bit checksum of a file's bytes: enough to catch a torn, truncated or
    /// damaged file (not an adversary).
    public static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        let words = bytes.count / 8
        for i in 0..<words {
            h = (h ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
        }
        for i in (words * 8)..<bytes.count { h = (h ^ UInt64(bytes[i])) &* 0xC4CE_B9FE_1A85_EC53 }
        return h
    }

    /// A file's 32-byte header: `TSRC`, its format, width and height, a zero word, the
    /// generation, and zeros to the end.
    static func header(format: UInt32, width: Int, height: Int, generation: UInt64) -> [UInt8] {
        var bytes = magic
        for value in [format, UInt32(width), UInt32(height), 0] { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        withUnsafeBytes(of: generation.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes + [UInt8](repeating: 0, count: headerSize - bytes.count)
    }

    /// A checkpoint file's bytes as its readers take them: integers and grids at
    /// offsets, `wrong` thrown for one that lies past the end.
    struct FileBytes {
        let bytes: UnsafeRawBufferPointer
        let wrong: TesseraError

        func integer<T: FixedWidthInteger>(_ offset: Int, _: T.Type) throws -> T {
            guard offset >= 0, offset <= bytes.count - MemoryLayout<T>.size else { throw wrong }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        /// A grid's rows, 64 cells a little-endian word, from `offset`.
        func grid(width: Int, height: Int, at offset: Int) throws -> BitGrid {
            let words = (width + 63) / 64 * height
            guard offset >= 0, offset <= bytes.count, words <= (bytes.count - offset) / 8 else { throw wrong }
            let values = [UInt64](unsafeUninitializedCapacity: words) { buffer, made in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + words * 8)]))
                made = words
            }
            return BitGrid(width: width, height: height, words: values)
        }
    }

    /// `read` over the bytes of `file` in `folder`, once they match `checksum` (hex).
    static func readChecked<T>(_ file: String, in folder: String, checksum: String, wrong: TesseraError,
                               _ read: (FileBytes) throws -> T) throws -> T {
        let path = folder + "/" + file
        guard !file.contains("/"), let data = FileManager.default.contents(atPath: path) else {
            throw TesseraError("checkpoint file \(path) is missing or unreadable")
        }
        return try data.withUnsafeBytes { bytes in
            guard String(Self.checksum(of: bytes), radix: 16) == checksum else {
                throw TesseraError("checkpoint file \(path) is damaged: its checksum does not match the manifest")
            }
            return try read(FileBytes(bytes: bytes, wrong: wrong))
        }
    }

    /// Writes a `width`×`height` tile's live parts (corners in the tile) into `folder`
    /// (atomically), as format 2, or as format 4 where they have states (`planes` of
    /// them, each part's planes in turn), and returns the file's checksum.
    public static func writeTile(_ parts: [(x: Int, y: Int, cells: BitGrid)], width: Int, height: Int, of tile: TileID,
                                 generation: UInt64, in folder: String, planes: Int? = nil,
                                 states: [StateGrid] = []) throws -> UInt64 {
        if let planes, states.count != parts.count || states.contains(where: { $0.planes.count != planes }) {
            throw TesseraError("tile (\(tile.column),\(tile.row))'s parts came without their \(planes) planes of states")
        }
        var bytes = header(format: planes == nil ? 2 : 4, width: width, height: height, generation: generation)
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        if let planes { append(UInt32(planes)) }
        append(UInt32(parts.count))
        for (index, part) in parts.enumerated() {
            for value in [part.x, part.y, part.cells.width, part.cells.height] { append(UInt32(value)) }
            guard planes != nil else {
                part.cells.words.withUnsafeBytes { bytes.append(contentsOf: $0) }
                continue
            }
            for plane in states[index].planes { plane.words.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        }
        let path = folder + "/" + fileName(of: tile)
        let file = try AtomicFile(path)
        try file.write(bytes)
        try file.commit()
        return bytes.withUnsafeBytes(checksum(of:))
    }

    /// Writes shards' live parts (Golly's coordinates) into `folder` (atomically), as
    /// format 3, and returns its manifest entry.
    public static func writePlane(_ parts: [PlacedCells], generation: UInt64, in folder: String) throws -> Manifest.Plane {
        var bytes = header(format: 3, width: 0, height: 0, generation: generation)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        append(UInt64(parts.count))
        for part in parts {
            append(Int64(part.left))
            append(Int64(part.top))
            guard let width = UInt32(exactly: part.cells.width), let height = UInt32(exactly: part.cells.height) else {
                throw TesseraError("a part of \(part.cells.width)x\(part.cells.height) cells is too large for a checkpoint file")
            }
            append(width)
            append(height)
            part.cells.words.withUnsafeBytes { bytes.append(contentsOf: $0) }
        }
        let file = try AtomicFile(folder + "/" + planeFileName)
        try file.write(bytes)
        try file.commit()
        return Manifest.Plane(file: planeFileName, checksum: String(bytes.withUnsafeBytes(checksum(of:)), radix: 16))
    }

    /// Reads a file of parts, checking it against its manifest entry: its parts, each
    /// within Golly's ±2^62.
    static func readPlane(_ entry: Manifest.Plane, in folder: String, generation: UInt64) throws -> [PlacedCells] {
        let wrong = TesseraError("checkpoint file \(folder)/\(entry.file) does not hold live parts at generation \(generation)")
        return try readChecked(entry.file, in: folder, checksum: entry.checksum, wrong: wrong) { file in
            guard file.bytes.count >= headerSize + 8, Array(file.bytes.prefix(4)) == magic, try file.integer(4, UInt32.self) == 3,
                  try file.integer(8, UInt32.self) == 0, try file.integer(12, UInt32.self) == 0,
                  try file.integer(20, UInt64.self) == generation else { throw wrong }
            let count = try file.integer(headerSize, UInt64.self)
            var parts: [PlacedCells] = [], offset = headerSize + 8
            let far = Int64(BoardShape.maxCoordinate)
            for _ in 0..<count {
                let (left, top) = (try file.integer(offset, Int64.self), try file.integer(offset + 8, Int64.self))
                let (width, height) = (Int(try file.integer(offset + 16, UInt32.self)), Int(try file.integer(offset + 20, UInt32.self)))
                guard left >= -far, top >= -far, left <= far - Int64(width), top <= far - Int64(height), width > 0, height > 0 else {
                    throw wrong
                }
                let cells = try file.grid(width: width, height: height, at: offset + 24)
                parts.append(PlacedCells(cells: cells, left: Int(left), top: Int(top)))
                offset += 24 + cells.words.count * 8
            }
            guard offset == file.bytes.count else { throw wrong }
            return parts
        }
    }

    /// Reads a tile file, checking it against its manifest entry: two-state cells.
    static func readTile(_ entry: Manifest.Tile, in folder: String, generation: UInt64) throws -> BitGrid {
        try readTileStates(entry, in: folder, generation: generation).occupied
    }

    /// Reads a tile file as states (one plane for two-state cells).
    static func readTileStates(_ entry: Manifest.Tile, in folder: String, generation: UInt64) throws -> StateGrid {
        let wrong = TesseraError("checkpoint file \(folder)/\(entry.file) does not hold tile (\(entry.column),\(entry.row)) at generation \(generation)")
        return try readChecked(entry.file, in: folder, checksum: entry.checksum, wrong: wrong) { file in
            func u32(_ offset: Int) throws -> Int { Int(try file.integer(offset, UInt32.self)) }
            guard file.bytes.count >= headerSize, Array(file.bytes.prefix(4)) == magic, try u32(8) == entry.width,
                  try u32(12) == entry.height, try file.integer(20, UInt64.self) == generation else { throw wrong }
            let format = try u32(4)
            switch format {
            case 1:
                guard file.bytes.count == headerSize + (entry.width + 63) / 64 * entry.height * 8 else { throw wrong }
                return StateGrid(layers: [try file.grid(width: entry.width, height: entry.height, at: headerSize)])
            case 2, 4:
                // Format 4: a count of planes, and each part's planes in turn.
                let planes = format == 4 ? try u32(headerSize) : 1
                guard (1...8).contains(planes) else { throw wrong }
                var tile = StateGrid(width: entry.width, height: entry.height, states: 1 << planes)
                var offset = headerSize + (format == 4 ? 8 : 4)
                for _ in 0..<(try u32(offset - 4)) {
                    let (x, y, width, height) = (try u32(offset), try u32(offset + 4), try u32(offset + 8), try u32(offset + 12))
                    guard x + width <= entry.width, y + height <= entry.height else { throw wrong }
                    offset += 16
                    var layers: [BitGrid] = []
                    for _ in 0..<planes {
                        layers.append(try file.grid(width: width, height: height, at: offset))
                        offset += layers[layers.count - 1].words.count * 8
                    }
                    tile.replace(with: StateGrid(layers: layers), atX: x, y: y)
                }
                guard offset == file.bytes.count else { throw wrong }
                return tile
            default:
                throw wrong
            }
        }
    }

    /// Puts the manifest in place: from now on the checkpoint counts. Then drops all but
    /// the newest two checkpoints under `root`.
    public static func commit(_ manifest: Manifest, in folder: String, root: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var blank = manifest
        blank.digest = blankDigest
        var bytes = Array(try encoder.encode(blank)) + [UInt8(ascii: "\n")]
        guard let at = digestOffset(in: bytes) else { throw TesseraError("a checkpoint manifest was encoded without its digest") }
        let digest = bytes.withUnsafeBytes(checksum(of:))
        bytes.replaceSubrange(at..<(at + 16), with: Array(String(cFormat: "%016llx", digest).utf8))
        let file = try AtomicFile(folder + "/" + manifestName)
        try file.write(bytes)
        try file.commit()
        for old in try generations(in: root).dropFirst(2) { try? FileManager.default.removeItem(atPath: old.folder) }
    }

    /// The checkpoint folders under `root`, newest first.
    static func generations(in root: String) throws -> [(generation: UInt64, folder: String)] {
        // None yet: a run that will write its first checkpoint there starts afresh.
        guard FileManager.default.fileExists(atPath: root) else { return [] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else {
            throw TesseraError("cannot read checkpoint folder \(root)", fix: "give the folder a run wrote with --checkpoint")
        }
        return names.compactMap { name in
            guard name.hasPrefix("generation-"), let g = UInt64(name.dropFirst("generation-".count)) else { return nil }
            return (g, root + "/" + name)
        }.sorted { $0.generation > $1.generation }
    }

    /// The generations of the checkpoints under `root` that were put in place (they have a
    /// manifest), newest first, without reading them.
    public static func committed(in root: String) throws -> [UInt64] {
        try generations(in: root).filter { FileManager.default.fileExists(atPath: $0.folder + "/" + manifestName) }.map(\.generation)
    }

    /// A checkpoint read back: its manifest and its cells.
    public struct Restored: Sendable {
        public let manifest: Manifest
        public let rule: Rule
        /// The bounded grid; nil on the unbounded plane.
        public let shape: BoardShape?
        public let cells: Cells
        /// Why newer checkpoints were passed over (damaged or incomplete), one line each.
        public let skipped: [String]

        public enum Cells: Sendable {
            /// A bounded grid of tiles, whole; and its states, where the rule has more than two.
            case grid(BitGrid, states: StateGrid?)
            /// Shards' live parts, in Golly's coordinates.
            case parts([PlacedCells])
        }

        public var population: Int {
            switch cells {
            case .grid(let board, _): board.population
            case .parts(let parts): parts.reduce(0) { $0 + $1.cells.population }
            }
        }

        /// What the board is, for messages: "the 64x64 torus", "the unbounded plane".
        public var board: String { shape?.description ?? "the unbounded plane" }
    }

    /// The newest complete, undamaged checkpoint under `root`; nil when there is none
    /// (`skipped` then says why, through the error).
    public static func newest(in root: String) throws -> Restored? {
        var skipped: [String] = []
        for (generation, folder) in try generations(in: root) {
            do {
                return try read(folder, generation: generation, skipped: skipped)
            } catch let error as TesseraError {
                skipped.append(error.description)
            }
        }
        guard skipped.isEmpty else {
            throw TesseraError("no usable checkpoint in \(root): \(skipped.joined(separator: "; "))",
                               fix: "start the run afresh without --resume")
        }
        return nil
    }

    static func read(_ folder: String, generation: UInt64, skipped: [String]) throws -> Restored {
        let path = folder + "/" + manifestName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TesseraError("checkpoint \(folder) is incomplete: it has no \(manifestName)")
        }
        let manifest = try manifest(Array(data), path: path)
        let unusable = TesseraError("checkpoint manifest \(path) does not describe a board Tessera can resume")
        guard manifest.generation == generation, let rule = try? Rule(named: manifest.rule) else { throw unusable }
        guard (manifest.format == 3) == (manifest.plane != nil) else { throw unusable }
        if let plane = manifest.plane {
            let unbounded = manifest.topology == Topology.infinite.rawValue
            guard manifest.tiles.isEmpty, unbounded ? manifest.width == 0 && manifest.height == 0 : manifest.shape != nil else {
                throw unusable
            }
            let parts = try readPlane(plane, in: folder, generation: generation)
            if let shape = manifest.shape {
                for part in parts {
                    guard part.left >= shape.left, part.top >= shape.top, part.left + part.cells.width <= shape.left + shape.width,
                          part.top + part.cells.height <= shape.top + shape.height else {
                        throw TesseraError("checkpoint file \(folder)/\(plane.file) holds cells beyond its \(shape) board")
                    }
                }
            }
            return Restored(manifest: manifest, rule: rule, shape: manifest.shape, cells: .parts(parts), skipped: skipped)
        }
        guard let shape = manifest.shape else { throw unusable }
        try checkTiles(of: manifest, cover: shape, path: path)
        guard rule.steppedAsStates else {
            var board = BitGrid(width: shape.width, height: shape.height)
            for entry in manifest.tiles {
                try readTile(entry, in: folder, generation: generation).copy(into: &board, atX: entry.x, y: entry.y)
            }
            return Restored(manifest: manifest, rule: rule, shape: shape, cells: .grid(board, states: nil), skipped: skipped)
        }
        var states = StateGrid(width: shape.width, height: shape.height, states: rule.states)
        for entry in manifest.tiles {
            let tile = try readTileStates(entry, in: folder, generation: generation)
            guard tile.planes.count <= states.planes.count else {
                throw TesseraError("checkpoint file \(folder)/\(entry.file) holds states past the \(rule.states) of \(rule)")
            }
            states.replace(with: tile, atX: entry.x, y: entry.y)
        }
        guard states.holdsOnly(below: rule.states) else {
            throw TesseraError("checkpoint \(folder) holds states past the \(rule.states) of \(rule)")
        }
        return Restored(manifest: manifest, rule: rule, shape: shape, cells: .grid(states.occupied, states: states), skipped: skipped)
    }

    /// The manifest in `bytes`, once its digest matches them.
    static func manifest(_ bytes: [UInt8], path: String) throws -> Manifest {
        struct Format: Decodable { let format: Int }
        guard let format = try? JSONDecoder().decode(Format.self, from: Data(bytes)) else {
            throw TesseraError("checkpoint manifest \(path) is damaged: it is not the JSON of a manifest Tessera wrote")
        }
        guard format.format == 2 || format.format == 3 else {
            throw TesseraError("checkpoint manifest \(path) is of format \(format.format), written by another version of Tessera without a digest")
        }
        guard let at = digestOffset(in: bytes) else {
            throw TesseraError("checkpoint manifest \(path) is damaged: its digest is missing")
        }
        var blank = bytes
        blank.replaceSubrange(at..<(at + 16), with: Array(blankDigest.utf8))
        guard Array(String(cFormat: "%016llx", blank.withUnsafeBytes(checksum(of:))).utf8) == Array(bytes[at..<(at + 16)]) else {
            throw TesseraError("checkpoint manifest \(path) is damaged or was edited: its digest does not match its bytes")
        }
        do { return try JSONDecoder().decode(Manifest.self, from: Data(bytes)) } catch {
            throw TesseraError("checkpoint manifest \(path) is damaged: it is not the JSON of a manifest Tessera wrote")
        }
    }

    /// Where the digest's 16 hex digits start in a manifest's bytes: after its one key.
    static func digestOffset(in bytes: [UInt8]) -> Int? {
        var found: Int?
        for start in bytes.indices where bytes[start] == digestKey[0] && bytes[start...].starts(with: digestKey) {
            guard found == nil else { return nil }
            found = start + digestKey.count
        }
        guard let found, found + 17 <= bytes.count, bytes[found + 16] == UInt8(ascii: "\"") else { return nil }
        return found
    }

    /// Throws unless the manifest's tiles lie on the board, none over another, and
    /// together cover it.
    static func checkTiles(of manifest: Manifest, cover shape: BoardShape, path: String) throws {
        var covered = 0
        var edges: [(y: Int, isEnd: Bool, x: Int, width: Int)] = []
        for entry in manifest.tiles {
            guard entry.x >= 0, entry.y >= 0, entry.width > 0, entry.height > 0,
                  entry.x <= shape.width - entry.width, entry.y <= shape.height - entry.height,
                  !entry.file.contains("/") else {
                throw TesseraError("checkpoint manifest \(path) places tile (\(entry.column),\(entry.row)) outside the board")
            }
            covered += entry.width * entry.height
            edges += [(entry.y, false, entry.x, entry.width), (entry.y + entry.height, true, entry.x, entry.width)]
        }
        // A sweep down the board: the columns each row's tiles cover never overlap.
        var open: [(x: Int, width: Int)] = []
        for edge in edges.sorted(by: { ($0.y, $0.isEnd ? 0 : 1) < ($1.y, $1.isEnd ? 0 : 1) }) {
            if edge.isEnd {
                open.removeAll { $0 == (edge.x, edge.width) }
                continue
            }
            guard !open.contains(where: { edge.x < $0.x + $0.width && $0.x < edge.x + edge.width }) else {
                throw TesseraError("checkpoint manifest \(path) lays two tiles over the same cells")
            }
            open.append((edge.x, edge.width))
        }
        guard covered == shape.cellCount else {
            throw TesseraError("checkpoint manifest \(path) leaves part of the board without a tile")
        }
    }
}
