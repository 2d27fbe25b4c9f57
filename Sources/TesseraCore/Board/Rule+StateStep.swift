extension Rule {
    /// A rule as Golly's notation writes it, else the name of von Neumann's rules or of a
    /// rule file (`RuleFiles`).
    package init(named text: String) throws {
        do {
            self = try Rule(parsing: text)
        } catch {
            guard let tree = try VonNeumannRules.tree(named: text) ?? RuleFiles.tree(named: text) else { throw error }
            self.init(tree: tree)
        }
    }

    /// Whether its cells are held as bit planes of states (`stateStep`): Generations,
    /// Larger than Life with history, a rule file.
    package var steppedAsStates: Bool { generations != nil || (largerThanLife?.states ?? 2) > 2 || tree != nil }

    /// The bit planes its cells take where they are held as states (`steppedAsStates`);
    /// nil for two-state cells, held as bits.
    package var statePlanes: Int? { steppedAsStates ? StateGrid.planes(for: states) : nil }

    /// One generation of a rule of more than two states on bit planes (`StateGrid`), a
    /// torus where the flag says so, else state 0 beyond the edges: Generations, Larger
    /// than Life with history, a rule file. Nil for a two-state rule (its kernels take
    /// bits). Whatever the step needs once (Generations' rule of the live cells, compiled)
    /// is made here, not each generation.
    package func stateStep(using kernel: Kernel.Implementation = Kernel.best)
        -> (@Sendable (StateGrid, inout StateGrid, Bool) throws -> Void)? {
        guard steppedAsStates else { return nil }
        if let generations {
            let alive = generations.alive, count = generations.states
            return { try $0.step(alive: alive, states: count, into: &$1, wraps: $2, using: kernel) }
        }
        if let ltl = largerThanLife, ltl.states > 2 { return { try $0.step(ltl, into: &$1, wraps: $2) } }
        if let tree { return { try $0.step(tree, into: &$1, wraps: $2) } }
        preconditionFailure("\(self) is held as states but has no step of them")
    }
}
