// Two-state rule notation, parsed and named exactly as Golly 3.3's QuickLife
// does it (gollybase/liferules.cpp, liferules::setrule and createCanonicalName,
// plus the table flip in qlifealgo::setrule). Golly's quirks are kept on
// purpose: the canonical name must match what bgolly writes byte for byte.

/// A two-state rule as a truth table over the 3x3 neighbourhood.
/// Index bits: bit 0 = NW, 1 = N, 2 = NE, 3 = W, 4 = centre, 5 = E, 6 = SW, 7 = S, 8 = SE
/// (bit k of the index is cell (k % 3, k / 3) of the 3x3, x right, y down).
/// `words[i >> 6] >> (i & 63) & 1` is the next state of the centre cell.
package struct RuleTable: Hashable, Sendable {
    package var words: [UInt64]   // exactly 8

    package init(words: [UInt64]) {
        precondition(words.count == 8, "a rule table has 512 bits")
        self.words = words
    }

    /// Builds the table from a predicate over the index.
    package init(_ next: (Int) -> Bool) {
        var words = [UInt64](repeating: 0, count: 8)
        for index in 0..<512 where next(index) {
            words[index >> 6] |= 1 << UInt64(index & 63)
        }
        self.init(words: words)
    }

    package func next(_ index: Int) -> Bool {
        words[index >> 6] >> UInt64(index & 63) & 1 != 0
    }
}

package enum RuleNotation {
    /// nil when Golly's QuickLife would not accept `text` as a two-state rule.
    /// `canonical` is exactly the rule name Golly writes for it.
    /// Wolfram rules (`W22`) are `Rule`'s to read, not this; the caller strips any
    /// bounded-grid suffix (from ':' on) beforehand.
    package static func parse(_ text: String) -> (table: RuleTable, canonical: String)? {
        let bytes = Array(text.utf8)
        // Golly's MAXRULESIZE; it also counts the suffix, which the caller strips.
        guard bytes.count <= 500 else { return nil }
        let rule = bytes.drop { $0 == ascii(" ") }
        if rule.count >= 3, rule.prefix(3).map(lowercased) == Array("map".utf8) {
            return parseMap(rule.dropFirst(3))
        }
        guard let spec = TidyRule(rule), let parts = spec.birthAndSurvival() else { return nil }
        var builder = RuleBuilder(neighbourhood: spec.neighbourhood)
        if spec.totalistic {
            builder.addTotalistic(parts.birth, survival: false)
            builder.addTotalistic(parts.survival, survival: true)
        } else {
            builder.addHensel(parts.birth, survival: false)
            builder.addHensel(parts.survival, survival: true)
        }
        return (RuleTable { builder.table[$0] }, builder.canonicalName())
    }

    /// `MAP` + base64 bit string, one bit per neighbourhood configuration.
    private static func parseMap(_ body: ArraySlice<UInt8>) -> (table: RuleTable, canonical: String)? {
        var digits = body
        if digits.count > 2, digits.suffix(2).elementsEqual("==".utf8) {
            digits = digits.dropLast(2)
        }
        let neighbourhoods: [Neighbourhood] = [.moore, .hexagonal, .vonNeumann]
        guard let neighbourhood = neighbourhoods.first(where: { $0.mapLength == digits.count }) else {
            return nil
        }
        let values = digits.compactMap(base64Value)
        guard values.count == digits.count else { return nil }
        let table = RuleTable { index in
            let bit = neighbourhood.mapBitIndex(index)
            return values[bit / 6] >> (5 - bit % 6) & 1 != 0
        }
        // Golly 3.3 echoes the digits as given, even the unused low bits of the
        // last one (later versions clear them).
        return (table, "MAP" + String(decoding: digits, as: UTF8.self))
    }
}

// Helpers live inside RuleNotation so their short names cannot clash with
// the project's own types.
extension RuleNotation {
    // MARK: - Neighbourhoods

    /// The cells a rule looks at, as `RuleTable` index bits, listed in the order
    /// (most significant first) in which they form the index into a MAP bit string.
    private struct Neighbourhood: Equatable {
        let cells: [Int]
        /// Letter Golly appends to a B/S name.
        let suffix: String

        static let moore = Neighbourhood(cells: Array(0...8), suffix: "")
        static let vonNeumann = Neighbourhood(cells: [1, 3, 4, 5, 7], suffix: "V")
        /// Golly's hexagonal grid drops the NE and SW corners. It builds hex tables
        /// upside down and QuickLife flips the finished table, so MAP bits for hex
        /// rules run S, SE, W, C, E, NW, N rather than in reading order.
        static let hexagonal = Neighbourhood(cells: [7, 8, 3, 4, 5, 0, 1], suffix: "H")

        /// Highest neighbour count a digit may name.
        var size: Int { cells.count - 1 }

        /// Base64 digits in a MAP string: 2^(size+1) bits, six per digit, rounded up.
        var mapLength: Int { ((1 << cells.count) + 5) / 6 }

        func mapBitIndex(_ index: Int) -> Int {
            cells.reduce(0) { $0 << 1 | index >> $1 & 1 }
        }

        /// Live neighbours, not counting the centre.
        func neighbourCount(_ index: Int) -> Int {
            cells.filter { $0 != 4 && index >> $0 & 1 != 0 }.count
        }
    }

    // MARK: - Tidying

    /// The rule text lower-cased with spaces removed, plus what Golly's first pass
    /// over it records (liferules::setrule up to the split into birth and survival).
    private struct TidyRule {
        var chars: [UInt8] = []
        var birthMark: Int?
        var survivalMark: Int?
        var slash: Int?
        var underscore: Int?
        var neighbourhood = Neighbourhood.moore
        /// Cleared by any Hensel letter or minus sign anywhere in the text.
        var totalistic = true
        var maxDigit = 0

        init?(_ text: ArraySlice<UInt8>) {
            for byte in text {
                let c = lowercased(byte)
                switch c {
                case ascii(" "):
                    continue
                case ascii("b"):
                    guard birthMark == nil else { return nil }
                    birthMark = chars.count
                case ascii("s"):
                    guard survivalMark == nil else { return nil }
                    survivalMark = chars.count
                case ascii("/"):
                    guard slash == nil else { return nil }
                    slash = chars.count
                case ascii("_"):
                    guard underscore == nil else { return nil }
                    underscore = chars.count
                case ascii("h"), ascii("v"):
                    guard neighbourhood == .moore else { return nil }
                    neighbourhood = c == ascii("h") ? .hexagonal : .vonNeumann
                case ascii("w") where chars.isEmpty:
                    return nil   // a leading W makes it a Wolfram rule
                case ascii("-"):
                    guard let last = chars.last, digitValue(last) != nil else { return nil }
                    totalistic = false
                default:
                    if let digit = digitValue(c) {
                        maxDigit = max(maxDigit, digit)
                    } else if henselLetters.contains(c) {
                        totalistic = false
                    } else {
                        return nil
                    }
                }
                chars.append(c)
            }
            guard !chars.isEmpty, slash == nil || underscore == nil else { return nil }
            // Golly only allows '_' as the separator in non-totalistic rules.
            guard underscore == nil || !totalistic else { return nil }
            if underscore != nil { slash = underscore }
            if neighbourhood != .moore {
                // The H or V must be the last character; it plays no further part.
                guard chars.last == ascii("h") || chars.last == ascii("v") else { return nil }
                chars.removeLast()
            }
            guard slash != nil || birthMark != nil || survivalMark != nil,
                  maxDigit <= neighbourhood.size else { return nil }
            if let slash, let b = birthMark, let s = survivalMark, (b < slash) == (s < slash) {
                return nil
            }
        }

        /// Golly's split into birth and survival parts, quirks included: with no
        /// separator anything before the first of B and S is ignored, and a lone
        /// B or S claims the whole text ("23b3" is birth 233, no survival).
        func birthAndSurvival() -> (birth: [UInt8], survival: [UInt8])? {
            let birth: [UInt8]
            let survival: [UInt8]
            if let slash {
                let before = Array(chars[..<slash])
                let after = Array(chars[(slash + 1)...])
                let birthFirst: Bool
                if birthMark == nil && survivalMark == nil {
                    birthFirst = false   // plain "23/3" is survival/birth
                } else {
                    birthFirst = (birthMark.map { $0 < slash } ?? false)
                        || (survivalMark.map { $0 > slash } ?? false)
                }
                birth = (birthFirst ? before : after).filter { $0 != ascii("b") }
                survival = (birthFirst ? after : before).filter { $0 != ascii("s") }
            } else if let b = birthMark, let s = survivalMark {
                birth = Array(chars[(b + 1)..<(b < s ? s : chars.count)])
                survival = Array(chars[(s + 1)..<(s < b ? b : chars.count)])
            } else if birthMark != nil {
                birth = chars.filter { $0 != ascii("b") }
                survival = []
            } else {
                birth = []
                survival = chars.filter { $0 != ascii("s") }
            }
            if !totalistic {
                guard neighbourhood == .moore,
                      lettersValid(birth), lettersValid(survival) else { return nil }
            }
            return (birth, survival)
        }

        /// A non-totalistic part must start with a digit, and every letter must
        /// exist for the count it follows (none for 0 and 8). Minus signs are not
        /// checked here, so Golly 3.3 accepts mixes like "3a3-c".
        private func lettersValid(_ part: [UInt8]) -> Bool {
            guard let first = part.first else { return true }
            guard var count = digitValue(first) else { return false }
            for c in part {
                if let digit = digitValue(c) {
                    count = digit
                } else if c != ascii("-") {
                    guard let letter = henselLetterIndex(c), letter < letterCounts[count] else { return false }
                }
            }
            return true
        }
    }

    // MARK: - Building

    /// Golly's rule state while it reads the birth and survival parts: the table,
    /// which counts were named (`rulebits`) and which letters each used.
    private struct RuleBuilder {
        let neighbourhood: Neighbourhood
        var table = [Bool](repeating: false, count: 512)
        var namedCounts = [Set<Int>](repeating: [], count: 2)   // [birth, survival]
        /// Letter bits (positions in `henselLetters`), indexed [side][count].
        var letters = [[Int]](repeating: [Int](repeating: 0, count: 9), count: 2)
        /// Counts where some letter followed a '-', indexed by side.
        var negated = [Set<Int>](repeating: [], count: 2)

        init(neighbourhood: Neighbourhood) {
            self.neighbourhood = neighbourhood
        }

        /// A totalistic part holds nothing but digits once B and S are removed.
        mutating func addTotalistic(_ part: [UInt8], survival: Bool) {
            for c in part {
                setTotalistic(digitValue(c)!, survival: survival)
            }
        }

        /// liferules::setRuleFromString. A digit without letters, or followed by
        /// '-', first sets every configuration of that count; letters then set
        /// (or, after '-', clear) their configurations.
        mutating func addHensel(_ part: [UInt8], survival: Bool) {
            var i = 0
            while i < part.count {
                guard let count = digitValue(part[i]) else {
                    i += 1
                    continue
                }
                i += 1
                if i == part.count || henselLetterIndex(part[i]) == nil {
                    setTotalistic(count, survival: survival)
                }
                let normal = i == part.count || part[i] != ascii("-")
                if !normal { i += 1 }
                while i < part.count, let letter = henselLetterIndex(part[i]) {
                    setLetter(letter, count: count, survival: survival, normal: normal)
                    i += 1
                }
            }
        }

        /// Golly fills a count only the first time it is named, so in "3a3" the
        /// bare 3 adds nothing.
        private mutating func setTotalistic(_ count: Int, survival: Bool) {
            let side = survival ? 1 : 0
            guard namedCounts[side].insert(count).inserted else { return }
            for index in 0..<512 where index >> 4 & 1 == side && neighbourhood.neighbourCount(index) == count {
                table[index] = true
            }
        }

        private mutating func setLetter(_ letter: Int, count: Int, survival: Bool, normal: Bool) {
            let side = survival ? 1 : 0
            namedCounts[side].insert(count)
            letters[side][count] |= 1 << letter
            if !normal { negated[side].insert(count) }
            // Counts above 4 are the complements of those below (centre kept).
            var representative = henselNeighbourhoods[min(count, 8 - count)][letter]
            if count > 4 { representative ^= 0x1ef }
            if survival { representative |= 0x10 }
            for index in symmetricImages(representative) {
                table[index] = normal
            }
        }

        /// liferules::createCanonicalName for B/S rules.
        func canonicalName() -> String {
            "B" + canonicalPart(side: 0) + "/S" + canonicalPart(side: 1) + neighbourhood.suffix
        }

        private func canonicalPart(side: Int) -> String {
            var text = ""
            for count in 0...neighbourhood.size where namedCounts[side].contains(count) {
                if let letters = canonicalLetters(side: side, count: count) {
                    text += String(count) + letters
                }
            }
            return text
        }

        /// liferules::addLetters: written from the recorded letters, not from the
        /// table. Picks the negated form when it is shorter (but keeps 7 plain
        /// letters of 13 as they are); nil means Golly drops the count entirely
        /// (every letter negated).
        private func canonicalLetters(side: Int, count: Int) -> String? {
            var bits = letters[side][count]
            guard bits != 0 else { return "" }
            var negative = negated[side].contains(count)
            let available = letterCounts[count]
            let used = bits.nonzeroBitCount
            let keepSevenOfThirteen = !negative && used == 7 && available == 13
            if !keepSevenOfThirteen && used + (negative ? 1 : 0) > available / 2 {
                bits = ~bits & (1 << available - 1)
                if bits != 0 { negative.toggle() }
            }
            if negative && bits == 0 { return nil }
            let names = henselLetters.enumerated().filter { bits >> $0.offset & 1 != 0 }.map(\.element).sorted()
            return (negative ? "-" : "") + String(decoding: names, as: UTF8.self)
        }
    }

    // MARK: - Hensel letters

    /// Golly's letter order; bit positions in `RuleBuilder.letters` follow it.
    private static let henselLetters = Array("ceaiknjqrytwz".utf8)

    /// How many of `henselLetters` (a prefix) exist for each neighbour count.
    private static let letterCounts = [0, 2, 6, 10, 13, 10, 6, 2, 0]

    /// One configuration per letter for counts 1...4 (liferules' rule_neighborhoods),
    /// indexed [count][letter]. Every letter names a set closed under rotation and
    /// reflection, so these work unchanged in `RuleTable`'s orientation.
    private static let henselNeighbourhoods: [[Int]] = [
        [],
        [1, 2],
        [5, 10, 3, 40, 33, 68],
        [69, 42, 11, 7, 98, 13, 14, 70, 41, 97],
        [325, 170, 15, 45, 99, 71, 106, 102, 43, 101, 105, 78, 108],
    ]

    /// The images of a configuration under the 8 symmetries of the square.
    private static func symmetricImages(_ index: Int) -> [Int] {
        let maps: [(Int, Int) -> (Int, Int)] = [
            { ($0, $1) }, { (2 - $0, $1) }, { ($0, 2 - $1) }, { (2 - $0, 2 - $1) },
            { ($1, $0) }, { (2 - $1, $0) }, { ($1, 2 - $0) }, { (2 - $1, 2 - $0) },
        ]
        return maps.map { map in
            (0..<9).filter { index >> $0 & 1 != 0 }.reduce(0) { image, cell in
                let (x, y) = map(cell % 3, cell / 3)
                return image | 1 << (y * 3 + x)
            }
        }
    }

    private static func henselLetterIndex(_ c: UInt8) -> Int? {
        henselLetters.firstIndex(of: c)
    }

    // MARK: - Characters

    private static func ascii(_ scalar: Unicode.Scalar) -> UInt8 {
        UInt8(ascii: scalar)
    }

    private static func lowercased(_ c: UInt8) -> UInt8 {
        (ascii("A")...ascii("Z")).contains(c) ? c + 32 : c
    }

    /// 0 through 8; Golly treats '9' as a bad character outside Wolfram rules.
    private static func digitValue(_ c: UInt8) -> Int? {
        (ascii("0")...ascii("8")).contains(c) ? Int(c - ascii("0")) : nil
    }

    private static func base64Value(_ c: UInt8) -> Int? {
        switch c {
        case ascii("A")...ascii("Z"): Int(c - ascii("A"))
        case ascii("a")...ascii("z"): Int(c - ascii("a")) + 26
        case ascii("0")...ascii("9"): Int(c - ascii("0")) + 52
        case ascii("+"): 62
        case ascii("/"): 63
        default: nil
        }
    }
}
