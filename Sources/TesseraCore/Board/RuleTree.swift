/// A rule from a Golly rule file (`NAME.rule`): its `@TABLE` or `@TREE` section compiled
/// into one decision tree over a cell's neighbourhood, read exactly as Golly 3.3's
/// RuleLoader reads it (gollybase/ruleloaderalgo.cpp, ruletable_algo.cpp and
/// ruletreealgo.cpp), so that a step gives what bgolly's gives.
///
/// A table's hexagonal and one-dimensional neighbourhoods run on the Moore tree, as
/// Golly runs them on its square grid: a hexagonal cell's neighbours are n, e, se, s, w
/// and nw (ne and sw do not count), a one-dimensional cell's are w and e (the row's
/// cells either side); the inputs they leave out change nothing.
public struct RuleTree: Sendable, Hashable, CustomStringConvertible {
    /// The cells the tree reads: Moore's nine or von Neumann's five.
    public enum Neighbourhood: String, Sendable { case moore, vonNeumann }

    /// The name on the file's `@RULE` line, as written (the requested name where the
    /// file has no `@RULE` line).
    public let name: String
    /// 2...256: a table's `n_states`, a tree's `num_states`.
    public let states: Int
    public let neighbourhood: Neighbourhood
    /// The tree as Golly's `@TREE` lays it out, flattened: a node is `states`
    /// consecutive entries, one for each state of its input, and an entry is the offset
    /// of the next input's node, or at the last input the new state. To evaluate:
    ///
    ///     var i = Int(root); for v in inputs { i = Int(nodes[i + v]) }; return i
    ///
    /// The inputs come in the order of ruletreealgo's `slowcalc`: Moore nw, ne, sw, se,
    /// n, w, e, s, c; von Neumann n, w, e, s, c (c is the cell itself). Identical nodes
    /// are shared, and the nodes are laid out in post-order from the root (children in
    /// state order), so two trees of one function are equal node for node.
    public let nodes: [UInt32]
    public let root: UInt32

    public var description: String { name }

    /// The new state of a cell whose neighbourhood is `inputs`, in the order `nodes` takes.
    public func next(_ inputs: [Int]) -> Int {
        precondition(inputs.count == (neighbourhood == .moore ? 9 : 5), "a \(neighbourhood) tree takes \(neighbourhood == .moore ? 9 : 5) inputs")
        var i = Int(root)
        for v in inputs {
            precondition(v >= 0 && v < states, "state \(v) of a \(states)-state rule")
            i = Int(nodes[i + v])
        }
        return i
    }

    init(name: String, states: Int, neighbourhood: Neighbourhood, nodes: [UInt32], root: UInt32) {
        (self.name, self.states, self.neighbourhood, self.nodes, self.root) = (name, states, neighbourhood, nodes, root)
    }

    /// Parses the text of a rule file. `expected`, where given, is the rule's name as a
    /// pattern or command asks for it (a bounded-grid suffix from `:` on is left out, as
    /// Golly leaves it out to find the file); it must be the `@RULE` line's name exactly,
    /// case and all, which is what Golly checks, and what finds the file on Linux.
    public init(parsing text: String, name expected: String? = nil) throws {
        let bytes = Array(text.utf8)
        let requested = expected.map { String($0.prefix { $0 != ":" }) }
        let written = Self.ruleName(bytes)
        guard let name = written ?? requested else {
            throw TesseraError("the rule file has no @RULE line", fix: "begin it with '@RULE NAME', NAME being the file's name less .rule")
        }
        if let requested, let written, requested != written {
            throw TesseraError("the rule file's @RULE line names '\(written)', not '\(requested)'",
                               fix: "ask for the rule by the name on its @RULE line, case and all, or correct that line")
        }
        switch Self.section(bytes) {
        case .table(var reader)?:
            let table = try Table(reading: &reader)
            let (nodes, root) = try Self.compile(table)
            self.init(name: name, states: table.states, neighbourhood: table.shape == .vonNeumann ? .vonNeumann : .moore,
                      nodes: nodes, root: root)
        case .tree(var reader)?:
            let tree = try GollyTree(reading: &reader)
            let (nodes, root) = Self.canonical(states: tree.states, levels: tree.neighbours + 1, root: tree.values.count - 1) {
                tree.values[$0][$1]
            }
            self.init(name: name, states: tree.states, neighbourhood: tree.neighbours == 4 ? .vonNeumann : .moore,
                      nodes: nodes, root: root)
        case nil:
            throw TesseraError("the rule file has no @TABLE or @TREE section",
                               fix: "add one, headed by a line that is exactly @TABLE or @TREE (no spaces)")
        }
    }

    enum Section {
        case table(LineReader)
        case tree(LineReader)
    }

    /// The first section RuleLoader reads: the first line that is exactly @TABLE or
    /// @TREE, with a reader from the line after it (the section ends at the next line
    /// that begins with @). A file may hold both; the first wins.
    static func section(_ bytes: [UInt8]) -> Section? {
        var finder = LineReader(bytes)
        while let line = finder.next(limit: 4096) {
            if line.text.elementsEqual("@TABLE".utf8) { return .table(LineReader(bytes, at: finder.position)) }
            if line.text.elementsEqual("@TREE".utf8) { return .tree(LineReader(bytes, at: finder.position)) }
        }
        return nil
    }

    /// What follows `@RULE ` on the first line that begins so: the name newer Golly
    /// compares with a pattern's rule, untrimmed as it compares it.
    private static func ruleName(_ bytes: [UInt8]) -> String? {
        var reader = LineReader(bytes)
        while let line = reader.next(limit: 4096) {
            if line.text.starts(with: "@RULE ".utf8) { return String(decoding: line.text.dropFirst(6), as: UTF8.self) }
        }
        return nil
    }
}

// MARK: - Reading lines as Golly does

extension RuleTree {
    /// Golly's `linereader::fgets` (gollybase/util.cpp): a line ends at LF, CR or CR LF,
    /// and at most `limit - 1` bytes come at once, a longer line coming in pieces that
    /// Golly reads as lines of their own (999 bytes in a table, 4095 in a tree). Each
    /// section starts a new reader, as Golly does, which sees an LF left from the CR LF
    /// ending the section's own line as an empty line.
    struct LineReader {
        let bytes: [UInt8]
        private(set) var position: Int
        /// The last byte read: an LF straight after a CR is not a line of its own (nor
        /// are further LFs, as Golly does not note them).
        private var last: UInt8 = 0

        init(_ bytes: [UInt8], at position: Int = 0) {
            (self.bytes, self.position) = (bytes, position)
        }

        mutating func next(limit: Int) -> Line? {
            var start: Int?
            var count = 0
            while count + 1 < limit {
                guard position < bytes.count else {
                    return count == 0 ? nil : Line(bytes: bytes, start: start ?? position, count: count)
                }
                let c = bytes[position]
                position += 1
                if c == 10 && last == 13 { continue }
                if c == 10 || c == 13 {
                    last = c
                    return Line(bytes: bytes, start: start ?? position - 1, count: count)
                }
                last = c
                start = start ?? position - 1
                count += 1
            }
            return Line(bytes: bytes, start: start ?? position, count: count)
        }

        /// The 1-based line of `offset`, LF, CR and CR LF each ending a line, for messages.
        func lineNumber(at offset: Int) -> Int {
            var number = 1
            for i in 0..<min(offset, bytes.count) where bytes[i] == 13 || (bytes[i] == 10 && (i == 0 || bytes[i - 1] != 13)) {
                number += 1
            }
            return number
        }
    }

    /// A line as Golly's buffer holds it: `raw` to the line's end, `text` to its first
    /// NUL, where C's string ends.
    struct Line {
        let raw: ArraySlice<UInt8>

        init(bytes: [UInt8], start: Int, count: Int) { raw = bytes[start..<start + count] }

        var start: Int { raw.startIndex }
        var text: ArraySlice<UInt8> { raw.prefix { $0 != 0 } }
    }
}

// MARK: - @TABLE

extension RuleTree {
    /// A table as ruletable_algo's `LoadRuleTable` reads it. Golly matches a cell's
    /// neighbourhood against the transitions in the order written, each expanded by
    /// its symmetries where it stands and each bound variable's values in turn; the
    /// first that matches gives the new state, and where none does the cell stays as it
    /// is.
    ///
    /// Where Golly reads past its own arrays (an input state of the comma-free form or a
    /// state of a transition at or over the final `n_states`, a neighbourhood changed
    /// after transitions, a `var` line of no name), this refuses the file, and so it
    /// does a table that expands past `mostTransitions`.
    struct Table {
        /// Golly's `TNeighborhood`, in its order.
        enum Shape: CaseIterable {
            case vonNeumann, moore, hexagonal, oneDimensional

            var keyword: String {
                switch self {
                case .vonNeumann: "vonNeumann"
                case .moore: "Moore"
                case .hexagonal: "hexagonal"
                case .oneDimensional: "oneDimensional"
                }
            }

            /// The table's inputs, the cell's own first: von Neumann c, n, e, s, w; Moore
            /// c, n, ne, e, se, s, sw, w, nw; hexagonal c, n, e, se, s, w, nw;
            /// one-dimensional c, w, e (ruletable_algo's `slowcalc`).
            var inputs: Int {
                switch self {
                case .vonNeumann: 5
                case .moore: 9
                case .hexagonal: 7
                case .oneDimensional: 3
                }
            }

            /// For each of the tree's inputs (Moore nw, ne, sw, se, n, w, e, s, c; von
            /// Neumann n, w, e, s, c), the table's input in that cell, nil where the
            /// table does not read it.
            var treeInputs: [Int?] {
                switch self {
                case .vonNeumann: [1, 4, 2, 3, 0]
                case .moore: [8, 2, 6, 4, 1, 7, 3, 5, 0]
                case .hexagonal: [6, nil, nil, 3, 1, 5, 2, 4, 0]
                case .oneDimensional: [nil, nil, nil, nil, nil, 1, 2, nil, 0]
                }
            }

            /// The symmetries Golly accepts for the neighbourhood.
            var symmetries: [String] {
                switch self {
                case .vonNeumann: ["none", "rotate4", "rotate4reflect", "reflect_horizontal", "permute"]
                case .moore: ["none", "rotate4", "rotate8", "rotate4reflect", "rotate8reflect", "reflect_horizontal", "permute"]
                case .hexagonal: ["none", "rotate2", "rotate3", "rotate6", "rotate6reflect", "permute"]
                case .oneDimensional: ["none", "reflect", "permute"]
                }
            }

            /// Golly's remap tables (`PackTransitions`): image k of a transition takes
            /// input i from input `remaps[k][i]` (the last index, the output, unused).
            /// Golly looks them up by the final neighbourhood: a symmetry declared for
            /// an earlier one and absent here has no images, and the table no transitions.
            func remaps(_ symmetries: String) -> [[Int]] {
                switch (self, symmetries) {
                case (.vonNeumann, "rotate4"): [[0, 1, 2, 3, 4, 5], [0, 2, 3, 4, 1, 5], [0, 3, 4, 1, 2, 5], [0, 4, 1, 2, 3, 5]]
                case (.vonNeumann, "rotate4reflect"):
                    [[0, 1, 2, 3, 4, 5], [0, 2, 3, 4, 1, 5], [0, 3, 4, 1, 2, 5], [0, 4, 1, 2, 3, 5],
                     [0, 4, 3, 2, 1, 5], [0, 3, 2, 1, 4, 5], [0, 2, 1, 4, 3, 5], [0, 1, 4, 3, 2, 5]]
                case (.vonNeumann, "reflect_horizontal"): [[0, 1, 2, 3, 4, 5], [0, 1, 4, 3, 2, 5]]
                case (.moore, "rotate4"):
                    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 3, 4, 5, 6, 7, 8, 1, 2, 9], [0, 5, 6, 7, 8, 1, 2, 3, 4, 9],
                     [0, 7, 8, 1, 2, 3, 4, 5, 6, 9]]
                case (.moore, "rotate8"):
                    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 2, 3, 4, 5, 6, 7, 8, 1, 9], [0, 3, 4, 5, 6, 7, 8, 1, 2, 9],
                     [0, 4, 5, 6, 7, 8, 1, 2, 3, 9], [0, 5, 6, 7, 8, 1, 2, 3, 4, 9], [0, 6, 7, 8, 1, 2, 3, 4, 5, 9],
                     [0, 7, 8, 1, 2, 3, 4, 5, 6, 9], [0, 8, 1, 2, 3, 4, 5, 6, 7, 9]]
                case (.moore, "rotate4reflect"):
                    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 3, 4, 5, 6, 7, 8, 1, 2, 9], [0, 5, 6, 7, 8, 1, 2, 3, 4, 9],
                     [0, 7, 8, 1, 2, 3, 4, 5, 6, 9], [0, 1, 8, 7, 6, 5, 4, 3, 2, 9], [0, 7, 6, 5, 4, 3, 2, 1, 8, 9],
                     [0, 5, 4, 3, 2, 1, 8, 7, 6, 9], [0, 3, 2, 1, 8, 7, 6, 5, 4, 9]]
                case (.moore, "rotate8reflect"):
                    [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 2, 3, 4, 5, 6, 7, 8, 1, 9], [0, 3, 4, 5, 6, 7, 8, 1, 2, 9],
                     [0, 4, 5, 6, 7, 8, 1, 2, 3, 9], [0, 5, 6, 7, 8, 1, 2, 3, 4, 9], [0, 6, 7, 8, 1, 2, 3, 4, 5, 9],
                     [0, 7, 8, 1, 2, 3, 4, 5, 6, 9], [0, 8, 1, 2, 3, 4, 5, 6, 7, 9], [0, 8, 7, 6, 5, 4, 3, 2, 1, 9],
                     [0, 7, 6, 5, 4, 3, 2, 1, 8, 9], [0, 6, 5, 4, 3, 2, 1, 8, 7, 9], [0, 5, 4, 3, 2, 1, 8, 7, 6, 9],
                     [0, 4, 3, 2, 1, 8, 7, 6, 5, 9], [0, 3, 2, 1, 8, 7, 6, 5, 4, 9], [0, 2, 1, 8, 7, 6, 5, 4, 3, 9],
                     [0, 1, 8, 7, 6, 5, 4, 3, 2, 9]]
                case (.moore, "reflect_horizontal"): [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 1, 8, 7, 6, 5, 4, 3, 2, 9]]
                case (.oneDimensional, "reflect"): [[0, 1, 2, 3], [0, 2, 1, 3]]
                case (.hexagonal, "rotate2"): [[0, 1, 2, 3, 4, 5, 6, 7], [0, 4, 5, 6, 1, 2, 3, 7]]
                case (.hexagonal, "rotate3"): [[0, 1, 2, 3, 4, 5, 6, 7], [0, 3, 4, 5, 6, 1, 2, 7], [0, 5, 6, 1, 2, 3, 4, 7]]
                case (.hexagonal, "rotate6"):
                    [[0, 1, 2, 3, 4, 5, 6, 7], [0, 2, 3, 4, 5, 6, 1, 7], [0, 3, 4, 5, 6, 1, 2, 7], [0, 4, 5, 6, 1, 2, 3, 7],
                     [0, 5, 6, 1, 2, 3, 4, 7], [0, 6, 1, 2, 3, 4, 5, 7]]
                case (.hexagonal, "rotate6reflect"):
                    [[0, 1, 2, 3, 4, 5, 6, 7], [0, 2, 3, 4, 5, 6, 1, 7], [0, 3, 4, 5, 6, 1, 2, 7], [0, 4, 5, 6, 1, 2, 3, 7],
                     [0, 5, 6, 1, 2, 3, 4, 7], [0, 6, 1, 2, 3, 4, 5, 7], [0, 6, 5, 4, 3, 2, 1, 7], [0, 5, 4, 3, 2, 1, 6, 7],
                     [0, 4, 3, 2, 1, 6, 5, 7], [0, 3, 2, 1, 6, 5, 4, 7], [0, 2, 1, 6, 5, 4, 3, 7], [0, 1, 6, 5, 4, 3, 2, 7]]
                default: []
                }
            }
        }

        /// One transition with its bound variables fixed: each input's states (as
        /// written, repeats and all, which Golly's permute sorts by) and the output.
        struct Transition: Hashable {
            var inputs: [[UInt8]]
            var output: UInt8
        }

        private(set) var states = 8
        private(set) var shape = Shape.vonNeumann
        private(set) var symmetries = "rotate4"
        /// In Golly's order, before the symmetries.
        private(set) var transitions: [Transition] = []

        /// Reads from just after the @TABLE line to the next line that begins with @.
        init(reading reader: inout LineReader) throws {
            let bytes = reader.bytes
            var (statesRead, shapeRead, symmetriesRead) = (false, false, false)
            var variables: [[UInt8]: [UInt8]] = [:]
            while let line = reader.next(limit: 1000) {
                if line.raw.first == ascii("@") { break }
                func refuse(_ problem: String, fix: String) -> TesseraError {
                    let shown = String(decoding: line.text.prefix(72), as: UTF8.self)
                    return TesseraError("@TABLE line \(LineReader(bytes).lineNumber(at: line.start)) '\(shown)': \(problem)", fix: fix)
                }
                var text = line.text
                if let hash = text.firstIndex(of: ascii("#")) { text = text[..<hash] }
                text = trimmed(text)
                if text.isEmpty { continue }
                if text.startsCaseInsensitive("n_states:") {
                    guard let count = scanInteger(text.dropFirst(9), signed: true) else {
                        throw refuse("n_states is not a number", fix: "write it as n_states:8")
                    }
                    guard count >= 2 && count <= 256 else { throw refuse("n_states must be 2 to 256", fix: "give 2 to 256 states") }
                    states = Int(count)
                    statesRead = true
                } else if text.startsCaseInsensitive("neighborhood:") {
                    let value = trimmed(text.dropFirst(13))
                    guard let found = Shape.allCases.first(where: { value.elementsEqual($0.keyword.utf8) }) else {
                        throw refuse("Golly has no such neighborhood", fix: "write vonNeumann, Moore, hexagonal or oneDimensional, case and all")
                    }
                    guard transitions.isEmpty || found.inputs == shape.inputs else {
                        throw refuse("the neighborhood changes after transitions of another size, which Golly reads past their end",
                                     fix: "declare the neighborhood once, before the transitions")
                    }
                    shape = found
                    shapeRead = true
                } else if text.startsCaseInsensitive("symmetries:") {
                    guard shapeRead else {
                        throw refuse("symmetries come before the neighborhood", fix: "declare the neighborhood first")
                    }
                    let value = trimmed(text.dropFirst(11))
                    guard let found = shape.symmetries.first(where: { value.elementsEqual($0.utf8) }) else {
                        throw refuse("Golly has no such symmetries for the \(shape.keyword) neighborhood",
                                     fix: "write one of \(shape.symmetries.joined(separator: ", "))")
                    }
                    symmetries = found
                    symmetriesRead = true
                } else if text.startsCaseInsensitive("var ") {
                    guard statesRead && shapeRead && symmetriesRead else {
                        throw refuse("a variable comes before n_states, neighborhood and symmetries", fix: "declare those three first")
                    }
                    let tokens = text.split { " ={,}".utf8.contains($0) }.map(Array.init)
                    guard tokens.count >= 3 else {
                        throw refuse("a variable needs a name and at least one state", fix: "write it as var a={0,1,2}")
                    }
                    var values: [UInt8] = []
                    for token in tokens[2...] {
                        if let known = variables[token] {
                            values += known
                            continue
                        }
                        guard let state = scanInteger(token[...], signed: false) else {
                            throw refuse("'\(String(decoding: token, as: UTF8.self))' is neither a state nor a variable named before",
                                         fix: "name variables before using them")
                        }
                        guard state < states else {
                            throw refuse("state \(state) is out of range for n_states:\(states)", fix: "use states 0 to \(states - 1)")
                        }
                        values.append(UInt8(state))
                    }
                    variables[tokens[1]] = values
                } else {
                    guard statesRead && shapeRead && symmetriesRead else {
                        throw refuse("a transition comes before n_states, neighborhood and symmetries", fix: "declare those three first")
                    }
                    transitions += try Self.transitions(text, states: states, inputs: shape.inputs, variables: variables,
                                                        room: RuleTree.mostTransitions - transitions.count, refuse)
                }
            }
            guard statesRead && shapeRead && symmetriesRead else {
                let missing = [("n_states", statesRead), ("neighborhood", shapeRead), ("symmetries", symmetriesRead)].filter { !$0.1 }
                throw TesseraError("the @TABLE has no \(missing.map(\.0).joined(separator: " or ")) line",
                                   fix: "declare n_states, neighborhood and symmetries before the transitions")
            }
            let highest = transitions.lazy.map { max($0.output, $0.inputs.lazy.map { $0.max() ?? 0 }.max() ?? 0) }.max() ?? 0
            guard highest < states else {
                throw TesseraError("a transition uses state \(highest), out of range for the last n_states:\(states)",
                                   fix: "declare n_states once, before the variables and transitions")
            }
        }

        /// The transitions of one line: the comma-free form (one digit an input, then the
        /// output, anything after ignored) where Golly takes it, else tokens parted by
        /// commas, spaces or tabs, the tokens after the output ignored.
        private static func transitions(_ text: ArraySlice<UInt8>, states: Int, inputs: Int, variables: [[UInt8]: [UInt8]],
                                        room: Int, _ refuse: (String, String) -> TesseraError) throws -> [Transition] {
            if states <= 10 && variables.isEmpty && !text.contains(ascii(",")) {
                guard text.count >= inputs + 1 else {
                    throw refuse("too few entries: \(inputs) inputs and an output", "give one digit an input, then the output")
                }
                let digits = Array(text.prefix(inputs + 1))
                guard digits.allSatisfy({ $0 >= ascii("0") && $0 <= ascii("9") }) else {
                    throw refuse("a transition without commas takes one digit an input, then the output", "write its states as digits")
                }
                let values = digits.map { $0 - ascii("0") }
                guard let high = values.first(where: { Int($0) >= states }) else {
                    return [Transition(inputs: values.dropLast().map { [$0] }, output: values[inputs])]
                }
                throw refuse("state \(high) is out of range for n_states:\(states)", "use states 0 to \(states - 1)")
            }
            let tokens = text.split { ", \t#".utf8.contains($0) }.map(Array.init)
            guard tokens.count >= inputs + 1 else {
                throw refuse("too few entries: \(inputs) inputs and an output", "give \(inputs) inputs and an output, parted by commas")
            }
            // A variable named more than once is bound: it takes each of its values in
            // turn, the same value everywhere it is named. Golly keeps variables in a
            // std::map, so the bound ones go in byte order, the first changing fastest.
            let named = tokens[...inputs]
            let bound = variables.keys.filter { name in named.lazy.filter { $0 == name }.count > 1 }
                .sorted { $0.lexicographicallyPrecedes($1) }
            enum Term {
                case bound(Int)
                case states([UInt8])
            }
            func state(_ token: [UInt8], output: Bool) throws -> UInt8 {
                guard let state = scanInteger(token[...], signed: false) else {
                    let shown = String(decoding: token, as: UTF8.self)
                    throw output ? refuse("the output '\(shown)' is not a state, a single-state variable or a bound variable",
                                          "give the output as a state, or a variable also named among the inputs")
                                 : refuse("'\(shown)' is neither a state nor a variable", "declare the variable before the transition")
                }
                guard state < states else { throw refuse("state \(state) is out of range for n_states:\(states)", "use states 0 to \(states - 1)") }
                return UInt8(state)
            }
            var terms: [Term] = []
            for token in named.prefix(inputs) {
                if let index = bound.firstIndex(of: token) {
                    terms.append(.bound(index))
                } else if let values = variables[token] {
                    terms.append(.states(values))
                } else {
                    terms.append(.states([try state(token, output: false)]))
                }
            }
            let outputToken = tokens[inputs]
            let output: Term
            if let index = bound.firstIndex(of: outputToken) {
                output = .bound(index)
            } else if let values = variables[outputToken], values.count == 1 {
                output = .states(values)
            } else {
                output = .states([try state(outputToken, output: true)])
            }
            let boundValues = bound.map { variables[$0]! }
            let combinations = boundValues.reduce(1) { $0.multipliedReportingOverflow(by: $1.count).overflow ? .max : $0 * $1.count }
            guard combinations <= room else { throw RuleTree.tooManyTransitions() }
            var choice = [Int](repeating: 0, count: bound.count)
            var made: [Transition] = []
            while true {
                func value(_ term: Term) -> [UInt8] {
                    switch term {
                    case .bound(let index): [boundValues[index][choice[index]]]
                    case .states(let values): values
                    }
                }
                made.append(Transition(inputs: terms.map(value), output: value(output)[0]))
                var next = 0
                while next < bound.count && choice[next] == boundValues[next].count - 1 {
                    choice[next] = 0
                    next += 1
                }
                guard next < bound.count else { return made }
                choice[next] += 1
            }
        }

        /// The transitions expanded by the symmetries, in Golly's order: each
        /// transition's images together, where it stands.
        func images() -> [Transition] {
            var images: [Transition] = []
            let remaps = shape.remaps(symmetries)
            for transition in transitions {
                switch symmetries {
                case "none":
                    images.append(transition)
                case "permute":
                    // Every distinct order of the neighbours (all but the cell itself),
                    // as std::next_permutation walks them from sorted.
                    var inputs = transition.inputs
                    let less: ([UInt8], [UInt8]) -> Bool = { $0.lexicographicallyPrecedes($1) }
                    inputs[1...].sort(by: less)
                    repeat {
                        images.append(Transition(inputs: inputs, output: transition.output))
                    } while Self.nextPermutation(&inputs[1...], by: less)
                default:
                    for remap in remaps {
                        images.append(Transition(inputs: remap.prefix(shape.inputs).map { transition.inputs[$0] }, output: transition.output))
                    }
                }
            }
            return images
        }

        /// std::next_permutation: the next arrangement in order, false (and sorted again)
        /// after the last.
        private static func nextPermutation(_ items: inout ArraySlice<[UInt8]>, by less: ([UInt8], [UInt8]) -> Bool) -> Bool {
            guard items.count > 1 else { return false }
            var i = items.endIndex - 1
            while i > items.startIndex && !less(items[i - 1], items[i]) { i -= 1 }
            guard i > items.startIndex else {
                items.reverse()
                return false
            }
            var j = items.endIndex - 1
            while !less(items[i - 1], items[j]) { j -= 1 }
            items.swapAt(i - 1, j)
            items[i...].reverse()
            return true
        }
    }
}

// MARK: - Compiling a table

extension RuleTree {
    /// The table's tree: each node holds the transitions that may still match, in
    /// order, and gives each state of its input the ones whose input allows it; at the
    /// last input (the cell) the first left gives the new state, none the cell's own.
    /// Identical lists make one node, and so do identical nodes.
    static func compile(_ table: Table) throws -> (nodes: [UInt32], root: UInt32) {
        let images = table.transitions.count * (["none", "permute"].contains(table.symmetries) ? 1 : table.shape.remaps(table.symmetries).count)
        guard images <= mostTransitions else { throw tooManyTransitions() }
        let nodes: [UInt32], root: UInt32
        if table.symmetries == "permute" {
            var compiler = PermuteCompiler(table)
            (nodes, root) = try compiler.compile()
        } else {
            var compiler = ImageCompiler(table)
            (nodes, root) = try compiler.compile()
        }
        // Already in canonical order: a node is made after its children, in state order,
        // and only the first time its function is met, as `canonical` would lay it out.
        return (nodes, root)
    }

    /// What compiling may hold, tree entries and remembered lists together: some 0.5 to
    /// 1 GB. Golly's own rule files make trees under 50,000 entries; a table of random
    /// transitions over many states can make far more than memory holds.
    static let mostHeld = 1 << 27

    /// The most transitions a table may expand to, its bound variables' values taken in
    /// turn and each transition's images under its symmetries (but permute's): Golly's
    /// own files make at most 3,100, and Golly itself, holding each as vectors of
    /// vectors, runs out of memory not far past a million.
    static let mostTransitions = 1 << 18

    static func tooManyTransitions() -> TesseraError {
        TesseraError("the @TABLE expands to over \(mostTransitions) transitions (each bound variable's states in turn, times the symmetries' images)",
                     fix: "name a variable once in a transition where its states need not match, so it is not bound")
    }

    static func tooBig() -> TesseraError {
        TesseraError("the @TABLE makes a decision tree too big to hold (over \(mostHeld) entries)",
                     fix: "give it fewer states or more regular transitions, or run it in Golly")
    }

    /// States as a bit set, `words` words.
    private static func bits(_ states: some Sequence<UInt8>, words: Int) -> [UInt64] {
        var set = [UInt64](repeating: 0, count: words)
        for state in states { set[Int(state >> 6)] |= 1 << UInt64(state & 63) }
        return set
    }

    /// Nodes made once each: a level's node of given entries has one offset. The index
    /// is an open-addressed table of node numbers, keyed by the entries where they lie
    /// in `nodes`, so each node's entries are held once.
    struct NodeStore {
        let states: Int
        private(set) var nodes: [UInt32] = []
        private var levels: [UInt8] = []
        /// A node's number + 1, or 0 for none.
        private var index = [UInt32](repeating: 0, count: 1 << 10)

        init(states: Int) { self.states = states }

        mutating func node(_ level: Int, _ entries: [UInt32]) -> UInt32 {
            if 2 * levels.count >= index.count { grow() }
            var slot = Self.hash(level, entries[...]) & (index.count - 1)
            while index[slot] != 0 {
                let number = Int(index[slot]) - 1
                if Int(levels[number]) == level && nodes[number * states..<(number + 1) * states].elementsEqual(entries) {
                    return UInt32(number * states)
                }
                slot = (slot + 1) & (index.count - 1)
            }
            index[slot] = UInt32(levels.count + 1)
            levels.append(UInt8(level))
            nodes += entries
            return UInt32(nodes.count - states)
        }

        private mutating func grow() {
            index = [UInt32](repeating: 0, count: 2 * index.count)
            for number in levels.indices {
                var slot = Self.hash(Int(levels[number]), nodes[number * states..<(number + 1) * states]) & (index.count - 1)
                while index[slot] != 0 { slot = (slot + 1) & (index.count - 1) }
                index[slot] = UInt32(number + 1)
            }
        }

        private static func hash(_ level: Int, _ entries: ArraySlice<UInt32>) -> Int {
            var hash = UInt64(level) &+ 0x9E37_79B9_7F4A_7C15
            for entry in entries { hash = (hash ^ UInt64(entry)) &* 0x0100_0000_01B3 &+ 0x9E37_79B9 }
            hash = (hash ^ hash >> 31) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: hash ^ hash >> 29)
        }
    }

    /// Tables of every symmetry but permute: the transitions' images, each a set of
    /// states for each of the tree's inputs.
    private struct ImageCompiler {
        let states: Int, levels: Int, words: Int
        let full: [UInt64]
        /// Image t's states at the tree's input `level`: the words from (t * levels + level) * words.
        var sets: [UInt64] = []
        var outputs: [UInt32] = []
        /// The first input from which image t matches every state at every input.
        var fullFrom: [Int] = []
        var store: NodeStore
        var built = ListMemo<Int32>()

        init(_ table: Table) {
            (states, levels, words) = (table.states, table.shape == .vonNeumann ? 5 : 9, (table.states + 63) / 64)
            full = RuleTree.bits((0..<table.states).lazy.map { UInt8($0) }, words: words)
            store = NodeStore(states: states)
            // An image like one before it can never match first, and goes.
            var seen = Set<[UInt64]>()
            for image in table.images() {
                let row = table.shape.treeInputs.flatMap { input in input.map { RuleTree.bits(image.inputs[$0], words: words) } ?? full }
                guard seen.insert(row).inserted else { continue }
                var from = levels
                while from > 0 && row[(from - 1) * words..<from * words].elementsEqual(full) { from -= 1 }
                sets += row
                outputs.append(UInt32(image.output))
                fullFrom.append(from)
            }
        }

        mutating func compile() throws -> (nodes: [UInt32], root: UInt32) {
            // An image that matches everything hides those after it.
            let all = (0..<Int32(outputs.count)).prefix { $0 == 0 || fullFrom[Int($0) - 1] > 0 }
            let root = try build(0, Array(all)[...])
            return (store.nodes, root)
        }

        /// The node at input `level` where the images of `list`, in order, may still match.
        mutating func build(_ level: Int, _ list: ArraySlice<Int32>) throws -> UInt32 {
            let hash = built.hash(level, list)
            if let done = built.find(level, list, hash) { return done }
            var entries = [UInt32](repeating: 0, count: states)
            if level == levels - 1 {
                for state in 0..<states { entries[state] = UInt32(state) }
                split(level, list) { state, image in entries[state] = outputs[Int(image)] }
            } else {
                // Each state's images, in one array: counted, then placed.
                var ends = [Int](repeating: 0, count: states + 1)
                split(level, list) { state, _ in ends[state + 1] += 1 }
                for state in 0..<states { ends[state + 1] += ends[state] }
                var lists = [Int32](repeating: 0, count: ends[states])
                var next = ends
                split(level, list) { state, image in
                    lists[next[state]] = image
                    next[state] += 1
                }
                for state in 0..<states { entries[state] = try build(level + 1, lists[ends[state]..<ends[state + 1]]) }
            }
            let offset = store.node(level, entries)
            built.insert(level, list, hash, offset)
            guard store.nodes.count + built.held <= RuleTree.mostHeld else { throw RuleTree.tooBig() }
            return offset
        }

        /// Each image of `list` in turn, for each state of input `level` it allows and no
        /// image before it has claimed for good: at the last input, any before it (the
        /// first match wins); above, one that matches everything from the next input on.
        private func split(_ level: Int, _ list: ArraySlice<Int32>, _ body: (Int, Int32) -> Void) {
            var open = full
            let last = level == levels - 1
            for image in list {
                let base = (Int(image) * levels + level) * words
                let hides = last || fullFrom[Int(image)] <= level + 1
                var anyOpen = false
                for w in 0..<words {
                    var fresh = sets[base + w] & open[w]
                    if hides { open[w] &= ~sets[base + w] }
                    while fresh != 0 {
                        body(w << 6 | fresh.trailingZeroBitCount, image)
                        fresh &= fresh - 1
                    }
                    anyOpen = anyOpen || open[w] != 0
                }
                if !anyOpen { break }
            }
        }
    }

    /// The node each list of a level made: the lists held end to end in one array and
    /// found through an open-addressed index, so that looking one up allocates nothing.
    struct ListMemo<Element: FixedWidthInteger> {
        private var arena: [Element] = []
        private var starts: [Int] = [], levels: [UInt8] = [], nodes: [UInt32] = [], hashes: [Int] = []
        /// A list's number + 1, or 0 for none.
        private var index = [UInt32](repeating: 0, count: 1 << 10)

        /// The elements of the lists held.
        var held: Int { arena.count }

        func hash(_ level: Int, _ list: ArraySlice<Element>) -> Int {
            var hash = UInt64(level) &+ UInt64(list.count) &* 0x9E37_79B9_7F4A_7C15
            for element in list { hash = (hash ^ UInt64(truncatingIfNeeded: element)) &* 0x0100_0000_01B3 &+ 0x9E37_79B9 }
            hash = (hash ^ hash >> 31) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: hash ^ hash >> 29)
        }

        func find(_ level: Int, _ list: ArraySlice<Element>, _ hash: Int) -> UInt32? {
            var slot = hash & (index.count - 1)
            while index[slot] != 0 {
                let number = Int(index[slot]) - 1
                if hashes[number] == hash && Int(levels[number]) == level
                    && arena[starts[number]..<(number + 1 < starts.count ? starts[number + 1] : arena.count)].elementsEqual(list) {
                    return nodes[number]
                }
                slot = (slot + 1) & (index.count - 1)
            }
            return nil
        }

        mutating func insert(_ level: Int, _ list: ArraySlice<Element>, _ hash: Int, _ node: UInt32) {
            if 2 * nodes.count >= index.count {
                index = [UInt32](repeating: 0, count: 2 * index.count)
                for number in hashes.indices { place(number) }
            }
            starts.append(arena.count)
            arena += list
            levels.append(UInt8(level))
            nodes.append(node)
            hashes.append(hash)
            place(nodes.count - 1)
        }

        private mutating func place(_ number: Int) {
            var slot = hashes[number] & (index.count - 1)
            while index[slot] != 0 { slot = (slot + 1) & (index.count - 1) }
            index[slot] = UInt32(number + 1)
        }
    }

    /// Tables of the permute symmetry. Golly lists every arrangement of a transition's
    /// neighbour entries (up to 8! of them); one matches where the neighbours' states can
    /// be dealt out one to each entry that holds it. The tree reads the neighbours one
    /// at a time, so a transition here carries, as a bit set of masks, the sets of its
    /// entries that the states read so far can fill; it still matches while that is not
    /// empty. Entries of equal states are filled in order, so that each set of states
    /// read has one mask.
    private struct PermuteCompiler {
        let states: Int, levels: Int, words: Int
        let reads: [Int?]
        /// Entries a transition has after the cell's (8, 4, 6 or 2).
        let slots: Int
        /// Words of a set of masks: one bit for each of the 2^slots masks.
        let maskWords: Int
        var centres: [UInt64] = []
        /// Transition t's entries that hold state v: `holding[t * states + v]`.
        var holding: [UInt8] = []
        /// The entries transition t may fill next, the mask U filled: `fillable[t << slots | U]`.
        var fillable: [UInt8] = []
        /// Entries that hold every state, and whether the cell's does.
        var fullSlots: [UInt8] = [], fullCentre: [Bool] = []
        var outputs: [UInt32] = []
        var store: NodeStore
        var built = ListMemo<UInt64>()

        init(_ table: Table) {
            (states, levels, words) = (table.states, table.shape == .vonNeumann ? 5 : 9, (table.states + 63) / 64)
            reads = table.shape.treeInputs
            slots = table.shape.inputs - 1
            maskWords = ((1 << slots) + 63) / 64
            store = NodeStore(states: states)
            let full = RuleTree.bits((0..<table.states).lazy.map { UInt8($0) }, words: words)
            var seen = Set<[[UInt64]]>()
            for transition in table.transitions {
                let sets = transition.inputs.map { RuleTree.bits($0, words: words) }
                // The same states as one before (in any order): it never matches first.
                guard seen.insert([sets[0]] + sets.dropFirst().sorted { $0.lexicographicallyPrecedes($1) }).inserted else { continue }
                let entries = Array(sets.dropFirst())
                centres += sets[0]
                fullCentre.append(sets[0] == full)
                fullSlots.append(UInt8(entries.indices.reduce(0) { $0 | (entries[$1] == full ? 1 << $1 : 0) }))
                for state in 0..<states {
                    let bit = UInt64(1) << UInt64(state & 63)
                    holding.append(UInt8(entries.indices.reduce(0) { $0 | (entries[$1][state >> 6] & bit != 0 ? 1 << $1 : 0) }))
                }
                // An entry may be filled once those of equal states before it are.
                let previous = entries.indices.map { i in entries[..<i].lastIndex(of: entries[i]) }
                for filled in 0..<(1 << slots) {
                    var mask = 0
                    for i in entries.indices where filled & 1 << i == 0 {
                        if let before = previous[i], filled & 1 << before == 0 { continue }
                        mask |= 1 << i
                    }
                    fillable.append(UInt8(mask))
                }
                outputs.append(UInt32(transition.output))
            }
        }

        mutating func compile() throws -> (nodes: [UInt32], root: UInt32) {
            var list: [UInt64] = []
            let allSlots = UInt8(truncatingIfNeeded: (1 << slots) - 1)
            for t in outputs.indices {
                list.append(UInt64(t))
                list += [1] + [UInt64](repeating: 0, count: maskWords - 1)   // nothing filled yet
                if fullCentre[t] && fullSlots[t] == allSlots { break }
            }
            let root = try build(0, list[...])
            return (store.nodes, root)
        }

        /// Whether, with the entries of one of `masks` filled, transition t matches
        /// whatever the cells left hold.
        private func hides(_ t: Int, _ masks: ArraySlice<UInt64>) -> Bool {
            guard fullCentre[t] else { return false }
            let allSlots = (1 << slots) - 1
            for (w, word) in masks.enumerated() {
                var left = word
                while left != 0 {
                    let filled = w << 6 | left.trailingZeroBitCount
                    if allSlots & ~filled & ~Int(fullSlots[t]) == 0 { return true }
                    left &= left - 1
                }
            }
            return false
        }

        /// The node at input `level` where the transitions of `list` (each its index and
        /// its masks) may still match.
        mutating func build(_ level: Int, _ list: ArraySlice<UInt64>) throws -> UInt32 {
            let hash = built.hash(level, list)
            if let done = built.find(level, list, hash) { return done }
            let stride = 1 + maskWords
            var entries = [UInt32](repeating: 0, count: states)
            if level == levels - 1 {
                // Every neighbour is read: a transition left matches on its cell's states.
                var open = RuleTree.bits((0..<states).lazy.map { UInt8($0) }, words: words)
                for state in 0..<states { entries[state] = UInt32(state) }
                for start in Swift.stride(from: list.startIndex, to: list.endIndex, by: stride) {
                    let t = Int(list[start])
                    var anyOpen = false
                    for w in 0..<words {
                        var fresh = centres[t * words + w] & open[w]
                        open[w] &= ~centres[t * words + w]
                        while fresh != 0 {
                            entries[w << 6 | fresh.trailingZeroBitCount] = outputs[t]
                            fresh &= fresh - 1
                        }
                        anyOpen = anyOpen || open[w] != 0
                    }
                    if !anyOpen { break }
                }
            } else if reads[level] == nil {
                // A cell the table does not read.
                let child = try build(level + 1, list)
                for state in 0..<states { entries[state] = child }
            } else {
                var lists = [[UInt64]](repeating: [], count: states)
                var hidden = [Bool](repeating: false, count: states)
                for start in Swift.stride(from: list.startIndex, to: list.endIndex, by: stride) {
                    let t = Int(list[start])
                    let masks = list[start + 1..<start + stride]
                    // The masks after reading a state depend only on the entries that hold it.
                    var after = [[UInt64]?](repeating: nil, count: 1 << slots)
                    for state in 0..<states where !hidden[state] {
                        let holders = Int(holding[t * states + state])
                        guard holders != 0 else { continue }
                        if after[holders] == nil { after[holders] = fill(t, masks, holders) }
                        let next = after[holders]!
                        guard next.contains(where: { $0 != 0 }) else { continue }
                        lists[state].append(UInt64(t))
                        lists[state] += next
                        if hides(t, next[...]) { hidden[state] = true }
                    }
                    if !hidden.contains(false) { break }
                }
                for state in 0..<states { entries[state] = try build(level + 1, lists[state][...]) }
            }
            let offset = store.node(level, entries)
            built.insert(level, list, hash, offset)
            guard store.nodes.count + built.held <= RuleTree.mostHeld else { throw RuleTree.tooBig() }
            return offset
        }

        /// The masks after one more neighbour, of a state the entries `holders` hold.
        private func fill(_ t: Int, _ masks: ArraySlice<UInt64>, _ holders: Int) -> [UInt64] {
            var next = [UInt64](repeating: 0, count: maskWords)
            for (w, word) in masks.enumerated() {
                var left = word
                while left != 0 {
                    let filled = w << 6 | left.trailingZeroBitCount
                    var choices = holders & Int(fillable[t << slots | filled])
                    while choices != 0 {
                        let mask = filled | 1 << choices.trailingZeroBitCount
                        next[mask >> 6] |= 1 << UInt64(mask & 63)
                        choices &= choices - 1
                    }
                    left &= left - 1
                }
            }
            return next
        }
    }

    /// A tree with identical nodes shared and laid out in post-order from the root,
    /// children in state order. `entry(node, state)` is the node one level down, or at
    /// the last level the new state.
    static func canonical(states: Int, levels: Int, root: Int, entry: (Int, Int) -> Int) -> (nodes: [UInt32], root: UInt32) {
        var store = NodeStore(states: states)
        var made = [[Int: UInt32]](repeating: [:], count: levels)
        func visit(_ node: Int, _ level: Int) -> UInt32 {
            if let done = made[level][node] { return done }
            let entries = (0..<states).map { state in
                level == levels - 1 ? UInt32(entry(node, state)) : visit(entry(node, state), level + 1)
            }
            let offset = store.node(level, entries)
            made[level][node] = offset
            return offset
        }
        let top = visit(root, 0)
        return (store.nodes, top)
    }
}

// MARK: - @TREE

extension RuleTree {
    /// A tree as ruletreealgo's `setrule` reads it: `num_states=`, `num_neighbors=`
    /// and `num_nodes=` lines (as sscanf's " num_states = %d" matches them), then
    /// node lines, each its level (one digit, 1 for the last input) and one value for
    /// each state (at level 1 a state, above the index of a node one level down); the
    /// last node is the root. Golly reads a space after a node line's last value as one
    /// more value, 0, and so refuses the line.
    struct GollyTree {
        let states: Int
        let neighbours: Int
        /// Each node's values, in the file's order.
        let values: [[Int]]

        init(reading reader: inout LineReader) throws {
            let bytes = reader.bytes
            var (states, neighbours, count): (Int32, Int32, Int32) = (-1, -1, -1)
            var values: [[Int]] = [], levels: [Int] = []
            var level = 1000
            while let line = reader.next(limit: 4096) {
                if line.raw.first == ascii("@") { break }
                func refuse(_ problem: String, fix: String) -> TesseraError {
                    let shown = String(decoding: line.text.prefix(72), as: UTF8.self)
                    return TesseraError("@TREE line \(LineReader(bytes).lineNumber(at: line.start)) '\(shown)': \(problem)", fix: fix)
                }
                let text = line.text
                guard let first = text.first, first != ascii("#") else { continue }
                // Golly reads these at any point; once nodes are read, a change makes
                // nodes of another size, read past their end.
                if let value = scanSetting(text, "num_states") {
                    guard values.isEmpty || value == states else {
                        throw refuse("num_states changes after node lines", fix: "declare it once, before the nodes")
                    }
                    states = value
                    continue
                }
                if let value = scanSetting(text, "num_neighbors") {
                    guard values.isEmpty || value == neighbours else {
                        throw refuse("num_neighbors changes after node lines", fix: "declare it once, before the nodes")
                    }
                    neighbours = value
                    continue
                }
                if let value = scanSetting(text, "num_nodes") {
                    count = value
                    continue
                }
                guard states >= 2 && states <= 256 && (neighbours == 4 || neighbours == 8) && count >= neighbours && count <= 100_000_000 else {
                    throw refuse("a node line comes before num_states (2 to 256), num_neighbors (4 or 8) and num_nodes (at least num_neighbors)",
                                 fix: "declare those three first")
                }
                guard first >= ascii("1") && Int32(first) <= Int32(ascii("0")) + 1 + neighbours else {
                    throw refuse("a node line begins with its level, 1 to \(neighbours + 1)", fix: "begin it with the level, no space before")
                }
                level = Int(first - ascii("0"))
                // The values as Golly's loop reads them: runs of bytes over ' ' (a
                // signed char, so bytes from 128 count as spaces), a value after every
                // run of spaces, even one at the end.
                var node: [Int] = []
                var p = text.startIndex + 1
                while p < text.endIndex {
                    while p < text.endIndex && Int8(bitPattern: text[p]) <= 32 { p += 1 }
                    var value: Int32 = 0
                    while p < text.endIndex && Int8(bitPattern: text[p]) > 32 {
                        guard text[p] >= ascii("0") && text[p] <= ascii("9") else {
                            throw refuse("a node line holds only its level and values, digits parted by spaces", fix: "remove what is not a digit")
                        }
                        value = value &* 10 &+ Int32(text[p] - ascii("0"))
                        p += 1
                    }
                    if level == 1 {
                        guard value >= 0 && value < states else {
                            throw refuse("state \(value) is out of range for num_states=\(states)", fix: "use states 0 to \(states - 1)")
                        }
                    } else {
                        guard value >= 0 && Int(value) <= values.count else {
                            throw refuse("node \(value) is not given before this line", fix: "give nodes before those that refer to them")
                        }
                        guard Int(value) < values.count && levels[Int(value)] == level - 1 else {
                            throw refuse("node \(value) is not one level down", fix: "refer to nodes of level \(level - 1) from a node of level \(level)")
                        }
                    }
                    node.append(Int(value))
                }
                guard node.count == states else {
                    throw refuse("a node of \(node.count) values, where num_states=\(states)",
                                 fix: "give one value a state, with no space after the last (Golly reads it as one more value)")
                }
                values.append(node)
                levels.append(level)
            }
            // Golly compares the values read with num_nodes * num_states as C's int makes it.
            guard values.reduce(0, { $0 + $1.count }) == Int(UInt32(bitPattern: count &* states)) else {
                throw TesseraError("the @TREE has \(values.count) nodes, where num_nodes=\(count)",
                                   fix: "give num_nodes as the count of node lines")
            }
            guard level == Int(neighbours) + 1 else {
                throw TesseraError("the @TREE's last node, its root, has level \(level), where num_neighbors=\(neighbours) makes it \(neighbours + 1)",
                                   fix: "end the tree with its root")
            }
            (self.states, self.neighbours, self.values) = (Int(states), Int(neighbours), values)
        }
    }
}

// MARK: - Reading as C does

private func ascii(_ scalar: Unicode.Scalar) -> UInt8 { UInt8(scalar.value) }

/// Golly's `trim`: spaces, tabs, CRs and LFs off both ends.
private func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let blank: (UInt8) -> Bool = { $0 == 32 || $0 == 9 || $0 == 13 || $0 == 10 }
    guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return [] }
    return text[first...last]
}

extension ArraySlice<UInt8> {
    /// Golly's `starts_with` (strnicmp): the keyword's length, ASCII letters of either case.
    fileprivate func startsCaseInsensitive(_ keyword: String) -> Bool {
        let lower: (UInt8) -> UInt8 = { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        return count >= keyword.utf8.count && zip(self, keyword.utf8).allSatisfy { lower($0) == lower($1) }
    }
}

/// sscanf's `%d` (`signed`) or `%u`: spaces first, a sign, then at least one digit,
/// anything after ignored; nil where no digit comes. The value is what glibc stores: the
/// long strtol or strtoul makes (clamped where it overflows), cut to 32 bits, so `%u`
/// reads -1 as 4294967295.
private func scanInteger(_ text: ArraySlice<UInt8>, signed: Bool) -> UInt32? {
    var i = text.startIndex
    while i < text.endIndex && (text[i] == 32 || (9...13).contains(text[i])) { i += 1 }
    let negative = i < text.endIndex && text[i] == ascii("-")
    if i < text.endIndex && (text[i] == ascii("-") || text[i] == ascii("+")) { i += 1 }
    let digits = i
    var magnitude: UInt64 = 0, overflow = false
    while i < text.endIndex && text[i] >= ascii("0") && text[i] <= ascii("9") {
        let (times, over) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, carry) = times.addingReportingOverflow(UInt64(text[i] - ascii("0")))
        overflow = overflow || over || carry
        magnitude = sum
        i += 1
    }
    guard i > digits else { return nil }
    if signed {
        let value: Int64 = negative ? (overflow || magnitude > 1 << 63 ? .min : Int64(bitPattern: 0 &- magnitude))
                                    : (overflow || magnitude > UInt64(Int64.max) ? .max : Int64(magnitude))
        return UInt32(truncatingIfNeeded: value)
    }
    return UInt32(truncatingIfNeeded: overflow ? .max : negative ? 0 &- magnitude : magnitude)
}

/// sscanf(line, " KEY = %d"): spaces, the key, spaces, '=', then `%d`.
private func scanSetting(_ text: ArraySlice<UInt8>, _ key: String) -> Int32? {
    let blank: (UInt8) -> Bool = { $0 == 32 || (9...13).contains($0) }
    var rest = text.drop(while: blank)
    guard rest.starts(with: key.utf8) else { return nil }
    rest = rest.dropFirst(key.utf8.count).drop(while: blank)
    guard rest.first == ascii("=") else { return nil }
    return scanInteger(rest.dropFirst(), signed: true).map { Int32(bitPattern: $0) }
}
