// The stores that make each node of a tree, and each list of a level, once.

extension RuleTree {
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
}
