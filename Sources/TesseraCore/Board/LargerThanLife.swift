import CTesseraKernel

/// A Larger than Life rule as Golly 3.3 reads and names it (gollybase/ltlalgo.cpp):
/// `R5,C0,M1,S34..58,B34..45,NM`, or Kellie Evans's `5,34,45,34,58` (range, birth
/// low and high, survival low and high). A cell counts the live cells within `range`
/// of it, in the neighbourhood's shape, itself too where `countsItself` (M1); a dead
/// cell is born where the count lies in `birth`, a live one survives where it lies in
/// `survival`. C0 and C2 are two states (Golly writes C0); with more, a live cell
/// that does not survive counts up through them to 0, as in Generations (history).
public struct LargerThanLife: Hashable, Sendable, CustomStringConvertible {
    public enum Shape: Character, Sendable {
        /// The (2r+1)² box.
        case moore = "M"
        /// The diamond |dx| + |dy| ≤ r.
        case vonNeumann = "N"
        /// The disc: row dy spans |dx| ≤ w where w is the largest with w² + dy² ≤ r² + r.
        case circular = "C"
    }

    public let range: Int
    public let countsItself: Bool
    public let survival: ClosedRange<Int>
    public let birth: ClosedRange<Int>
    public let shape: Shape
    /// 2, or the history states' count (C3 to C256).
    public let states: Int

    /// Golly's largest range.
    public static let largestRange = 500

    /// Golly's canonical name, without a bounded grid's suffix.
    public var description: String {
        "R\(range),C\(states > 2 ? states : 0),M\(countsItself ? 1 : 0),S\(survival.lowerBound)..\(survival.upperBound),"
            + "B\(birth.lowerBound)..\(birth.upperBound),N\(shape.rawValue)"
    }

    /// Whether an empty cell with no live cell in range is born, which Golly allows
    /// only on a bounded grid.
    public var bornFromNothing: Bool { birth.lowerBound == 0 }

    /// The half-width of each of the neighbourhood's 2r+1 rows, from the top.
    public var rowReach: [Int] {
        (-range...range).map { dy in
            switch shape {
            case .moore: return range
            case .vonNeumann: return range - abs(dy)
            case .circular:
                var w = 0
                while (w + 1) * (w + 1) + dy * dy <= range * range + range { w += 1 }
                return w
            }
        }
    }

    /// The most cells a count may find, as Golly bounds S and B.
    var largestCount: Int { rowReach.reduce(0) { $0 + 2 * $1 + 1 } - (countsItself ? 0 : 1) }

    /// Parses Golly's two syntaxes; nil where the text is neither. A rule in them that
    /// Golly refuses, or that needs more than two states, is an error naming why.
    public init?(parsing text: String) throws {
        guard let fields = Self.fields(text) else { return nil }
        func refuse(_ why: String) -> TesseraError {
            TesseraError("Larger than Life rule '\(text)': \(why)", fix: "write it as Golly does, such as R5,C0,M1,S34..58,B34..45,NM")
        }
        guard fields.range >= 1 else { throw refuse("R value is too small") }
        guard fields.range <= Self.largestRange else { throw refuse("R value is too big (Golly's largest is \(Self.largestRange))") }
        guard (0...256).contains(fields.states) else { throw refuse("C value must be from 0 to 256") }
        guard (0...1).contains(fields.m) else { throw refuse("M value must be 0 or 1") }
        guard fields.survival.0 <= fields.survival.1 else { throw refuse("S minimum must be <= S maximum") }
        guard fields.birth.0 <= fields.birth.1 else { throw refuse("B minimum must be <= B maximum") }
        guard let kind = Shape(rawValue: fields.n) else { throw refuse("N must be followed by M or N or C") }
        (range, countsItself, shape, states) = (fields.range, fields.m == 1, kind, max(2, fields.states))
        (survival, birth) = (fields.survival.0...fields.survival.1, fields.birth.0...fields.birth.1)
        let most = largestCount
        guard survival.lowerBound >= 0, survival.upperBound <= most else { throw refuse("S value must be from 0 to \(most)") }
        guard birth.lowerBound >= 0, birth.upperBound <= most else { throw refuse("B value must be from 0 to \(most)") }
    }

    private struct Fields {
        var range = 0, states = 0, m = 1
        var survival = (0, 0), birth = (0, 0)
        var n: Character = "M"
    }

    /// The numbers of `R%d,C%d,M%d,S%d..%d,B%d..%d,N%c` or `%d,%d,%d,%d,%d`, read as
    /// Golly's sscanf reads them; nil where neither matches the whole text.
    private static func fields(_ text: String) -> Fields? {
        var scanner = Scanner(Array(text.utf8))
        var f = Fields()
        if scanner.take("R"), let r = scanner.int(), scanner.take(",C"), let c = scanner.int(), scanner.take(",M"),
           let m = scanner.int(), scanner.take(",S"), let s1 = scanner.int(), scanner.take(".."), let s2 = scanner.int(),
           scanner.take(",B"), let b1 = scanner.int(), scanner.take(".."), let b2 = scanner.int(), scanner.take(",N"),
           let n = scanner.character(), scanner.atEnd {
            (f.range, f.states, f.m, f.survival, f.birth, f.n) = (r, c, m, (s1, s2), (b1, b2), n)
            return f
        }
        scanner = Scanner(Array(text.utf8))
        if let r = scanner.int(), scanner.take(","), let b1 = scanner.int(), scanner.take(","), let b2 = scanner.int(),
           scanner.take(","), let s1 = scanner.int(), scanner.take(","), let s2 = scanner.int(), scanner.atEnd {
            (f.range, f.survival, f.birth) = (r, (s1, s2), (b1, b2))
            return f
        }
        return nil
    }

    /// Just what sscanf's `%d`, `%c` and literal text need.
    private struct Scanner {
        let bytes: [UInt8]
        var at = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { at == bytes.count }

        mutating func take(_ literal: String) -> Bool {
            let expected = Array(literal.utf8)
            guard bytes.count - at >= expected.count, Array(bytes[at..<at + expected.count]) == expected else { return false }
            at += expected.count
            return true
        }

        /// An optionally signed decimal, after any spaces, as `%d` reads it (bounded, so
        /// that a huge number is refused rather than wrapped).
        mutating func int() -> Int? {
            while at < bytes.count, bytes[at] == UInt8(ascii: " ") { at += 1 }
            var sign = 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "-") || bytes[at] == UInt8(ascii: "+") {
                if bytes[at] == UInt8(ascii: "-") { sign = -1 }
                at += 1
            }
            var value = 0, digits = 0
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]), digits < 12 {
                value = value * 10 + Int(bytes[at] - UInt8(ascii: "0"))
                at += 1
                digits += 1
            }
            return digits == 0 ? nil : sign * value
        }

        mutating func character() -> Character? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return Character(Unicode.Scalar(bytes[at]))
        }
    }

    /// One generation of `cells` into `next` (the same size): a torus where `wraps`, else
    /// dead beyond the edges; bands of its rows on every core where `onEveryCore` and the
    /// kernel steps bands (`RowBands`, `tessera_ltl_steps_rows`: all but the diamond's).
    public func step(_ cells: BitGrid, into next: inout BitGrid, wraps: Bool, using kernel: Kernel.Implementation = Kernel.best,
                     onEveryCore: Bool = false) throws {
        precondition(next.width == cells.width && next.height == cells.height)
        guard cells.width > 0, cells.height > 0 else { return }
        try cells.words.withUnsafeBufferPointer { source in
            try next.withUnsafeMutableWords { target in
                try step(source.baseAddress!, into: target.baseAddress!, stride: cells.wordsPerRow, width: cells.width,
                         height: cells.height, wraps: wraps, using: kernel, onEveryCore: onEveryCore)
            }
        }
    }

    /// One generation of a tile's buffer `cells` into `next` (the same size), dead beyond
    /// its edges.
    package func step(_ cells: CellBuffer, into next: CellBuffer, using kernel: Kernel.Implementation) throws {
        precondition(next.width == cells.width && next.height == cells.height && next.stride == cells.stride)
        try step(cells.row(0), into: next.row(0), stride: cells.stride, width: cells.width, height: cells.height, wraps: false,
                 using: kernel)
    }

    /// One generation of the rows of `width` cells, `stride` words apart, at `source`
    /// into those at `target`.
    private func step(_ source: UnsafePointer<UInt64>, into target: UnsafeMutablePointer<UInt64>, stride: Int, width: Int,
                      height: Int, wraps: Bool, using kernel: Kernel.Implementation, onEveryCore: Bool = false) throws {
        try kernel.checkSupported()
        // The kernel counts in 32 bits: a row's prefix sums of column counts (each at most
        // 2r + 1) reach (width + 2r)(2r + 1).
        let side = Double(2 * range + 1)
        guard width < Int(Int32.max), height < Int(Int32.max), (Double(width) + side) * side < Double(Int32.max) else {
            throw TesseraError("a \(width)-wide board is past what Larger than Life's range \(range) counts here",
                               fix: "give a narrower bounded grid")
        }
        let stepped = withKernelRule { rule in
            let avx2: Int32 = kernel == .avx2 ? 1 : 0
            guard onEveryCore, tessera_ltl_steps_rows(rule, Int32(width)) != 0 else {
                return tessera_ltl_step(rule, source, target, stride, Int32(width), Int32(height), wraps ? 1 : 0, avx2) != 0
            }
            let memory = BandMemory(rule: rule, sources: [source], targets: [target])
            return RowBands.step(rows: height, width: width, onEveryCore: true) { rows in
                tessera_ltl_step_rows(memory.rule, memory.sources[0], memory.targets[0], stride, Int32(width), Int32(height),
                                      wraps ? 1 : 0, avx2, Int32(rows.lowerBound), Int32(rows.upperBound)) != 0
            }
        }
        guard stepped else {
            throw TesseraError("no memory for Larger than Life's scratch rows of a \(width)-wide board", fix: "free some memory")
        }
    }

    /// Calls `body` with the rule as the kernel takes it, valid for the call.
    package func withKernelRule<R>(_ body: (UnsafePointer<tessera_ltl_rule>) throws -> R) rethrows -> R {
        let reach = shape == .moore ? nil : rowReach.map(Int32.init)
        return try (reach ?? []).withUnsafeBufferPointer { reachRows in
            var rule = tessera_ltl_rule(range: Int32(range), countsItself: countsItself ? 1 : 0,
                                        birthLow: Int32(birth.lowerBound), birthHigh: Int32(birth.upperBound),
                                        surviveLow: Int32(survival.lowerBound), surviveHigh: Int32(survival.upperBound),
                                        reach: reach == nil ? nil : reachRows.baseAddress)
            return try body(&rule)
        }
    }
}
