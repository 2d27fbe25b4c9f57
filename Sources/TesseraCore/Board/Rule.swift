/// A Life-like rule, `B…/S…`: which neighbour counts give birth to a dead cell and
/// which keep a live cell alive.
///
/// B0 rules (a dead cell with no live neighbour is born) are run as Golly runs them
/// (gollybase/liferules.cpp), so that results and files match Golly's: the kernel
/// never sees B0, and the cells it stores are not always the true ones (`Emulation`).
public struct Rule: Hashable, Sendable, CustomStringConvertible {
    /// Bit n set: a dead cell with n live neighbours is born.
    public let birth: UInt16
    /// Bit n set: a live cell with n live neighbours survives.
    public let survive: UInt16

    public static let life = Rule(birth: 1 << 3, survive: 1 << 2 | 1 << 3)

    public init(birth: UInt16, survive: UInt16) {
        self.birth = birth & 0x1FF
        self.survive = survive & 0x1FF
    }

    /// Golly's canonical form, e.g. `B3/S23`.
    public var description: String {
        func digits(_ mask: UInt16) -> String {
            var text = ""
            for n in 0...8 where mask >> n & 1 == 1 { text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(n)))) }
            return text
        }
        return "B\(digits(birth))/S\(digits(survive))"
    }

    /// How Golly stores the cells of a rule with B0, where an empty plane would fill.
    public enum Emulation: Sendable, Equatable {
        /// No B0: cells are stored as they are.
        case none
        /// B0 with S8: cells are stored inverted, and step by the complementary rule.
        case complement
        /// B0 without S8: cells are stored as they are at even generations and inverted
        /// at odd ones. Steps from an even generation invert their output, steps from an
        /// odd one their input. On an unbounded plane this has no meaning (an infinity of
        /// cells blinks), so Golly's HashLife refuses such rules, and so does Tessera.
        case alternating
    }

    public var emulation: Emulation {
        guard birth & 1 == 1 else { return .none }
        return survive >> 8 & 1 == 1 ? .complement : .alternating
    }

    /// The rules without B0 that the kernel applies to the stored cells, by the parity
    /// of the generation a step starts from.
    public struct Steps: Sendable, Equatable {
        public let even: Rule
        public let odd: Rule

        public func from(_ generation: UInt64) -> Rule { generation & 1 == 0 ? even : odd }
    }

    public var steps: Steps {
        // With n the count of live neighbours among the stored cells, 8 − n is the
        // count among their inverses.
        func mirrored(_ mask: UInt16) -> UInt16 {
            (0...8).reduce(0) { $0 | (mask >> (8 - $1) & 1) << $1 }
        }
        let all: UInt16 = 0x1FF
        switch emulation {
        case .none:
            return Steps(even: self, odd: self)
        case .complement:
            let rule = Rule(birth: ~mirrored(survive) & all, survive: ~mirrored(birth) & all)
            return Steps(even: rule, odd: rule)
        case .alternating:
            return Steps(even: Rule(birth: ~birth & all, survive: ~survive & all),
                         odd: Rule(birth: mirrored(survive), survive: mirrored(birth)))
        }
    }

    /// Parses `B3/S23`, `S23/B3`, `b3s23` or the older `23/3` (survive/birth).
    public init(parsing text: String) throws {
        let invalid = TesseraError(
            "unknown rule '\(text)'", fix: "give a Life-like rule such as B3/S23 (digits 0-8)")
        let lower = text.lowercased().filter { !$0.isWhitespace }
        if lower == "life" || lower == "conway" {
            self = .life
            return
        }
        var birth: UInt16 = 0, survive: UInt16 = 0
        if lower.contains("b") || lower.contains("s") {
            var target: Character? = nil
            var (seenB, seenS) = (false, false)
            for ch in lower {
                switch ch {
                case "b", "s":
                    // Each letter once: "B3/S23/B1" is no rule.
                    guard !(ch == "b" ? seenB : seenS) else { throw invalid }
                    if ch == "b" { seenB = true } else { seenS = true }
                    target = ch
                case "/":
                    continue
                default:
                    // ASCII digits only: a digit with combining marks sorts between "0"
                    // and "8" as a Character, and other scripts' digits have values too.
                    guard let target, let n = Self.neighbourCount(ch) else { throw invalid }
                    let bit = UInt16(1) << UInt16(n)
                    if target == "b" { birth |= bit } else { survive |= bit }
                }
            }
        } else {
            let parts = lower.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw invalid }
            for (part, isBirth) in [(parts[0], false), (parts[1], true)] {
                for ch in part {
                    guard let n = Self.neighbourCount(ch) else { throw invalid }
                    if isBirth { birth |= 1 << UInt16(n) } else { survive |= 1 << UInt16(n) }
                }
            }
        }
        self.init(birth: birth, survive: survive)
    }

    /// The neighbour count an ASCII digit 0–8 stands for, else nil.
    private static func neighbourCount(_ ch: Character) -> Int? {
        guard let ascii = ch.asciiValue, (UInt8(ascii: "0")...UInt8(ascii: "8")).contains(ascii) else { return nil }
        return Int(ascii - UInt8(ascii: "0"))
    }
}
