import FoundationEssentials
import TesseraCore

/// A whole board written to an `.rle` or `.cells` file, atomically: Golly reopens the
/// RLE as exactly the same board. A board of any size is written band by band.
public struct BoardOutput: Sendable {
    public let path: String
    public private(set) var shape: BoardShape
    public let rule: Rule
    /// What a `.cells` file calls the board.
    public let name: String

    /// Checks that `path` names a format and can be written, before any work is spent.
    public init(path: String, shape: BoardShape, rule: Rule, name: String) throws {
        guard !Self.extensionOf(path).isEmpty else {
            throw TesseraError("cannot tell the format of output '\(path)'",
                               fix: "name it *.rle, *.mc or *.cells (each may end .gz, gzip-compressed)")
        }
        try AtomicFile.checkWritable(path)
        (self.path, self.shape, self.rule, self.name) = (path, shape, rule, name)
    }

    /// The same file for a board of `shape`: the unbounded plane's live cells, whose
    /// place and size are known only at the end.
    public func placed(on shape: BoardShape) -> BoardOutput {
        var output = self
        output.shape = shape
        return output
    }

    /// `STEM.rle`, or `STEM-2.rle`, … : a new file for every save, even of the same
    /// generation after an edit.
    public static func freshPath(stem: String) -> String {
        var path = stem + ".rle", copy = 1
        while FileManager.default.fileExists(atPath: path) {
            copy += 1
            path = "\(stem)-\(copy).rle"
        }
        return path
    }

    /// Rows fetched at a time when writing a board band by band: 16 MiB of cells.
    public static func bandRows(width: Int) -> Int { max(1, (16 << 23) / max(1, width)) }

    /// Bytes of cells the writer holds at once.
    public var bandBytes: Int { Self.bandRows(width: shape.width) * shape.width / 8 }

    private func encoder(generation: UInt64) throws -> any BoardEncoder {
        if isPlainText { return PlainText.Encoder(width: shape.width, name: "\(name) generation \(generation)") }
        try checkGollyReadsPosition()
        return RLE.Encoder(shape: shape, rule: rule, generation: generation)
    }

    public var isPlainText: Bool { Self.format(of: path).hasSuffix(".cells") }

    /// The same output for the board at `generation`, its path numbered by it
    /// (`out.mc` → `out-1024.mc`, `out.rle.gz` → `out-1024.rle.gz`): one of a run's
    /// files written every so many generations.
    public func numbered(_ generation: UInt64) throws -> BoardOutput {
        let suffix = Self.extensionOf(path).count + (OutputFile.isCompressed(path.lowercased()) ? 3 : 0)
        return try BoardOutput(path: "\(path.dropLast(suffix))-\(generation)\(path.suffix(suffix))", shape: shape, rule: rule, name: name)
    }

    /// `.rle`, `.mc` or `.cells`, as `format(of:)` ends; empty for none of them.
    private static func extensionOf(_ path: String) -> String {
        [".rle", ".cells", ".mc"].first { format(of: path).hasSuffix($0) } ?? ""
    }

    /// The path's name, lower case, as it tells the format: without a `.gz`.
    private static func format(of path: String) -> String {
        Files.uncompressedName(of: path).lowercased()
    }

    /// Golly writes RLE only within ±10⁹ of the origin, and reads its `Pos` as 32-bit
    /// numbers: an RLE of the unbounded plane past that would reopen somewhere else.
    private func checkGollyReadsPosition() throws {
        let limit = 1_000_000_000
        guard shape.topology == .infinite, shape.width > 0, shape.height > 0 else { return }
        let box = CellBounds(left: shape.left, top: shape.top, width: shape.width, height: shape.height)
        guard box.left >= -limit, box.top >= -limit, box.right - 1 <= limit, box.bottom - 1 <= limit else {
            throw TesseraError("the live cells span \(box), past the ±\(limit) cells Golly reads and writes as RLE",
                               fix: "name the output *.mc (macrocell), which holds any position")
        }
    }

    public var isMacrocell: Bool { Self.format(of: path).hasSuffix(".mc") }

    /// Writes the cells of the unbounded plane that `tree` holds, rooted as Golly roots
    /// a macrocell file (`isMacrocell` only).
    public func write(tree: QuadTree, rule: Rule, generation: UInt64) throws {
        precondition(isMacrocell, "a quadtree is written as a macrocell")
        try writeWhole(Macrocell.string(for: tree, rule: "\(rule)", generation: generation))
    }

    /// `parts` (Golly's coordinates) as this file's macrocell, whole.
    private func writeMacrocell(_ parts: [PlacedCells], rule: Rule, generation: UInt64) throws {
        try writeWhole(Macrocell.string(for: parts, rule: "\(rule)\(shape.gollySuffix)", generation: generation))
    }

    /// `text` as the whole file.
    private func writeWhole(_ text: String) throws {
        let file = try OutputFile(path)
        try file.write(text)
        try file.commit()
    }

    /// Writes `board` whole.
    public func write(_ board: BitGrid, generation: UInt64) throws {
        if isMacrocell {
            return try writeMacrocell([PlacedCells(cells: board, left: shape.left, top: shape.top)], rule: rule, generation: generation)
        }
        var encoder = try encoder(generation: generation)
        try encoder.write(board, to: path)
    }

    /// Writes `parts` (in Golly's coordinates, apart from each other) as one pattern:
    /// on the unbounded plane their bounding box, placed where it lies; on a bounded
    /// grid (RLE or macrocell) the board. Rows between parts go as runs of empty rows, so
    /// parts a billion cells apart cost what they hold.
    public func write(parts: [PlacedCells], rule: Rule, generation: UInt64) throws {
        // Whether a part holds a live cell, asked without counting them: one grid over
        // acorn's 2325×2497 box would be counted whole for it.
        let parts = parts.filter { !$0.cells.isEmpty(x: 0, y: 0, width: $0.cells.width, height: $0.cells.height) }
            .sorted { $0.left < $1.left }
        if isMacrocell {
            return try writeMacrocell(parts, rule: rule, generation: generation)
        }
        if shape.topology != .infinite {
            return try sweep(PartsByTop(parts), rule: rule, generation: generation,
                             box: CellBounds(left: shape.left, top: shape.top, width: shape.width, height: shape.height))
        }
        let box = CellBounds.enclosing(parts.map(\.bounds)) ?? CellBounds(left: 0, top: 0, width: 0, height: 0)
        // A tube's box keeps the tube in its rule line.
        let placed = placed(on: BoardShape(width: box.width, height: box.height, topology: .infinite, left: box.left, top: box.top,
                                           edges: shape.edges))
        if parts.count <= 1 {
            var board = BitGrid(width: box.width, height: box.height)
            if let part = parts.first { board = part.cells }
            return try placed.write(board, generation: generation)
        }
        try placed.sweep(PartsByTop(parts), rule: rule, generation: generation, box: box)
    }

    /// The most cells a `.cells` file of parts apart spells out: a GiB of text.
    static let plainTextCells = 1 << 30

    /// Writes the live cells of the unbounded plane, whose bounding box is `box` (nil:
    /// none is alive), a band of rows at a time: `nextBand()` gives each band's parts in
    /// turn, north to south (nil after the last), each holding live cells and none
    /// reaching into a later band's rows, so that an RLE holds one band's cells at once (a breeder's 100000
    /// generations: 25000² cells, 80 MiB as one grid). As `write(parts:)` otherwise.
    public func write(box: CellBounds?, rule: Rule, generation: UInt64, nextBand: () throws -> [PlacedCells]?) throws {
        guard let box, !isMacrocell, shape.topology == .infinite else {
            var parts: [PlacedCells] = []
            while let band = try nextBand() { parts += band }
            return try write(parts: parts, rule: rule, generation: generation)
        }
        let placed = placed(on: BoardShape(width: box.width, height: box.height, topology: .infinite, left: box.left, top: box.top,
                                           edges: shape.edges))
        try withoutActuallyEscaping(nextBand) { try placed.sweep(PartsByTop($0), rule: rule, generation: generation, box: box) }
    }

    /// Writes the parts `pending` gives as this file's board, whose cells `box` spans, in
    /// a sweep down the rows.
    private func sweep(_ pending: PartsByTop, rule: Rule, generation: UInt64, box: CellBounds) throws {
        let (cells, overflow) = box.width.multipliedReportingOverflow(by: box.height)
        guard !isPlainText || (!overflow && cells <= Self.plainTextCells) else {
            throw TesseraError("the live cells lie \(box.width)x\(box.height) cells apart, too far for a .cells file, which spells out every cell",
                               fix: "name the output *.rle or *.mc")
        }
        var pending = pending
        var encoder = try encoder(generation: generation)
        let file = try OutputFile(path)
        // A sweep down the rows: the parts whose rows these are, in order of columns,
        // change only where one begins or ends.
        var open: [PlacedCells] = [], y = box.top
        while y < box.bottom {
            while let top = try pending.nextTop(), top <= y {
                let part = pending.take()
                open.insert(part, at: open.firstIndex { $0.left > part.left } ?? open.count)
            }
            open.removeAll { $0.bounds.bottom <= y }
            let nextTop = try pending.nextTop() ?? box.bottom
            guard let firstEnd = open.map(\.bounds.bottom).min() else {
                // A few hundred at a time where a .cells file spells each one out.
                let rows = isPlainText ? min(nextTop - y, 256) : nextTop - y
                encoder.skip(rows: rows)
                try file.write(encoder.take())
                y += rows
                continue
            }
            let end = min(nextTop, firstEnd)
            for row in y..<end {
                encoder.append(segments: open.map { ($0.left - box.left, $0.cells.row(row - $0.top), $0.cells.width) })
                if row & 255 == 255 { try file.write(encoder.take()) }
            }
            y = end
        }
        encoder.finish()
        try file.write(encoder.take())
        try file.commit()
    }

    /// Writes the board band by band, fetching the cells of each band of `live` with
    /// `cells` (board coordinates): every live cell lies in `live` (nil: none is alive),
    /// so the rows and columns around it are written as empty without being read. Neither
    /// the board nor its text is ever held whole, however large the board. If `cells`
    /// throws, nothing is written.
    /// A macrocell shares subtrees across the whole board, so it is built from the live
    /// cells whole (1 bit a cell of their bounding box).
    /// It runs on the caller's actor, which `cells` may then read.
    public func write(generation: UInt64, live: TileRect?, isolation: isolated (any Actor)? = #isolation,
                      cells: (TileRect) async throws -> BitGrid) async throws {
        let live = live?.intersection(TileRect(x: 0, y: 0, width: shape.width, height: shape.height))
        let band = Self.bandRows(width: live?.width ?? 1)
        let bands = live.map { live in
            stride(from: live.y, to: live.y + live.height, by: band).map {
                TileRect(x: live.x, y: $0, width: live.width, height: min(band, live.y + live.height - $0))
            }
        } ?? []
        if isMacrocell {
            var parts: [PlacedCells] = []
            for rect in bands {
                try Task.checkCancellation()
                parts.append(PlacedCells(cells: try await cells(rect), left: shape.left + rect.x, top: shape.top + rect.y))
            }
            return try writeMacrocell(parts, rule: rule, generation: generation)
        }
        var encoder = try encoder(generation: generation)
        let file = try OutputFile(path)
        // Empty rows a few hundred at a time: a .cells file spells each one out.
        func skip(to y: Int, from done: inout Int) throws {
            while done < y {
                let count = min(256, y - done)
                encoder.skip(rows: count)
                done += count
                try file.write(encoder.take())
            }
        }
        var done = 0
        for rect in bands {
            // A stopped run writes nothing: the temporary file goes with `file`.
            try Task.checkCancellation()
            try skip(to: rect.y, from: &done)
            let grid = try await cells(rect)
            for row in 0..<grid.height {
                encoder.append(grid.row(row), at: rect.x, width: rect.width)
                if row & 255 == 255 { try file.write(encoder.take()) }
            }
            done += grid.height
        }
        try skip(to: shape.height, from: &done)
        encoder.finish()
        try file.write(encoder.take())
        try file.commit()
    }
}

extension BoardOutput {
    /// Writes cells of more than two states (`states[0, 0]` at Golly's (left, top)) as
    /// Golly's RLE, placed where they lie (`#CXRLE Pos`): `.` for state 0, `A`..`X` for
    /// 1 to 24, `pA`.. past that, runs and line breaks as Golly's writer makes them.
    public func write(states: StateGrid, left: Int, top: Int, rule: Rule, generation: UInt64) throws {
        let occupied = states.occupied
        let box = occupied.liveBounds.map { CellBounds(left: left + $0.x, top: top + $0.y, width: $0.width, height: $0.height) }
        try write(statesIn: box, rule: rule, generation: generation, emptyAt: (left, top),
                  squares: { Macrocell.squares(ofStates: states, left: left, top: top) }) { y, body in
            occupied.forEachLive(inRow: y - top) { x in body(left + x, states[x, y - top]) }
        }
    }

    /// Writes cells of more than two states whose box (Golly's coordinates; nil where
    /// none is alive) is `box`, without a grid of them: a macrocell from `squares`, rooted
    /// as Golly roots one; an RLE row by row, `row(y, body)` giving row y's cells in a
    /// state but 0 from west to east, as (x, state). An RLE of no cells is placed at
    /// `emptyAt`.
    public func write(statesIn box: CellBounds?, rule: Rule, generation: UInt64, emptyAt: (x: Int, y: Int) = (0, 0),
                      squares: () -> StateQuadTree,
                      row: (Int, (Int, Int) -> Void) -> Void) throws {
        guard !isPlainText else {
            throw TesseraError("cells of \(rule)'s states are written as RLE or macrocell", fix: "name the output *.rle or *.mc")
        }
        if isMacrocell {
            return try writeWhole(Macrocell.string(forStateSquares: squares(), rule: "\(rule)\(shape.gollySuffix)", generation: generation))
        }
        guard let box else {
            try writeWhole("#CXRLE Pos=\(emptyAt.x),\(emptyAt.y)\(generation > 0 ? " Gen=\(generation)" : "")\nx = 0, y = 0, rule = \(rule)\(shape.gollySuffix)\n!\n")
            return
        }
        let file = try OutputFile(path)
        var runs = StateRuns(header: "#CXRLE Pos=\(box.left),\(box.top)\(generation > 0 ? " Gen=\(generation)" : "")\n"
            + "x = \(box.width), y = \(box.height), rule = \(rule)\(shape.gollySuffix)\n")
        for y in box.top..<box.top + box.height {
            runs.startRow(at: box.left)
            row(y) { x, state in runs.add(x, state) }
            runs.endRow()
            // Handed to the file a megabyte at a time.
            if runs.text.bytes.count >= 1 << 20 { try file.write(runs.text.take()) }
        }
        runs.finish()
        try file.write(runs.text.take())
        try file.commit()
    }
}

/// Parts in order of their top rows, then of their columns, taken from bands of rows
/// that follow one another down the board, one band at a time: a band is let go once
/// its parts are taken.
private struct PartsByTop {
    private let nextBand: () throws -> [PlacedCells]?
    private var band: [PlacedCells] = [], next = 0

    init(_ nextBand: @escaping () throws -> [PlacedCells]?) { self.nextBand = nextBand }

    /// All of `parts` as one band.
    init(_ parts: [PlacedCells]) {
        self.init { nil }
        band = parts.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
    }

    /// The next part's top row, fetching the bands it needs; nil when none is left.
    mutating func nextTop() throws -> Int? {
        while next == band.count {
            guard let more = try nextBand() else { return nil }
            band = more.sorted { ($0.top, $0.left) < ($1.top, $1.left) }
            next = 0
        }
        return band[next].top
    }

    /// The next part (`nextTop()` first said there is one).
    mutating func take() -> PlacedCells {
        defer { next += 1 }
        return band[next]
    }
}

/// A multi-state RLE's text as its cells come, row by row, never a row itself (a tape's
/// row may hold millions): runs and line breaks as Golly's writer makes them. Its state
/// is one value, so that a cell costs one access to it, not one to each of its parts.
private struct StateRuns {
    var text: RLE.RunText
    private var newlines = 0
    /// The run being gathered, and where the one before it ended.
    private var start = 0, length = 0, state = 0, end = 0

    init(header: String) { text = RLE.RunText(header: header) }

    mutating func startRow(at left: Int) { (length, end) = (0, left) }

    /// The next live cell of the row, west to east.
    mutating func add(_ x: Int, _ cellState: Int) {
        if length > 0, x == start + length, cellState == state { return length += 1 }
        flush()
        (start, length, state) = (x, 1, cellState)
    }

    mutating func endRow() {
        flush()
        newlines += 1
    }

    mutating func finish() {
        run(1, UInt8(ascii: "!"))
        text.endLine()
    }

    private mutating func flush() {
        guard length > 0 else { return }
        if newlines > 0 { run(newlines, UInt8(ascii: "$")); newlines = 0 }
        if start > end { run(start - end, UInt8(ascii: ".")) }
        // `A`..`X` for states 1 to 24, then `pA`.. : a letter before them past 24.
        run(length, UInt8(ascii: "A") + UInt8((state - 1) % 24), prefix: state > 24 ? UInt8(ascii: "p") + UInt8((state - 25) / 24) : 0)
        (end, length) = (start + length, 0)
    }

    /// A run wrapped as Golly's AddRun wraps it: room for two characters of token.
    private mutating func run(_ count: Int, _ letter: UInt8, prefix: UInt8 = 0) { text.run(count, letter, prefix: prefix, room: 2) }
}
