import FoundationEssentials
import TesseraCore

/// Golly's run-length encoded format, including the `#CXRLE Pos=x,y Gen=n` line.
public enum RLE {
    /// Parses RLE text. Rejects anything Golly would misread or that lies about itself:
    /// unknown characters, zero or huge counts, a missing `!`, cells outside the declared size.
    public static func parse(_ text: String) throws -> Pattern {
        var text = text
        return try text.withUTF8 { bytes in
            guard let (header, bodyStart) = try Header.parse(bytes, complete: true) else { throw Header.missing }
            var body = Body(header)
            try body.read(UnsafeBufferPointer(rebasing: bytes[bodyStart...]))
            return try body.pattern()
        }
    }

    /// The lines before the pattern data: `#` comments, `#CXRLE`, and `x = …, y = …, rule = …`.
    struct Header {
        /// The most cells a declared box holds as one grid (2 MiB of it): a larger box is
        /// read into blocks made where cells arrive, so that what is read follows the
        /// live cells, not the extent.
        static let largestWhole = 1 << 24
        /// The same on Golly's unbounded plane (a rule with no grid suffix), 64 KiB: there
        /// the run takes a pattern in live blocks whatever its size (`inLiveBlocks`), and
        /// a bounded grid's whole-board engines are not what runs it.
        static let largestWholeOnPlane = 1 << 19
        /// Whether a reader keeps a box's live cells in blocks (`SparseBlocks`) rather
        /// than as one grid: past `largestWholeOnPlane` cells for a rule of two states on
        /// the unbounded plane (no `board`), else past `largestWhole`.
        static func holdsInBlocks(width: Int, height: Int, board: BoardShape?, states: Int) -> Bool {
            let (cells, overflow) = width.multipliedReportingOverflow(by: height)
            return overflow || cells > (board == nil && states <= 2 ? largestWholeOnPlane : largestWhole)
        }
        var width = 0, height = 0
        /// Whether the declared box is larger than `largestWhole` (`largestWholeOnPlane`).
        var isSparse = false
        /// Whether the cells, of more than two states on the unbounded plane, are read
        /// into a quadtree (`StateTreeRows`) as a macrocell's are, past
        /// `largestWholeOnPlane` cells: HashLife steps them as they are, or tiles take
        /// them where they lie.
        var isTree = false
        var rule: Rule?, board: BoardShape?
        var position: (x: Int, y: Int)?
        var generation: UInt64 = 0
        var comments: [String] = []
        /// The line number of the first line of pattern data.
        var bodyLine = 1

        static let missing = TesseraError("RLE has no header line",
                                          fix: "start the pattern with 'x = W, y = H, rule = B3/S23'")

        /// The header at the start of `bytes` and where the data begins; nil when the
        /// header line has not ended yet and more text may follow (unless `complete`).
        static func parse(_ bytes: UnsafeBufferPointer<UInt8>, complete: Bool) throws -> (Header, body: Int)? {
            var header = Header()
            var start = 0
            while start < bytes.count {
                let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
                guard newline != nil || complete else { return nil }
                let end = newline ?? bytes.count
                let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    .trimmingWhitespace
                let number = header.bodyLine
                header.bodyLine += 1
                start = min(bytes.count, end + 1)
                if line.hasPrefix("#CXRLE") {
                    try header.readCXRLE(line, number: number)
                } else if line.hasPrefix("#") {
                    header.comments.append(String(line))
                } else if !line.isEmpty {
                    guard line.first == "x" else { throw missing }
                    try header.readSize(line)
                    return (header, start)
                }
            }
            guard complete else { return nil }
            throw missing
        }

        private mutating func readCXRLE(_ line: Substring, number: Int) throws {
            for field in line.dropFirst(6).split(separator: " ") {
                let pair = field.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                if pair[0] == "Pos" {
                    let xy = pair[1].split(separator: ",")
                    guard xy.count == 2, let x = Int(xy[0]), let y = Int(xy[1]) else {
                        throw TesseraError("RLE line \(number): bad Pos '\(pair[1])'", fix: "write Pos=x,y with integers")
                    }
                    guard Pattern.isPlaceable(x), Pattern.isPlaceable(y) else {
                        throw TesseraError("RLE line \(number): Pos=\(x),\(y) lies beyond ±2^62, the farthest Tessera places a cell",
                                           fix: "move the pattern nearer the origin")
                    }
                    position = (x, y)
                } else if pair[0] == "Gen" {
                    guard let g = UInt64(pair[1]) else {
                        throw TesseraError("RLE line \(number): bad Gen '\(pair[1])'", fix: "write Gen=n with n ≥ 0")
                    }
                    generation = g
                }
            }
        }

        private mutating func readSize(_ line: Substring) throws {
            var width: Int?, height: Int?
            var fields = line.split(separator: ",")
            // The rule's bounded-grid suffix (`:T640,480`) has a comma of its own: the rule runs to the end.
            if let ruleField = fields.firstIndex(where: { $0.trimmingWhitespace.hasPrefix("rule") }) {
                fields[ruleField] = line[fields[ruleField].startIndex...]
                fields.removeSubrange((ruleField + 1)...)
            }
            for field in fields {
                let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace }
                guard pair.count == 2 else {
                    throw TesseraError("RLE header field '\(field.trimmingWhitespace)' is not key = value", fix: "write 'x = W, y = H, rule = R'")
                }
                switch pair[0] {
                case "x": width = Int(pair[1])
                case "y": height = Int(pair[1])
                case "rule": (rule, board) = try BoardShape.parseRule(String(pair[1]))
                default: continue
                }
            }
            guard let width, let height, width >= 0, height >= 0 else {
                throw TesseraError("RLE header '\(line)' lacks a valid x or y", fix: "write 'x = W, y = H' with sizes ≥ 0")
            }
            // A box within ±2^62 from wherever it lies; larger than `largestWhole`, its live
            // cells are gathered in blocks made where they arrive (`SparseBlocks`).
            guard Pattern.isPlaceable(width), Pattern.isPlaceable(height) else {
                throw TesseraError("RLE header declares a \(width)x\(height) pattern, past the ±2^62 cells Tessera places",
                                   fix: "declare the pattern's real size")
            }
            let (cells, overflow) = width.multipliedReportingOverflow(by: height)
            // Cells of more states are read whole, a bit a cell and the bit planes of
            // their states, as a bounded grid's engine steps them (WholeBoard); or, on the
            // unbounded plane, as squares.
            let states = rule?.states ?? 2
            isSparse = states <= 2 && Self.holdsInBlocks(width: width, height: height, board: board, states: states)
            isTree = states > 2 && board == nil && (overflow || cells > Self.largestWholeOnPlane)
            if states > 2, !isTree, overflow || cells > StateGrid.mostCells {
                throw TesseraError("RLE header declares a \(width)x\(height) pattern of \(states) states, past the \(StateGrid.mostCells) cells of more than two states Tessera holds",
                                   fix: "crop the pattern in Golly first")
            }
            if !isSparse, !isTree {
                try MemoryBudget.check(bytes: overflow ? .max : Pattern.bytesHeld(width: width, height: height, states: states),
                                       what: "the RLE header's \(width)x\(height) pattern",
                                       fix: "declare the pattern's real size, or load it on a machine with more memory")
            }
            (self.width, self.height) = (width, height)
        }
    }

    /// The pattern data, read in pieces of any size: a file need not be in memory whole.
    struct Body {
        private let header: Header
        private var grid: BitGrid
        private var blocks: SparseBlocks?
        private var tree: StateTreeRows?
        private var x = 0, y = 0, count: Int? = nil, line: Int
        private var ended = false
        /// Cells past state 1 (`A`..`X`, `pA`..`yO`), in a pattern of more states.
        private var states: StateGrid?
        /// The 24s a `p`..`y` before a state letter adds.
        private var statePrefix: Int?

        init(_ header: Header) {
            self.header = header
            let held = !header.isSparse && !header.isTree
            grid = BitGrid(width: held ? header.width : 0, height: held ? header.height : 0)
            if header.isTree { tree = StateTreeRows(width: header.width, height: header.height,
                                                    what: "the squares of the RLE's \(header.width)x\(header.height) box") }
            if header.isSparse { blocks = SparseBlocks(what: "the live cells of the RLE's \(header.width)x\(header.height) box",
                                                          width: header.width, height: header.height) }
            line = header.bodyLine
        }

        private func fail(_ problem: String) -> TesseraError {
            TesseraError("RLE line \(line): \(problem)", fix: "fix the pattern file (runs are [count]b, [count]o or [count]$, ending with !)")
        }

        /// Reads the next piece of the data; anything after `!` is ignored.
        mutating func read(_ bytes: UnsafeBufferPointer<UInt8>) throws {
            for byte in bytes {
                if ended { return }
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let value = (count ?? 0) * 10 + Int(byte - UInt8(ascii: "0"))
                    guard value <= 1 << 31 else { throw fail("run count is too large") }
                    count = value
                case UInt8(ascii: "p")...UInt8(ascii: "y") where statePrefix == nil && (header.rule?.states ?? 2) > 2:
                    statePrefix = 24 * Int(byte - UInt8(ascii: "p") + 1)
                case UInt8(ascii: "b"), UInt8(ascii: "."), UInt8(ascii: "o"), UInt8(ascii: "A")...UInt8(ascii: "X"):
                    let run = count ?? 1
                    guard run > 0 else { throw fail("run count 0") }
                    guard run <= header.width - x, y < header.height else {
                        throw fail("cells beyond the declared size \(header.width)x\(header.height)")
                    }
                    let isLetter = (UInt8(ascii: "A")...UInt8(ascii: "X")).contains(byte)
                    let state = byte == UInt8(ascii: "o") ? 1 : isLetter ? (statePrefix ?? 0) + Int(byte - UInt8(ascii: "A")) + 1 : 0
                    guard statePrefix == nil || state > 0 else { throw fail("a state letter p..y with no A..X after it") }
                    if state > 0, tree != nil {
                        guard state < header.rule!.states else { throw outOfRange(state) }
                        try tree!.setRun(y: y, x: x, count: run, state: state)
                    } else if state > 0 {
                        if blocks != nil { try blocks!.setRun(y: y, x: x, count: run) } else { grid.setRun(y: y, x: x, count: run) }
                        if state > 1 { try setState(state, run: run) }
                    }
                    x += run
                    count = nil
                    statePrefix = nil
                case UInt8(ascii: "$"):
                    let run = count ?? 1
                    guard run > 0 else { throw fail("run count 0") }
                    // Past the last row is fine while no cell comes there (`y < height` above).
                    y = min(y + run, header.height)
                    x = 0
                    count = nil
                case UInt8(ascii: "!"):
                    guard count == nil else { throw fail("a count with no run before '!'") }
                    ended = true
                case UInt8(ascii: "\n"):
                    line += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    continue
                default:
                    let shown = String(decoding: [byte], as: UTF8.self)
                    throw fail("unexpected character '\(shown)' (only two-state b/o patterns are supported)")
                }
            }
        }

        /// Cells of a state past 1, which a rule of that many states must hold.
        private mutating func setState(_ state: Int, run: Int) throws {
            guard blocks == nil else { throw fail("cells of more than two states in a box this large are not read yet") }
            let most = header.rule?.states ?? 2
            guard state < most else { throw outOfRange(state) }
            if states == nil { states = StateGrid(width: header.width, height: header.height, states: most) }
            for i in 0..<run { states![x + i, y] = state }
        }

        private func outOfRange(_ state: Int) -> TesseraError {
            fail("cell state \(state) is out of range for rule \(header.rule ?? .life)")
        }

        /// The pattern, once the data has ended with `!`. Its states are taken from the
        /// reader, not copied (a million-cell-wide JvN tape's planes are 100 MB).
        mutating func pattern() throws -> Pattern {
            guard ended else {
                throw TesseraError("RLE ends without '!'", fix: "end the pattern data with '!' (the file may be truncated)")
            }
            if tree != nil {
                // On the unbounded plane the box's top-left is at its position, or the origin.
                var pattern = Pattern(cells: BitGrid(width: 0, height: 0), position: header.position, rule: header.rule,
                                      board: header.board, generation: header.generation, comments: header.comments)
                (pattern.stateTree, pattern.extent) = (try tree!.tree(left: header.position?.x ?? 0, top: header.position?.y ?? 0),
                                                       (header.width, header.height))
                return pattern
            }
            if let blocks {
                return Pattern(parts: blocks.parts(), extent: (header.width, header.height),
                               position: header.position,
                               rule: header.rule, board: header.board, generation: header.generation, comments: header.comments)
            }
            var pattern = Pattern(cells: grid, position: header.position, rule: header.rule, board: header.board,
                                  generation: header.generation, comments: header.comments)
            if let most = header.rule?.states, most > 2 {
                var all = states.take() ?? StateGrid(width: grid.width, height: grid.height, states: most)
                all.setOnes(grid)
                pattern.states = all
            }
            return pattern
        }
    }

    /// Reads RLE from `handle` a megabyte at a time: only the pattern's cells, at 1 bit
    /// each, are ever held whole.
    static func read(_ file: InputFile, startingWith first: Data) throws -> Pattern {
        var buffered = first, atEnd = false
        var header: (Header, body: Int)?
        while header == nil {
            header = try buffered.withUnsafeBytes { try Header.parse($0.bindMemory(to: UInt8.self), complete: atEnd) }
            guard header == nil else { break }
            let chunk = try file.read(upTo: 1 << 20)
            atEnd = chunk.isEmpty
            buffered.append(chunk)
        }
        guard let (parsed, bodyStart) = header else { throw Header.missing }
        var body = Body(parsed)
        try buffered.withUnsafeBytes { try body.read(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[bodyStart...])) }
        while case let chunk = try file.read(upTo: 1 << 20), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try body.read($0.bindMemory(to: UInt8.self)) }
        }
        return try body.pattern()
    }

    /// Writes a whole board as RLE that Golly reopens as exactly the same board: the
    /// header names the bounded grid and `#CXRLE Pos` its top-left. Rows go in one at a
    /// time, so a board can be written band by band without being held whole.
    public struct Encoder: BoardEncoder {
        /// The text since the last `take()`.
        private var text: RunText
        private var pendingRows = 0
        private let width: Int

        public init(shape: BoardShape, rule: Rule, generation: UInt64) {
            // Golly names the generation only past 0.
            text = RunText(header: "#CXRLE Pos=\(shape.left),\(shape.top)\(generation > 0 ? " Gen=\(generation)" : "")\n"
                + "x = \(shape.width), y = \(shape.height), rule = \(rule)\(shape.gollySuffix)\n")
            width = shape.width
        }

        /// A run of `count` cells tagged `tag`, wrapped as Golly's two-state writer wraps.
        private mutating func emit(_ count: Int, _ tag: UInt8) { text.run(count, tag, room: 1) }

        public mutating func append(_ words: ArraySlice<UInt64>) {
            append(words, at: 0, width: width)
        }

        public mutating func append(_ words: ArraySlice<UInt64>, at x: Int, width: Int) {
            var row = RowRuns()
            add(words, at: x, width: width, to: &row)
            end(row)
        }

        /// Adds the next row, given as pieces that start `x` cells from its left, in
        /// order and apart: the row of a board that is mostly empty space.
        public mutating func append(segments: [(x: Int, words: ArraySlice<UInt64>, width: Int)]) {
            var row = RowRuns()
            for segment in segments { add(segment.words, at: segment.x, width: segment.width, to: &row) }
            end(row)
        }

        /// Where a row's runs have reached: a run is held back until the next one is
        /// known not to continue it (segments side by side, squares of a pattern written
        /// part by part, may split one run).
        private struct RowRuns {
            var x = 0, live = 0
        }

        private mutating func add(_ words: ArraySlice<UInt64>, at left: Int, width: Int, to row: inout RowRuns) {
            for run in Runs(words: words, width: width) {
                let start = left + run.start
                if row.live > 0 && start == row.x {
                    row.live += run.count
                    row.x += run.count
                    continue
                }
                if pendingRows > 0 {
                    emit(pendingRows, UInt8(ascii: "$"))
                    pendingRows = 0
                }
                if row.live > 0 { emit(row.live, UInt8(ascii: "o")) }
                if start > row.x { emit(start - row.x, UInt8(ascii: "b")) }
                (row.live, row.x) = (run.count, start + run.count)
            }
        }

        private mutating func end(_ row: RowRuns) {
            if row.live > 0 { emit(row.live, UInt8(ascii: "o")) }
            pendingRows += 1
        }

        /// Adds `count` empty rows.
        public mutating func skip(rows count: Int) { pendingRows += count }

        public mutating func finish() {
            // The closing `!` wraps like a run, as Golly's writer wraps it.
            emit(1, UInt8(ascii: "!"))
            text.endLine()
        }

        public mutating func take() -> String { text.take() }
    }

    /// An RLE's text as bytes, its runs wrapped as Golly's writers wrap them: a large
    /// board's RLE is tens of megabytes of runs, each a few characters, which Strings
    /// appended one by one spent most of the writer's time on.
    struct RunText {
        /// The text since the last `take()`.
        private(set) var bytes: [UInt8]
        /// Characters on the line being written.
        private var lineLength = 0

        init(header: String) { bytes = Array(header.utf8) }

        /// A run of `count` cells tagged `letter` (after `prefix`, where not 0), on a new
        /// line where its count and `room` more would take the line past 70 characters:
        /// Golly's two-state writer counts 1 for the tag, its AddRun 2 for a multi-state
        /// token, whatever its length.
        mutating func run(_ count: Int, _ letter: UInt8, prefix: UInt8 = 0, room: Int) {
            var digits = 0
            if count > 1 {
                var rest = count
                repeat { (digits, rest) = (digits + 1, rest / 10) } while rest > 0
            }
            if lineLength + digits + room > 70 { endLine() }
            // The count's digits written in place, last first, rather than made a String.
            let first = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: digits))
            var rest = count
            for at in stride(from: first + digits - 1, through: first, by: -1) {
                bytes[at] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            if prefix != 0 { bytes.append(prefix) }
            bytes.append(letter)
            lineLength += digits + (prefix != 0 ? 2 : 1)
        }

        mutating func endLine() {
            bytes.append(UInt8(ascii: "\n"))
            lineLength = 0
        }

        /// The text so far, let go.
        mutating func take() -> String {
            defer { bytes.removeAll(keepingCapacity: true) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// A `BitGrid` board as RLE (see `Encoder`).
    public static func string(for grid: BitGrid, shape: BoardShape, rule: Rule, generation: UInt64) -> String {
        var encoder = Encoder(shape: shape, rule: rule, generation: generation)
        return encoder.encode(grid)
    }
}

/// The runs of live cells in one row of words.
struct Runs: Sequence, IteratorProtocol {
    let words: ArraySlice<UInt64>
    let width: Int
    var position = 0

    init(words: ArraySlice<UInt64>, width: Int) {
        self.words = words
        self.width = width
    }

    /// Index of the first cell at or after `x` whose state is `alive`, or `width`.
    private func next(_ alive: Bool, from x: Int) -> Int {
        var x = x
        while x < width {
            var word = words[words.startIndex + x >> 6]
            if !alive { word = ~word }
            word >>= UInt64(x & 63)
            if word != 0 { return Swift.min(width, x + word.trailingZeroBitCount) }
            x = (x | 63) + 1
        }
        return width
    }

    mutating func next() -> (start: Int, count: Int)? {
        let start = next(true, from: position)
        guard start < width else { return nil }
        let end = next(false, from: start)
        position = end
        return (start, end - start)
    }
}
