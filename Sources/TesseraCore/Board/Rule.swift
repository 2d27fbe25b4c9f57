import CTesseraKernel

/// A two-state rule: Life-like (`B…/S…`: which neighbour counts give birth to a dead
/// cell and which keep a live cell alive), any rule Golly's QuickLife runs as a table
/// over the 3x3 neighbourhood (isotropic non-totalistic, MAP, hexagonal, von Neumann),
/// or Larger than Life, which its own engine steps (`largerThanLife`).
///
/// B0 rules (a dead cell with no live neighbour is born) are run as Golly runs them
/// (gollybase/liferules.cpp), so that results and files match Golly's: the kernel
/// never sees B0, and the cells it stores are not always the true ones (`Emulation`).
public struct Rule: Hashable, Sendable, CustomStringConvertible {
    /// Bit n set: a dead cell with n live neighbours is born (a Life-like rule's; 0 for a table's).
    public let birth: UInt16
    /// Bit n set: a live cell with n live neighbours survives (a Life-like rule's; 0 for a table's).
    public let survive: UInt16
    /// The next state of every neighbourhood, where the count alone does not decide it;
    /// nil for a Life-like rule.
    package let table: RuleTable?
    /// The name Golly gives it, where that is not the digits of `birth` and `survive`:
    /// any table's, or a MAP that counts decide. Golly keeps a rule's name as written
    /// (letters in order), so two names may run the same table.
    private let name: String?
    /// A Larger than Life rule, which the 3x3 kernels never see.
    public let largerThanLife: LargerThanLife?
    /// A Generations rule of three states or more, which its own engine steps.
    public let generations: Generations?
    /// A rule from a Golly rule file (`@TABLE` or `@TREE`), which its own engine steps.
    public let tree: RuleTree?
    /// The rule as the kernels take it.
    private let compiled: CompiledRule

    public static let life = Rule(birth: 1 << 3, survive: 1 << 2 | 1 << 3)

    public init(birth: UInt16, survive: UInt16) {
        let (birth, survive) = (birth & 0x1FF, survive & 0x1FF)
        self.init(birth: birth, survive: survive, table: nil, name: nil, compiled: CompiledRule(birth: birth, survive: survive))
    }

    private init(birth: UInt16, survive: UInt16, table: RuleTable?, name: String?, largerThanLife: LargerThanLife? = nil,
                 generations: Generations? = nil, tree: RuleTree? = nil, compiled: CompiledRule) {
        (self.birth, self.survive, self.table, self.name) = (birth, survive, table, name)
        (self.largerThanLife, self.generations, self.tree, self.compiled) = (largerThanLife, generations, tree, compiled)
    }

    public init(tree: RuleTree) {
        self.init(birth: 0, survive: 0, table: nil, name: tree.name, tree: tree, compiled: CompiledRule(birth: 0, survive: 0))
    }

    public init(generations rule: Generations) {
        self.init(birth: 0, survive: 0, table: nil, name: rule.description, generations: rule,
                  compiled: CompiledRule(birth: 0, survive: 0))
    }

    /// The states a cell may be in: 2, or a Generations rule's, Larger than Life's with
    /// history, or a rule file's.
    public var states: Int { generations?.states ?? largerThanLife?.states ?? tree?.states ?? 2 }

    /// Whether the 3x3 two-state kernels (tiles, HashLife) run it; the other families
    /// have engines of their own, in this process.
    public var isTwoStateMoore: Bool { largerThanLife == nil && generations == nil && tree == nil }

    /// How far a cell's news travels in a generation: Larger than Life's range, else one cell.
    public var reach: Int { largerThanLife?.range ?? 1 }

    public init(largerThanLife rule: LargerThanLife) {
        self.init(birth: 0, survive: 0, table: nil, name: rule.description, largerThanLife: rule,
                  compiled: CompiledRule(birth: 0, survive: 0))
    }

    /// A rule given by its table, named as Golly names it; a table the neighbour count
    /// decides runs as the Life-like rule it is.
    package init(table: RuleTable, name: String) {
        if let (birth, survive) = Self.counts(of: table) {
            let digits = Rule(birth: birth, survive: survive)
            self.init(birth: birth, survive: survive, table: nil, name: name == digits.description ? nil : name,
                      compiled: digits.compiled)
            return
        }
        self.init(birth: 0, survive: 0, table: table, name: name, compiled: CompiledRule(table: table))
    }

    /// The masks of a table that depends on the cell and its count of live neighbours only.
    private static func counts(of table: RuleTable) -> (birth: UInt16, survive: UInt16)? {
        var masks: [UInt16] = [0, 0]
        var seen: [UInt16] = [0, 0]
        for index in 0..<512 {
            let alive = index >> 4 & 1, count = (index & ~(1 << 4)).nonzeroBitCount
            let bit = UInt16(1) << UInt16(count), next = table.next(index)
            if seen[alive] & bit != 0 {
                guard (masks[alive] & bit != 0) == next else { return nil }
            } else if next {
                masks[alive] |= bit
            }
            seen[alive] |= bit
        }
        return (masks[0], masks[1])
    }

    public static func == (a: Rule, b: Rule) -> Bool {
        a.birth == b.birth && a.survive == b.survive && a.table == b.table && a.largerThanLife == b.largerThanLife
            && a.generations == b.generations && a.tree == b.tree
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(birth)
        hasher.combine(survive)
        hasher.combine(table)
        hasher.combine(largerThanLife)
        hasher.combine(generations)
        hasher.combine(tree)
    }

    /// Golly's canonical form, e.g. `B3/S23` or `B2-a/S12`.
    public var description: String {
        if let name { return name }
        func digits(_ mask: UInt16) -> String {
            var text = ""
            for n in 0...8 where mask >> n & 1 == 1 { text.append(Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(n)))) }
            return text
        }
        return "B\(digits(birth))/S\(digits(survive))"
    }

    /// The next state of a cell whose neighbourhood is `index`, as `RuleTable` numbers them.
    package func next(_ index: Int) -> Bool {
        precondition(isTwoStateMoore, "\(self) has no two-state 3x3 table")
        if let table { return table.next(index) }
        let mask = index >> 4 & 1 == 1 ? survive : birth
        return mask >> (index & ~(1 << 4)).nonzeroBitCount & 1 == 1
    }

    /// Calls `body` with the rule as the kernels take it, valid for the call.
    package func withKernelRule<R>(_ body: (UnsafePointer<tessera_rule>) throws -> R) rethrows -> R {
        precondition(isTwoStateMoore, "\(self) reaches only its own engine")
        return try withExtendedLifetime(compiled) { try body(compiled.pointer) }
    }

    /// How Golly stores the cells of a rule with B0, where an empty plane would fill.
    public enum Emulation: Sendable, Equatable {
        /// No B0: cells are stored as they are.
        case none
        /// B0 with S8: cells are stored inverted, and step by the complementary rule.
        case complement
        /// B0 without S8: cells are stored as they are at even generations and inverted
        /// at odd ones. Steps from an even generation invert their output, steps from an
        /// odd one their input. The stored cells stay finite on the unbounded plane, where
        /// Golly's QuickLife runs such rules and its HashLife refuses them; so do tiles
        /// and Tessera's HashLife.
        case alternating
    }

    public var emulation: Emulation {
        let bornAlone = table?.next(0) ?? (birth & 1 == 1)
        let survivesCrowd = table?.next(511) ?? (survive >> 8 & 1 == 1)
        guard bornAlone else { return .none }
        return survivesCrowd ? .complement : .alternating
    }

    /// The rules without B0 that the kernel applies to the stored cells, by the parity
    /// of the generation a step starts from.
    public struct Steps: Sendable, Equatable {
        public let even: Rule
        public let odd: Rule

        public func from(_ generation: UInt64) -> Rule { generation & 1 == 0 ? even : odd }
    }

    public var steps: Steps {
        if let table { return tableSteps(table) }
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

    /// `steps` for a table: `~x` is the neighbourhood of the inverted cells, index 511 - x.
    private func tableSteps(_ table: RuleTable) -> Steps {
        switch emulation {
        case .none:
            return Steps(even: self, odd: self)
        case .complement:
            let rule = Rule(table: RuleTable { !table.next(511 - $0) }, name: description)
            return Steps(even: rule, odd: rule)
        case .alternating:
            return Steps(even: Rule(table: RuleTable { !table.next($0) }, name: description),
                         odd: Rule(table: RuleTable { table.next(511 - $0) }, name: description))
        }
    }

    /// Parses a two-state rule as Golly's QuickLife reads it (`RuleNotation`): `B3/S23`,
    /// `S23/B3`, `b3s23`, the older `23/3` (survive/birth), Hensel's letters, `H` and `V`
    /// neighbourhoods, MAP; and `life` or `conway`.
    public init(parsing text: String) throws {
        let alias = text.lowercased().filter { !$0.isWhitespace }
        if alias == "life" || alias == "conway" {
            self = .life
        } else if let rule = try Self.wolfram(text) {
            self = rule
        } else if let (table, name) = RuleNotation.parse(text) {
            self.init(table: table, name: name)
        } else if let rule = try Generations.parse(text) {
            self = rule
        } else if let rule = try LargerThanLife(parsing: text) {
            self.init(largerThanLife: rule)
        } else {
            throw TesseraError(
                "unknown rule '\(text)'",
                fix: "give a rule as Golly writes it: Life-like B3/S23, isotropic non-totalistic B2-a/S12, hexagonal B2/S34H, von Neumann B2/S013V, MAP followed by 86 base64 characters, Generations 345/3/6, Larger than Life R5,C0,M1,S34..58,B34..45,NM, or the name of a rule file NAME.rule in \(RuleFiles.gollyFolder) or a folder of TESSERA_RULES")
        }
    }

    /// Wolfram's one-dimensional rule `Wn` (n even, 0 to 254), as Golly's liferules runs
    /// it on the plane: a live cell stays alive, and a dead one is born where its three
    /// cells above (north-west, north, north-east as the bits 4, 2, 1 of Wolfram's
    /// index) make a pattern rule n gives life to; row y+1 grows as row y's next
    /// generation. Nil where `text` does not start with W.
    private static func wolfram(_ text: String) throws -> Rule? {
        let tidy = text.filter { $0 != " " }
        guard let first = tidy.first, first == "W" || first == "w" else { return nil }
        let digits = tidy.dropFirst().drop { $0 == "0" && tidy.count > 2 }
        let fix = "write W and an even number from 0 to 254, such as W22"
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw TesseraError("bad character in Wolfram rule '\(text)'", fix: fix) }
        guard digits.count <= 3, let n = Int(digits.isEmpty ? "0" : String(digits)), n <= 254, n % 2 == 0 else {
            throw TesseraError("Wolfram rule '\(text)' must be an even number from 0 to 254", fix: fix)
        }
        let table = RuleTable { index in
            let above = (index & 1) << 2 | (index >> 1 & 1) << 1 | (index >> 2 & 1)
            return n >> above & 1 == 1 || index >> 4 & 1 == 1
        }
        return Rule(table: table, name: "W\(n)")
    }
}

/// A rule compiled for the kernels (`tessera_rule`). It is written once, in `init`, and
/// only read after, so threads may share it.
private final class CompiledRule: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<tessera_rule>

    init(birth: UInt16, survive: UInt16) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: tessera_rule())
        (pointer.pointee.birth, pointer.pointee.survive) = (birth, survive)
    }

    /// A table with B0 compiles to nothing: only its `Rule.steps` reach a kernel.
    init(table: RuleTable) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: tessera_rule())
        _ = table.words.withUnsafeBufferPointer { tessera_rule_compile($0.baseAddress!, pointer) }
    }

    deinit {
        tessera_rule_release(pointer)
        pointer.deallocate()
    }
}
