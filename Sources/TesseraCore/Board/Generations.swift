/// A Generations rule as Golly 3.3 reads and names it (gollybase/generationsalgo.cpp):
/// `345/3/6` is survival, birth and the number of states. State 1 is alive; a live
/// cell that does not survive goes to state 2, and a cell in state s ≥ 2 goes to s+1,
/// and from the last state to 0. Only live cells count as neighbours, and only dead
/// ones are born. The neighbourhood is Moore's, or `H` (hexagonal) or `V` (von
/// Neumann) after the state count.
public struct Generations: Hashable, Sendable, CustomStringConvertible {
    /// The rule of the live cells alone (a dead cell is born, a live one survives), as
    /// its table: a `Rule` holds a `Generations`, so this holds no `Rule`.
    package let aliveTable: RuleTable
    /// The rule of the live cells alone, as the kernels take it.
    public var alive: Rule { Rule(table: aliveTable, name: "") }
    /// At least 3 here: with 2, a Generations rule is the two-state rule `alive`.
    public let states: Int
    /// Golly's name.
    public let description: String

    /// Golly's most states.
    public static let mostStates = 256

    /// Parses `S/B/C` (survival first unless `b` and `s` letters say otherwise, as
    /// Golly reads it); nil where `text` is not of that shape. Returns the two-state
    /// rule itself for two states.
    public static func parse(_ text: String) throws -> Rule? {
        let compact = text.filter { $0 != " " }
        let parts = compact.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let last = parts[2].last else { return nil }
        var count = parts[2]
        var neighbourhood = ""
        if "HhVv".contains(last) {
            neighbourhood = last.uppercased()
            count = count.dropLast()
        }
        guard !count.isEmpty, count.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        func refuse(_ why: String) -> TesseraError {
            TesseraError("Generations rule '\(text)': \(why)", fix: "write it as Golly does, such as 345/3/6 (survival/birth/states)")
        }
        let digits = count.drop { $0 == "0" }
        guard digits.count <= 3, let states = Int(digits.isEmpty ? "0" : digits) else {
            throw refuse("the number of states is too high (\(mostStates) at most)")
        }
        guard states >= 2 else { throw refuse("the number of states is too low (2 at least)") }
        guard states <= mostStates else { throw refuse("the number of states is too high (\(mostStates) at most)") }
        // Golly takes H or V only as the rule's last character, after the states.
        guard !parts[0].contains(where: { "HhVv".contains($0) }), !parts[1].contains(where: { "HhVv".contains($0) }) else {
            throw refuse("the neighbourhood letter (H or V) comes last, after the states, as in 34/2/3H")
        }
        let hasLetters = parts[0].contains { "bBsS".contains($0) } || parts[1].contains { "bBsS".contains($0) }
        let twoState = "\(parts[0])/\(parts[1])\(neighbourhood)"
        guard let (table, aliveName) = RuleNotation.parse(hasLetters ? twoState : "S\(parts[0])/B\(parts[1])\(neighbourhood)") else {
            throw refuse("its survival or birth is not a rule Golly reads")
        }
        let alive = Rule(table: table, name: aliveName)
        guard !alive.next(0) else { throw refuse("Generations does not support B0") }
        // Golly's name: survival, birth and states, then the neighbourhood.
        let halves = alive.description.dropLast(neighbourhood.count).split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, halves[0].hasPrefix("B"), halves[1].hasPrefix("S") else {
            throw TesseraError("Generations rule '\(text)' with letters is not run yet", fix: "give its survival and birth as digits")
        }
        let name = "\(halves[1].dropFirst())/\(halves[0].dropFirst())/\(states)\(neighbourhood)"
        guard states > 2 else { return Rule(table: table, name: name) }
        return Rule(generations: Generations(aliveTable: table, states: states, description: name))
    }
}
