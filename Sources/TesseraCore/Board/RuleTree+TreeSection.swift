// Reading an @TREE section.

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
                    LineReader(bytes).refusal(in: "@TREE", of: line, problem, fix: fix)
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

/// sscanf(line, " KEY = %d"): spaces, the key, spaces, '=', then `%d`.
private func scanSetting(_ text: ArraySlice<UInt8>, _ key: String) -> Int32? {
    let blank: (UInt8) -> Bool = { $0 == 32 || (9...13).contains($0) }
    var rest = text.drop(while: blank)
    guard rest.starts(with: key.utf8) else { return nil }
    rest = rest.dropFirst(key.utf8.count).drop(while: blank)
    guard rest.first == ascii("=") else { return nil }
    return scanInteger(rest.dropFirst(), signed: true).map { Int32(bitPattern: $0) }
}

// Writing one.

extension RuleTree {
    /// The rule as a rule file with an `@TREE` section, as Golly's ruletreealgo reads it:
    /// `RuleTree(parsing:)` reads it back to this tree, node for node (how a rule file's
    /// rule reaches a worker, which may not have the file).
    package var treeText: String {
        let inputs = neighbourhood == .moore ? 9 : 5
        var lines: [String] = [], numbered: [Int: Int] = [:]
        // A node's number in the file, its children numbered first; a node sits at one
        // depth only (its entries are offsets below the last input, states at it).
        func number(_ offset: Int, depth: Int) -> Int {
            if let known = numbered[offset] { return known }
            let values = (0..<states).map { v in
                depth == inputs - 1 ? Int(nodes[offset + v]) : number(Int(nodes[offset + v]), depth: depth + 1)
            }
            lines.append("\(inputs - depth) " + values.map(String.init).joined(separator: " "))
            numbered[offset] = lines.count - 1
            return lines.count - 1
        }
        _ = number(Int(root), depth: 0)
        return "@RULE \(name)\n@TREE\nnum_states=\(states)\nnum_neighbors=\(inputs - 1)\nnum_nodes=\(lines.count)\n"
            + lines.joined(separator: "\n") + "\n"
    }
}
