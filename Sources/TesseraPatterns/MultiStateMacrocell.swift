import TesseraCore

extension Macrocell {
    /// The rest of a macrocell of more than two states, from its first node line on: a
    /// node of level 1 is `1 nw ne sw se`, four cells' states; higher levels name their
    /// children as two-state files do, and the root lies where a two-state root would.
    /// Under a rule tree on the unbounded plane the file's squares are kept as they are
    /// (`Pattern.stateTree`), for HashLife; otherwise the cells are read whole, as their
    /// engine steps them (`WholeBoard`).
    static func states<Lines: IteratorProtocol>(from first: Substring, then lines: inout Lines, number: Int,
                                                _ header: Pattern) throws -> Pattern where Lines.Element == Substring {
        let most = header.rule?.states ?? 256
        var nodes: [(level: Int, children: [Int])] = []
        var line = first, number = number
        while true {
            func bad(_ what: String) -> TesseraError {
                TesseraError("line \(number) of the macrocell: \(what)", fix: "give a file Golly saved as macrocell (.mc)")
            }
            if !line.hasPrefix("#") {
                let fields = line.split(separator: " ")
                guard fields.count == 5, let level = Int(fields[0]), (1...maxLevel).contains(level) else {
                    throw bad("expected 'level nw ne sw se' with a level from 1 to \(maxLevel), got '\(line)'")
                }
                let children = try fields.dropFirst().map { field -> Int in
                    guard let child = Int(field) else { throw bad("'\(field)' is not a number") }
                    if level == 1 {
                        guard (0..<most).contains(child) else { throw bad("state \(child) is out of range for rule \(header.rule ?? .life)") }
                    } else {
                        guard (0...nodes.count).contains(child) else { throw bad("child '\(field)' is not an earlier node") }
                        guard child == 0 || nodes[child - 1].level == level - 1 else {
                            throw bad("child \(child) is of level \(nodes[child - 1].level), not \(level - 1)")
                        }
                    }
                    return child
                }
                nodes.append((level, children))
            }
            guard let next = lines.next() else { break }
            (line, number) = (next.trimmingWhitespace, number + 1)
        }
        guard let root = nodes.last, header.rule.map({ $0.states > 2 }) ?? true else {
            throw TesseraError("the macrocell has nodes of level 1, cells of more than two states, under a two-state rule",
                               fix: "give the file's rule of more states in its #R line")
        }
        let side = 1 << root.level
        var pattern = Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: header.rule, board: header.board,
                              generation: header.generation, comments: header.comments)
        pattern.stateTree = StateQuadTree(nodes: nodes.map { StateQuadTree.Node(level: $0.level, children: SIMD4($0.children.map(UInt32.init))) },
                                          left: -side / 2, top: -side / 2 + 1)
        // A rule tree's on the unbounded plane steps the squares as they are; the rest
        // as cells.
        if header.rule?.tree != nil, header.board == nil { return pattern }
        return try pattern.withStatesMade()
    }
}

extension Pattern {
    /// The pattern with its cells and states made from its squares (`stateTree`), for
    /// whatever reads cells; itself where it has none.
    public func withStatesMade() throws -> Pattern {
        guard let squares = stateTree else { return self }
        let nodes = squares.nodes, most = rule?.states ?? 256
        // Each node's cells not in state 0: their bounds from its corner.
        var bounds: [(x0: Int, y0: Int, x1: Int, y1: Int)?] = [nil]
        for node in nodes {
            let half = node.level == 1 ? 1 : 1 << (node.level - 1)
            var box: (x0: Int, y0: Int, x1: Int, y1: Int)? = nil
            for q in 0..<4 {
                let child = Int(node.children[q])
                let part: (x0: Int, y0: Int, x1: Int, y1: Int)?
                if node.level == 1 { part = child == 0 ? nil : (0, 0, 1, 1) } else { part = bounds[child] }
                guard let b = part else { continue }
                let (dx, dy) = (q % 2 * half, q / 2 * half)
                let moved = (b.x0 + dx, b.y0 + dy, b.x1 + dx, b.y1 + dy)
                box = box.map { (min($0.x0, moved.0), min($0.y0, moved.1), max($0.x1, moved.2), max($0.y1, moved.3)) } ?? moved
            }
            bounds.append(box)
        }
        var made = self
        (made.stateTree, made.extent) = (nil, nil)
        // An RLE's squares (`StateTreeRows`) are made into the box it declared, from its
        // top-left, for a grid to place as Golly places the file; a macrocell's into
        // the box of its cells.
        guard let live = extent.map({ (x0: 0, y0: 0, x1: $0.width, y1: $0.height) }) ?? bounds[nodes.count] else {
            made.states = StateGrid(width: 0, height: 0, states: most)
            return made
        }
        let (width, height) = (live.x1 - live.x0, live.y1 - live.y0)
        guard Double(width) * Double(height) <= Double(StateGrid.mostCells) else {
            throw TesseraError("the pattern's cells span \(width)x\(height), past the \(StateGrid.mostCells) cells of more than two states Tessera holds as a grid",
                               fix: "run it under its own rule on the unbounded plane, which steps its squares as they are, or crop it in Golly first")
        }
        try MemoryBudget.check(bytes: (width + 63) / 64 * 8 * height * (1 + StateGrid.planes(for: most)),
                               what: "the pattern's \(width)x\(height) cells of \(most) states", fix: "crop the pattern in Golly first")
        var states = StateGrid(width: width, height: height, states: most)
        var occupied = BitGrid(width: width, height: height)
        // Paints node `index` with its corner at (x, y) from the live box's, skipping what lies outside.
        func paint(_ index: Int, _ x: Int, _ y: Int) {
            guard index > 0, let b = bounds[index] else { return }
            guard x + b.x1 > 0, y + b.y1 > 0, x + b.x0 < width, y + b.y0 < height else { return }
            let node = nodes[index - 1]
            if node.level == 1 {
                for q in 0..<4 where node.children[q] != 0 {
                    states[x + q % 2, y + q / 2] = Int(node.children[q])
                    occupied[x + q % 2, y + q / 2] = true
                }
                return
            }
            let half = 1 << (node.level - 1)
            for q in 0..<4 { paint(Int(node.children[q]), x + q % 2 * half, y + q / 2 * half) }
        }
        paint(nodes.count, -live.x0, -live.y0)
        (made.cells, made.states) = (occupied, states)
        if extent == nil { made.position = (squares.left + live.x0, squares.top + live.y0) }
        return made
    }
}

extension Macrocell {
    /// Cells of more than two states whose top-left is at Golly (`left`, `top`), as a
    /// macrocell file as Golly writes one: nodes of level 1 hold four cells' states, the
    /// root is the smallest of level 2 or more that holds the cells where Golly roots a
    /// file, and nodes come children first, each once: Golly's file line for line where
    /// its root is the smallest (on a bounded grid its root is as large as the steps
    /// made it, and only the cells are the same).
    public static func string(forStates states: StateGrid, left: Int, top: Int, rule: String, generation: UInt64) -> String {
        string(forStateSquares: squares(ofStates: states, left: left, top: top), rule: rule, generation: generation)
    }

    /// Squares as a macrocell's text, their nodes in their order (`squares(ofStates:)`,
    /// `StateHashLife.gollySquares()`).
    public static func string(forStateSquares squares: StateQuadTree, rule: String, generation: UInt64) -> String {
        var text = "[M2] (tessera)\n#R \(rule)\n" + (generation > 0 ? "#G \(generation)\n" : "")
        for node in squares.nodes {
            let c = node.children
            text += "\(node.level) \(c[0]) \(c[1]) \(c[2]) \(c[3])\n"
        }
        return text
    }

    /// The squares of `states`, whose top-left is at Golly (`left`, `top`), as Golly
    /// writes them: children first, each once, under the root `string(forStates:)` says.
    public static func squares(ofStates states: StateGrid, left: Int, top: Int) -> StateQuadTree {
        let occupied = states.occupied
        guard let live = occupied.liveBounds else { return StateQuadTree(nodes: [], left: 0, top: 0) }
        return squares(span: CellBounds(left: left + live.x, top: top + live.y, width: live.width, height: live.height),
                       isEmpty: { rect in
                           let (x0, y0) = (max(rect.left - left, 0), max(rect.top - top, 0))
                           let (x1, y1) = (min(rect.right - left, states.width), min(rect.bottom - top, states.height))
                           return x0 >= x1 || y0 >= y1 || occupied.isEmpty(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                       },
                       state: { x, y in
                           let (gx, gy) = (x - left, y - top)
                           return gx >= 0 && gy >= 0 && gx < states.width && gy < states.height ? states[gx, gy] : 0
                       })
    }

    /// The squares of cells whose box (Golly's coordinates) is `span`, as Golly writes
    /// them, read through `isEmpty` (whether no cell of a rectangle is in a state but 0)
    /// and `state` (one cell's): what a sparse map of them gives without a grid of its box.
    public static func squares(span: CellBounds, isEmpty: (CellBounds) -> Bool, state: (Int, Int) -> Int) -> StateQuadTree {
        let level = QuadTree.gollyRootLevel(holding: span, least: 2)
        let (rootLeft, rootTop) = QuadTree.gollyRootCorner(level: level)
        var nodes: [StateQuadTree.Node] = [], numbers: [Int: [SIMD4<UInt32>: UInt32]] = [:]
        // The node of `level` whose corner is Golly (x, y): its number, 0 where empty.
        func node(_ level: Int, _ x: Int, _ y: Int) -> UInt32 {
            let size = 1 << level
            guard !isEmpty(CellBounds(left: x, top: y, width: size, height: size)) else { return 0 }
            var children = SIMD4<UInt32>()
            if level == 1 {
                for (i, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() { children[i] = UInt32(state(x + dx, y + dy)) }
            } else {
                let half = size / 2
                children = SIMD4(node(level - 1, x, y), node(level - 1, x + half, y), node(level - 1, x, y + half),
                                 node(level - 1, x + half, y + half))
            }
            if let known = numbers[level]?[children] { return known }
            nodes.append(StateQuadTree.Node(level: level, children: children))
            numbers[level, default: [:]][children] = UInt32(nodes.count)
            return UInt32(nodes.count)
        }
        _ = node(level, rootLeft, rootTop)
        return StateQuadTree(nodes: nodes, left: rootLeft, top: rootTop)
    }
}
