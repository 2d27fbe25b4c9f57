/// A Life-like rule, `B…/S…`: which neighbour counts give birth to a dead cell and
/// which keep a live cell alive.
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
            (0...8).filter { mask >> $0 & 1 == 1 }.map(String.init).joined()
        }
        return "B\(digits(birth))/S\(digits(survive))"
    }

    /// Parses `B3/S23`, `S23/B3`, `b3s23` or the older `23/3` (survive/birth).
    /// B0 rules are refused: on a bounded grid Golly would need a different emulation.
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
            var seen = Set<Character>()
            for ch in lower {
                switch ch {
                case "b", "s":
                    guard !seen.contains(ch) else { throw invalid }
                    seen.insert(ch)
                    target = ch
                case "/":
                    continue
                case "0"..."8":
                    guard let target else { throw invalid }
                    let bit = UInt16(1) << UInt16(ch.wholeNumberValue!)
                    if target == "b" { birth |= bit } else { survive |= bit }
                default:
                    throw invalid
                }
            }
        } else {
            let parts = lower.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw invalid }
            for (part, isBirth) in [(parts[0], false), (parts[1], true)] {
                for ch in part {
                    guard let n = ch.wholeNumberValue, n <= 8 else { throw invalid }
                    if isBirth { birth |= 1 << UInt16(n) } else { survive |= 1 << UInt16(n) }
                }
            }
        }
        if birth & 1 == 1 {
            throw TesseraError(
                "rule '\(text)' has B0 (cells born with no neighbours), which Tessera does not emulate",
                fix: "choose a rule without B0")
        }
        self.init(birth: birth, survive: survive)
    }
}
