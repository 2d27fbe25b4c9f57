import TesseraCore

/// Golly's macrocell format (`[M2]`), which stores the board as a quadtree
/// with shared subtrees: a huge, regular pattern takes a small file.
///
/// - `[M2] (…)` first; `#R rule`, `#G generation`, other `#` lines are comments.
/// - A leaf line is an 8×8 block (level 3): rows top to bottom, `.` dead, `*` alive,
///   `$` ends a row; trailing dead cells and trailing empty rows are left out. A rule
///   of more states has no leaf lines: its nodes of level 1 hold four cells' states
///   (`MultiStateMacrocell.swift`).
/// - A node line is `level nw ne sw se`, its children's numbers (0: empty); nodes are
///   numbered from 1 in file order, children before parents, and the last is the root.
/// - The root, of side s, spans Golly x ∈ [−s/2, s/2) and y ∈ [−s/2 + 1, s/2 + 1),
///   as bgolly writes it.
public enum Macrocell {
    /// Deepest root read: its corners still fit in 64-bit coordinates.
    static let maxLevel = QuadTree.maxLevel

    private typealias Node = QuadTree.Node

    public static func parse(_ text: String) throws -> Pattern {
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).makeIterator()
        guard let first = lines.next(), first.hasPrefix("[M2]") else {
            throw TesseraError("not a macrocell file (no '[M2]' first line)", fix: "give a file Golly saved as macrocell (.mc)")
        }
        var nodes: [Node] = []
        var rule: Rule? = nil, board: BoardShape? = nil, generation: UInt64 = 0, comments: [String] = []
        var number = 1
        while let raw = lines.next() {
            number += 1
            let line = raw.trimmingWhitespace
            func bad(_ what: String) -> TesseraError {
                TesseraError("line \(number) of the macrocell: \(what)", fix: "give a file Golly saved as macrocell (.mc)")
            }
            if line.isEmpty { continue }
            if line.hasPrefix("#R") {
                (rule, board) = try BoardShape.parseRule(String(line.dropFirst(2).trimmingWhitespace))
            } else if line.hasPrefix("#G") {
                guard let g = UInt64(line.dropFirst(2).trimmingWhitespace) else { throw bad("bad generation '\(line)'") }
                generation = g
            } else if line.hasPrefix("#") {
                comments.append(String(line.dropFirst(2)))
            } else if let c = line.first, ".*$".contains(c) {
                var bits: UInt64 = 0, x = 0, y = 0
                for ch in line {
                    switch ch {
                    case "$": (x, y) = (0, y + 1)
                    case ".", "*":
                        guard x < 8, y < 8 else { throw bad("a leaf is 8x8 cells") }
                        if ch == "*" { bits |= 1 << UInt64(y * 8 + x) }
                        x += 1
                    default: throw bad("'\(ch)' in a leaf (only '.', '*' and '$')")
                    }
                }
                nodes.append(.leaf(bits))
            } else {
                let fields = line.split(separator: " ")
                guard fields.count == 5, let level = Int(fields[0]) else { throw bad("expected 'level nw ne sw se', got '\(line)'") }
                if level == 1, nodes.isEmpty {
                    return try states(from: line, then: &lines, number: number,
                                      Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board,
                                              generation: generation, comments: comments))
                }
                guard (4...maxLevel).contains(level) else { throw bad("level \(level) is outside 4...\(maxLevel)") }
                let children = try fields.dropFirst().map { field -> Int in
                    guard let child = Int(field), (0...nodes.count).contains(child) else {
                        throw bad("child '\(field)' is not an earlier node")
                    }
                    if child > 0, nodes[child - 1].level != level - 1 {
                        throw bad("child \(child) is of level \(nodes[child - 1].level), not \(level - 1)")
                    }
                    return child
                }
                nodes.append(.branch(level: level, children: children))
            }
        }
        guard let root = nodes.last else {
            return Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board,
                           generation: generation, comments: comments)
        }
        let side = 1 << root.level
        let (left, top) = (-side / 2, -side / 2 + 1)
        // Each node's live cells' bounds relative to its corner, once per node.
        var bounds = [(x0: Int, y0: Int, x1: Int, y1: Int)?](repeating: nil, count: nodes.count + 1)
        for (i, node) in nodes.enumerated() {
            switch node {
            case .leaf(let bits):
                guard bits != 0 else { continue }
                var x0 = 8, y0 = 8, x1 = 0, y1 = 0
                for bit in 0..<64 where bits >> UInt64(bit) & 1 == 1 {
                    (x0, y0, x1, y1) = (min(x0, bit % 8), min(y0, bit / 8), max(x1, bit % 8 + 1), max(y1, bit / 8 + 1))
                }
                bounds[i + 1] = (x0, y0, x1, y1)
            case .branch(let level, let children):
                let half = 1 << (level - 1)
                for (q, child) in children.enumerated() {
                    guard let b = bounds[child] else { continue }
                    let (dx, dy) = (q % 2 * half, q / 2 * half)
                    let moved = (b.x0 + dx, b.y0 + dy, b.x1 + dx, b.y1 + dy)
                    bounds[i + 1] = bounds[i + 1].map { (min($0.x0, moved.0), min($0.y0, moved.1), max($0.x1, moved.2), max($0.y1, moved.3)) }
                        ?? moved
                }
            }
        }
        guard let live = bounds[nodes.count] else {
            return Pattern(cells: BitGrid(width: 0, height: 0), position: (0, 0), rule: rule, board: board,
                           generation: generation, comments: comments)
        }
        let (nodeList, liveBounds) = (nodes, bounds)
        func grid(_ box: CellBounds, holding pieces: [(index: Int, x: Int, y: Int)]) throws -> BitGrid {
            guard box.width <= BoardShape.maxSide, box.height <= BoardShape.maxSide else {
                throw TesseraError("the macrocell's live cells span \(box.width)x\(box.height), more than Tessera holds as one pattern",
                                   fix: "crop the pattern in Golly first")
            }
            try MemoryBudget.check(bytes: box.width / 8 * box.height, what: "the macrocell's \(box.width)x\(box.height) live area",
                                   fix: "crop the pattern in Golly first")
            return Self.paint(pieces, of: nodeList, live: liveBounds, box: box)
        }
        let whole = CellBounds(left: live.x0, top: live.y0, width: live.x1 - live.x0, height: live.y1 - live.y0)
        func pattern(cells: BitGrid, at box: CellBounds) -> Pattern {
            Pattern(cells: cells, position: (left + box.left, top + box.top), rule: rule, board: board,
                    generation: generation, comments: comments)
        }
        if whole.width <= flatSide, whole.height <= flatSide {
            return pattern(cells: try grid(whole, holding: [(nodes.count, 0, 0)]), at: whole)
        }
        // A large span: each populated node of `pieceLevel` becomes a part of its own,
        // cut to its live cells, so memory follows what lives, not the span (the sparse
        // plane takes the parts as they are).
        var pieces: [(index: Int, x: Int, y: Int, box: CellBounds)] = []
        func collect(_ index: Int, level: Int, _ x: Int, _ y: Int) throws {
            guard index > 0, let b = bounds[index] else { return }
            guard level > pieceLevel, case .branch(_, let children) = nodes[index - 1] else {
                guard pieces.count < maxPieces else {
                    throw TesseraError("the macrocell's live cells lie in more than \(maxPieces) pieces far apart",
                                       fix: "crop the pattern in Golly first")
                }
                pieces.append((index, x, y, CellBounds(left: x + b.x0, top: y + b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0)))
                return
            }
            let half = 1 << (level - 1)
            for (q, child) in children.enumerated() { try collect(child, level: level - 1, x + q % 2 * half, y + q / 2 * half) }
        }
        try collect(nodes.count, level: root.level, 0, 0)
        try MemoryBudget.check(bytes: pieces.reduce(0) { $0 + ($1.box.width + 63) / 64 * 8 * $1.box.height },
                               what: "the macrocell's \(pieces.count) pieces of live cells", fix: "crop the pattern in Golly first")
        // The pieces' cells are painted when first asked for: HashLife takes the tree.
        let found = pieces
        let pending = PendingParts(bounds: found.map { CellBounds(left: left + $0.box.left, top: top + $0.box.top,
                                                                  width: $0.box.width, height: $0.box.height) }) {
            found.map { piece in
                PlacedCells(cells: paint([(piece.index, piece.x, piece.y)], of: nodeList, live: liveBounds, box: piece.box),
                            left: left + piece.box.left, top: top + piece.box.top)
            }
        }
        return Pattern(tree: QuadTree(nodes: nodes, left: left, top: top), pending: pending, rule: rule, board: board,
                       generation: generation, comments: comments)
    }

    /// The cells of `box` (from the root's corner) that the nodes `pieces` hold, each at
    /// its corner (x, y) from the root's; `live` is each node's live cells' bounds.
    private static func paint(_ pieces: [(index: Int, x: Int, y: Int)], of nodes: [Node],
                              live: [(x0: Int, y0: Int, x1: Int, y1: Int)?], box: CellBounds) -> BitGrid {
        var cells = BitGrid(width: box.width, height: box.height)
        func paint(_ index: Int, _ x: Int, _ y: Int) {
            guard index > 0, live[index] != nil else { return }
            switch nodes[index - 1] {
            case .leaf(let bits):
                for bit in 0..<64 where bits >> UInt64(bit) & 1 == 1 { cells[x + bit % 8 - box.left, y + bit / 8 - box.top] = true }
            case .branch(let level, let children):
                let half = 1 << (level - 1)
                for (q, child) in children.enumerated() { paint(child, x + q % 2 * half, y + q / 2 * half) }
            }
        }
        for piece in pieces { paint(piece.index, piece.x, piece.y) }
        return cells
    }

    /// The widest live span read as one grid without looking for groups far apart.
    static let flatSide = 8192
    /// Parts of a large span: nodes of this level, 512 cells a side.
    static let pieceLevel = 9
    static let maxPieces = 1 << 20

    /// `cells` whose top-left is at Golly (`left`, `top`), as a macrocell file.
    public static func string(for cells: BitGrid, left: Int, top: Int, rule: String, generation: UInt64) -> String {
        string(for: [PlacedCells(cells: cells, left: left, top: top)], rule: rule, generation: generation)
    }

    /// A file's first lines: the format, the rule, and the generation unless it is 0.
    private static func header(rule: String, generation: UInt64) -> String {
        "[M2] (tessera)\n#R \(rule)\n" + (generation > 0 ? "#G \(generation)\n" : "")
    }

    /// A leaf's line as Golly writes it: rows of `.` and `*` to the last live cell, each
    /// ended by `$`, to the last live row.
    static func leafLine(_ bits: UInt64) -> String {
        var line = "", lastRow = 7
        while lastRow > 0, bits >> UInt64(lastRow * 8) & 0xFF == 0 { lastRow -= 1 }
        for r in 0...lastRow {
            let row = bits >> UInt64(r * 8) & 0xFF
            if row != 0 { for c in 0..<(64 - row.leadingZeroBitCount) { line += row >> UInt64(c) & 1 == 1 ? "*" : "." } }
            line += "$"
        }
        return line
    }

    /// A branch's line: its level and its four children's numbers. A loop, not
    /// `joined(separator:)`, whose unspecialised code costs a process its first call's
    /// type lookups (a tenth of a small run).
    static func branchLine(level: Int, _ children: [Int]) -> String {
        var line = String(level)
        for child in children { line += " " + String(child) }
        return line
    }

    /// `tree` (its root where Golly roots a file: the smallest centred square that holds
    /// the cells) as a macrocell file, node for node.
    public static func string(for tree: QuadTree, rule: String, generation: UInt64) -> String {
        var out = header(rule: rule, generation: generation)
        for node in tree.nodes {
            switch node {
            case .leaf(let bits): out += leafLine(bits) + "\n"
            case .branch(let level, let children): out += branchLine(level: level, children) + "\n"
            }
        }
        return out
    }

    /// `parts`, each at its place in Golly's coordinates, as one macrocell file: a
    /// quadtree, so parts a billion cells apart take no more than the parts themselves.
    public static func string(for parts: [PlacedCells], rule: String, generation: UInt64) -> String {
        let out = header(rule: rule, generation: generation)
        let parts = parts.filter { $0.cells.population > 0 }
        guard let first = parts.first else { return out }
        let span = CellBounds.enclosing(parts.map(\.bounds)) ?? first.bounds
        let level = QuadTree.gollyRootLevel(holding: span)
        let (rootLeft, rootTop) = QuadTree.gollyRootCorner(level: level)
        var lines = NodeLines(header: out)
        func leaf(_ x: Int, _ y: Int, _ parts: [PlacedCells]) -> Int {
            var bits: UInt64 = 0
            for part in parts {
                let cells = part.cells
                for r in 0..<8 {
                    let cy = y + r - part.top
                    guard cy >= 0, cy < cells.height else { continue }
                    for c in 0..<8 {
                        let cx = x + c - part.left
                        if cx >= 0, cx < cells.width, cells[cx, cy] { bits |= 1 << UInt64(r * 8 + c) }
                    }
                }
            }
            guard bits != 0 else { return 0 }
            // A leaf's key: no branch has level 0.
            return lines.number([0, Int(bitPattern: UInt(bits))], line: leafLine(bits))
        }
        // `parts`: those that may have live cells in this node.
        func node(_ level: Int, _ x: Int, _ y: Int, _ parts: [PlacedCells]) -> Int {
            // Nothing of the pattern inside: empty.
            let size = 1 << level
            let square = CellBounds(left: x, top: y, width: size, height: size)
            let inside = parts.filter { part in
                guard let o = square.intersection(part.bounds) else { return false }
                return !part.cells.isEmpty(x: o.left - part.left, y: o.top - part.top, width: o.width, height: o.height)
            }
            guard !inside.isEmpty else { return 0 }
            if level == 3 { return leaf(x, y, inside) }
            let half = size / 2
            let children = [node(level - 1, x, y, inside), node(level - 1, x + half, y, inside),
                            node(level - 1, x, y + half, inside), node(level - 1, x + half, y + half, inside)]
            if children.allSatisfy({ $0 == 0 }) { return 0 }
            return lines.branch(level: level, children: children)
        }
        _ = node(level, rootLeft, rootTop, parts)
        return lines.text
    }

    /// A macrocell file's node lines, each written once, numbered from 1 in the order
    /// written: children before their parents, as Golly numbers them.
    struct NodeLines {
        private(set) var text: String
        private var numbers: [[Int]: Int] = [:]

        init(header: String) { text = header }

        /// The number of the node `key` names, its `line` written first where it is new.
        mutating func number(_ key: [Int], line: @autoclosure () -> String) -> Int {
            if let known = numbers[key] { return known }
            text += line() + "\n"
            numbers[key] = numbers.count + 1
            return numbers.count
        }

        mutating func branch(level: Int, children: [Int]) -> Int {
            number([level] + children, line: Macrocell.branchLine(level: level, children))
        }
    }
}
