import TesseraCore

/// MCell `.mcl` files as Golly 3.3 reads them (gollybase/readpattern.cpp, readmcell):
/// `#RULE` (or `#GOLLY`), `#GAME Larger than Life`, `#BOARD WxH`, `#WRAP n` and `#L`
/// lines of cells; everything else (`#D`, `#SPEED`, colours) is a comment to Golly.
///
/// Cells are written from (−⌊W/2⌋, −⌊H/2⌋) on a board (from the origin without one);
/// `#L` lines go on where the last left off. On a board the pattern is then moved by
/// ((W+1−w)/2, (H+1−h)/2) for its live box w×h, as MCell centres it, where either is
/// positive. A Larger than Life file's grid is `#BOARD`'s, a torus with `#WRAP 1`,
/// else a plane; cells off it are lost, as Golly loses them (Golly also gives a file
/// with no `#BOARD` a grid of twice the range a side, which this follows).
package enum MCell {
    /// MCell files are small (Golly's largest holds 63 thousand cells): past this many
    /// runs of cells, a file is refused rather than listed a run at a time.
    static let mostRuns = 1 << 21
    /// Golly reads `#BOARD` as C ints; past this a side is refused.
    static let largestSide = 1 << 30

    package static func parse(_ text: String) throws -> Pattern {
        var rule: String?, isLargerThanLife = false
        var (width, height, wraps) = (0, 0, false)
        var (x, y) = (0, 0)
        var live: [Run] = []
        var comments: [String] = []
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = Substring(rawLine)
            func fail(_ problem: String) -> TesseraError {
                TesseraError("MCell line \(number + 1): \(problem)", fix: "save the pattern from Golly as RLE")
            }
            if line.hasPrefix("#L ") {
                if rule == nil { rule = "B3/S23" }
                var count = 0, bytes = Array(line.utf8.dropFirst(3))[...]
                while let c = bytes.popFirst() {
                    switch c {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"):
                        count = count * 10 + Int(c - UInt8(ascii: "0"))
                        guard count <= 1 << 31 else { throw fail("run count is too large") }
                        continue
                    case ...UInt8(ascii: " "):
                        continue
                    case UInt8(ascii: "."):
                        x += max(count, 1)
                    case UInt8(ascii: "$"):
                        (x, y) = (-(width / 2), y + max(count, 1))
                    default:
                        var (letter, high) = (c, 0)
                        if (UInt8(ascii: "a")...UInt8(ascii: "j")).contains(c) {
                            (letter, high) = (bytes.popFirst() ?? 0, 24 * Int(c - UInt8(ascii: "a") + 1))
                        }
                        guard (UInt8(ascii: "A")...UInt8(ascii: "X")).contains(letter) else {
                            throw fail("illegal cell state '\(String(decoding: [c], as: UTF8.self))'")
                        }
                        guard live.count < Self.mostRuns else {
                            throw fail("more than \(Self.mostRuns) runs of cells, more than an MCell file holds here")
                        }
                        let length = max(count, 1)
                        live.append(Run(x: x, y: y, count: length, state: high + Int(letter - UInt8(ascii: "A")) + 1))
                        x += length
                    }
                    count = 0
                }
            } else if line.hasPrefix("#GAME Larger than Life") {
                isLargerThanLife = true
            } else if line.hasPrefix("#BOARD ") {
                let sizes = line.dropFirst(7).split(separator: "x", maxSplits: 1)
                guard sizes.count == 2, let w = Int(sizes[0].trimmingWhitespace), let h = Int(sizes[1].trimmingWhitespace),
                      (0...Self.largestSide).contains(w), (0...Self.largestSide).contains(h) else {
                    throw fail("'#BOARD' is not WIDTHxHEIGHT with sides up to \(Self.largestSide)")
                }
                (width, height) = (w, h)
                (x, y) = (-(w / 2), -(h / 2))
            } else if line.hasPrefix("#WRAP ") {
                wraps = Int(line.dropFirst(6).trimmingWhitespace).map { $0 != 0 } ?? false
            } else if rule == nil, line.hasPrefix("#RULE") || line.hasPrefix("#GOLLY") {
                let value = line.dropFirst(line.hasPrefix("#RULE") ? 5 : 6).drop { $0 == " " || $0 == "\t" }
                rule = String(value.prefix { !$0.isWhitespace })
            } else if line.hasPrefix("#") {
                comments.append(String(line))
            }
        }
        guard let ruleText = rule else { throw TesseraError("MCell file has no '#L' line of cells", fix: "save the pattern from Golly as RLE") }
        let suffix = width > 0 || height > 0 || isLargerThanLife ? ":\(wraps ? "T" : "P")\(width),\(height)" : ""
        let (parsed, board) = try BoardShape.parseRule(ruleText + suffix)
        var grid = board
        if parsed.largerThanLife == nil { grid = nil }
        // On a Larger than Life grid, a cell off it is lost as it is written.
        if let grid { live = live.compactMap { $0.clipped(to: grid) } }
        if (width > 0 || height > 0), let box = Self.box(of: live) {
            let shiftX = (width + 1 - box.width) / 2, shiftY = (height + 1 - box.height) / 2
            if shiftX > 0 || shiftY > 0 { for i in live.indices { (live[i].x, live[i].y) = (live[i].x + shiftX, live[i].y + shiftY) } }
            if let grid { live = live.compactMap { $0.clipped(to: grid) } }
        }
        guard let box = Self.box(of: live) else {
            return Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: parsed, board: board, comments: comments)
        }
        if parsed.states <= 2, RLE.Header.holdsInBlocks(width: box.width, height: box.height, board: board, states: 2) {
            var blocks = SparseBlocks(what: "the MCell file's \(box.width)x\(box.height) box of cells", width: box.width, height: box.height)
            for run in live { try blocks.setRun(y: run.y - box.top, x: run.x - box.left, count: run.count) }
            return Pattern(parts: blocks.parts(), extent: (box.width, box.height), position: (box.left, box.top),
                           rule: parsed, board: board, generation: 0, comments: comments)
        }
        // What the RLE reader would hold for the same box: an MCell file read here reads
        // back as RLE under the same budget (an estimate of the planes alone let through a
        // box whose RLE was then refused).
        try MemoryBudget.check(bytes: Pattern.bytesHeld(width: box.width, height: box.height, states: parsed.states),
                               what: "the MCell file's \(box.width)x\(box.height) box of cells", fix: "check the file's runs")
        var cells = BitGrid(width: box.width, height: box.height)
        for run in live { cells.setRun(y: run.y - box.top, x: run.x - box.left, count: run.count) }
        var pattern = Pattern(cells: cells, position: (box.left, box.top), rule: parsed, board: board, comments: comments)
        if parsed.states > 2 {
            // A state the rule cannot hold is 1, as Golly makes it.
            var states = StateGrid(width: box.width, height: box.height, states: parsed.states)
            for run in live {
                for x in run.x..<run.x + run.count { states[x - box.left, run.y - box.top] = run.state < parsed.states ? run.state : 1 }
            }
            pattern.states = states
        }
        return pattern
    }

    /// `count` cells of `state` from (`x`, `y`) rightwards: a file's run is held as one,
    /// whatever its length.
    private struct Run {
        var x: Int, y: Int, count: Int, state: Int

        var bounds: CellBounds { CellBounds(left: x, top: y, width: count, height: 1) }

        /// The part of the run on a bounded grid, if any.
        func clipped(to grid: BoardShape) -> Run? {
            bounds.intersection(CellBounds(TileRect(x: 0, y: 0, width: grid.width, height: grid.height), of: grid))
                .map { Run(x: $0.left, y: y, count: $0.width, state: state) }
        }
    }

    /// (Not `CellBounds.enclosing`, generic across modules: 250000 runs through it and a
    /// key path took a tenth of a second more.)
    private static func box(of runs: [Run]) -> CellBounds? { runs.reduce(nil) { $0?.union($1.bounds) ?? $1.bounds } }
}
