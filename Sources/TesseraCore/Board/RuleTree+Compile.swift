// Compiling a table into the tree, and laying out any tree canonically.

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
