extension RuleTree {
    /// A two-state rule of the 3x3 neighbourhood as a tree, for the whole-board engine
    /// that runs Golly's other grids (`EdgeJoin`). B0 is refused: Golly emulates it only
    /// on tiles' terms (`Rule.Emulation`), and its bounded grids' borders assume none.
    public init(twoState rule: Rule) throws {
        guard rule.isTwoStateMoore, rule.emulation == .none else {
            throw TesseraError("rule \(rule) has B0, which runs only on a torus, a plane or the unbounded plane",
                               fix: "use :T or :P, or a rule without B0")
        }
        // The tree's inputs (nw, ne, sw, se, n, w, e, s, c) as bits of `RuleTable`'s index.
        let bits = [0, 2, 6, 8, 1, 3, 5, 7, 4]
        // A node is the inputs read so far, as index bits, with a marker bit on top.
        let (nodes, root) = Self.canonical(states: 2, levels: 9, root: 1) { node, state in
            let level = Int.bitWidth - node.leadingZeroBitCount - 1
            let read = node << 1 | state
            guard level == 8 else { return read }
            var index = 0
            for (input, bit) in bits.enumerated() where read >> (8 - input) & 1 == 1 { index |= 1 << bit }
            return rule.next(index) ? 1 : 0
        }
        self.init(name: rule.description, states: 2, neighbourhood: .moore, nodes: nodes, root: root)
    }
}
