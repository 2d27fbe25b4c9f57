import TesseraCore

/// Appends little-endian fields to a message.
package struct WireWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func int(_ v: Int) { u64(UInt64(bitPattern: Int64(v))) }
    package mutating func double(_ v: Double) { u64(v.bitPattern) }
    package mutating func bool(_ v: Bool) { u8(v ? 1 : 0) }

    package mutating func string(_ s: String) {
        u32(UInt32(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    /// Board rows `lower..<upper`.
    package mutating func rows(_ rows: Range<Int>) {
        int(rows.lowerBound)
        int(rows.upperBound)
    }

    /// A byte count, then the bytes.
    package mutating func bytes(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes.append(contentsOf: b)
    }

    package mutating func grid(_ g: BitGrid) {
        u32(UInt32(g.width))
        u32(UInt32(g.height))
        bytes.reserveCapacity(bytes.count + g.words.count * 8)
        // Words go out little-endian; on big-endian hosts they would need swapping.
        g.words.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Grids of one size (`TileState.layers`, `HaloStrip.Piece.layers`): a count, then each.
    package mutating func layers(_ grids: [BitGrid]) {
        u8(UInt8(grids.count))
        for grid in grids { self.grid(grid) }
    }
}

/// Reads fields from a peer's message. Every read is bounds-checked and every number
/// is checked against what it may be before it is used: a lie throws a
/// `TesseraError` that names it, never a crash or an allocation the bytes do not back.
package struct WireReader {
    private let bytes: [UInt8]
    package private(set) var offset: Int

    package init(_ bytes: [UInt8], from offset: Int) {
        self.bytes = bytes
        self.offset = offset
    }

    package var remaining: Int { bytes.count - offset }

    private mutating func take(_ n: Int) throws -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else {
            throw TesseraError("truncated message: needed \(n) more bytes at offset \(offset)")
        }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        try take(MemoryLayout<T>.size).reversed().reduce(T(0)) { $0 << 8 | T($1) }
    }

    package mutating func u8() throws -> UInt8 { try integer(UInt8.self) }

    /// The next byte, left to be read.
    package func peekU8() throws -> UInt8 {
        guard remaining >= 1 else { throw TesseraError("truncated message: needed 1 more byte at offset \(offset)") }
        return bytes[offset]
    }
    package mutating func u16() throws -> UInt16 { try integer(UInt16.self) }
    package mutating func u32() throws -> UInt32 { try integer(UInt32.self) }
    package mutating func u64() throws -> UInt64 { try integer(UInt64.self) }

    /// A signed number in `range`.
    package mutating func int(in range: ClosedRange<Int>, _ what: String) throws -> Int {
        let value = Int(Int64(bitPattern: try u64()))
        guard range.contains(value) else { throw TesseraError("implausible \(what) \(value) in message") }
        return value
    }

    /// An unsigned 32-bit count or size, at most `limit`.
    package mutating func count(upTo limit: Int, _ what: String) throws -> Int {
        let value = Int(try u32())
        guard value <= limit else { throw TesseraError("implausible \(what) \(value) in message (at most \(limit))") }
        return value
    }

    /// A finite, non-negative number (seconds, say).
    package mutating func amount(_ what: String) throws -> Double {
        let value = Double(bitPattern: try u64())
        guard value.isFinite, value >= 0 else { throw TesseraError("implausible \(what) \(value) in message") }
        return value
    }

    package mutating func bool() throws -> Bool {
        let value = try u8()
        guard value <= 1 else { throw TesseraError("implausible flag \(value) in message") }
        return value == 1
    }

    package mutating func string(upTo limit: Int = 4096) throws -> String {
        let n = try count(upTo: limit, "string length")
        return String(decoding: try take(n), as: UTF8.self)
    }

    /// Board rows, `lower..<upper` with lower ≤ upper ≤ the largest board side.
    package mutating func rows() throws -> Range<Int> {
        let top = try int(in: 0...BoardShape.maxSide, "first row"), bottom = try int(in: 0...BoardShape.maxSide, "end row")
        guard top <= bottom else { throw TesseraError("message asks for rows \(top)..<\(bottom)") }
        return top..<bottom
    }

    /// A rectangle of a board: a corner and sides each within a board's largest side.
    package mutating func area() throws -> TileRect {
        let x = try int(in: 0...BoardShape.maxSide, "area x"), y = try int(in: 0...BoardShape.maxSide, "area y")
        let width = try int(in: 0...BoardShape.maxSide, "area width"), height = try int(in: 0...BoardShape.maxSide, "area height")
        return TileRect(x: x, y: y, width: width, height: height)
    }

    /// Bytes written by `WireWriter.bytes`, at most `limit` of them.
    package mutating func bytes(upTo limit: Int, _ what: String) throws -> [UInt8] {
        let count = try self.count(upTo: limit, what)
        return Array(try take(count))
    }

    /// A grid of at most 2^31 cells a side whose words the message really holds.
    package mutating func grid() throws -> BitGrid {
        let width = try count(upTo: Int(Int32.max), "grid width"), height = try count(upTo: Int(Int32.max), "grid height")
        let words = (width + 63) / 64 * height
        guard words <= remaining / 8 else {
            throw TesseraError("truncated message: a \(width)x\(height) grid needs \(words * 8) bytes, \(remaining) left")
        }
        let raw = try take(words * 8)
        // One copy of the little-endian words (as `WireWriter.grid` sends them).
        let values = [UInt64](unsafeUninitializedCapacity: words) { buffer, count in
            raw.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: $0) }
            count = words
        }
        return BitGrid(width: width, height: height, words: values)
    }

    /// The most layers a grid of cells carries: a two-state tile's two generations, or
    /// the bit planes of 256 states.
    package static let mostLayers = 8

    /// Layers of `what` as `WireWriter.layers` writes them: 1 to `mostLayers` grids of one size.
    package mutating func layers(_ what: String) throws -> [BitGrid] {
        let count = try u8()
        guard (1...UInt8(Self.mostLayers)).contains(count) else {
            throw TesseraError("\(what) came with \(count) layers of cells, where 1 to \(Self.mostLayers) are")
        }
        let grids = try (0..<count).map { _ in try grid() }
        guard grids.allSatisfy({ $0.width == grids[0].width && $0.height == grids[0].height }) else {
            throw TesseraError("\(what) came with layers of cells of different sizes")
        }
        return grids
    }
}
