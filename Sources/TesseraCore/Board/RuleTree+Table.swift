// Reading an @TABLE section: its settings, variables and transitions, and the
// neighbourhoods and symmetries Golly gives them.

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
                    LineReader(bytes).refusal(in: "@TABLE", of: line, problem, fix: fix)
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

// MARK: - Reading as C does

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
