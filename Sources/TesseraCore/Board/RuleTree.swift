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
