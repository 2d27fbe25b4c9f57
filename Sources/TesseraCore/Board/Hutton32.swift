/// Tim Hutton's 32-state variant of von Neumann's automaton (`Hutton32`, Golly's JvN
/// engine), in Golly's state numbers (those of `VonNeumannRules`). An ordinary wire's
/// end writes a cell and retracts in one pass, and what it writes turns with the wire:
///
/// - The wire's last cell, while it writes, marks the bit it sends: an excited ordinary
///   transmission for 1, an excited special one for 0; then it is ordinary again.
/// - A sensitized cell that becomes a transmission points the way of the excited
///   transmission feeding it, turned as its path says (forward, left, right, reverse).
/// - A transmission whose output becomes an ordinary one (or is a quiescent special one)
///   dies where an excitation reaches it: the wire retracts. One whose output becomes a
///   confluent dies, or turns sensitized where an excitation reaches it.
/// - Ordinary excitations no longer destroy special transmissions.
///
/// The rule reads the four neighbours' states as they are, so it is written over states,
/// and its tree made by stepping every neighbourhood once (`build`).
enum Hutton32 {
    /// What a cell's four neighbours hold and send it, worked out once for the 32 cells
    /// they may surround. Directions are a transmission's (0 east, 1 north, 2 west,
    /// 3 south); a neighbour lying in direction `d` points at the cell when it points
    /// `d ^ 2`. Masks have bit `d` for the neighbour lying in direction `d`.
    struct Neighbours {
        /// The neighbours' states, by the direction each lies in.
        private let lying: SIMD4<Int>
        /// Excited ordinary (special) transmissions pointing at the cell.
        let ordinaryArrows: Int, specialArrows: Int
        /// Confluents emitting at the cell.
        let emitting: Int
        /// Transmissions pointing at the cell, ordinary ones among them, and the rest.
        let pointing: Int, ordinaryPointing: Int, beside: Int
        /// The excited transmission that feeds the cell: the first pointing at it of
        /// west, south, east and north, as Golly looks; 0 for none.
        let feed: Int
        /// All that `next` reads of the neighbours, as one key.
        let behaviour: UInt64

        init(north: Int, west: Int, east: Int, south: Int) {
            lying = SIMD4(east, north, west, south)
            let key = Self.key(north: north, west: west, east: east, south: south)
            func mask(_ at: UInt64) -> Int { Int(truncatingIfNeeded: key >> at & 0xF) }
            (ordinaryArrows, specialArrows, emitting, ordinaryPointing) = (mask(0), mask(4), mask(8), mask(12))
            (pointing, beside) = (mask(40), mask(44))
            feed = Int(truncatingIfNeeded: key >> 16 & 0x1F)
            behaviour = key & (1 << 40 - 1)
        }

        /// What `next` reads of the neighbours, as one key: the masks above, the feed,
        /// whether two transmissions point in and two lie beside (a crossing), and each
        /// neighbour as a cell's output: 0, 1...3, 4, 5, 6, 7, 8, a quiescent special
        /// transmission, or anything else. From a table of what each state lying in each
        /// direction adds, so that the tree's 32^4 neighbourhoods each cost a few loads,
        /// not a `Neighbours`.
        static func behaviour(north: Int, west: Int, east: Int, south: Int) -> UInt64 {
            key(north: north, west: west, east: east, south: south) & (1 << 40 - 1)
        }

        /// `behaviour`, and past bit 40 the masks of `pointing` and `beside`.
        private static func key(north: Int, west: Int, east: Int, south: Int) -> UInt64 {
            let parts = Self.parts
            let key = parts[east] | parts[32 + north] | parts[64 + west] | parts[96 + south]
            let arrows = Int(truncatingIfNeeded: (key | key >> 4) & 0xF)
            // The first pointing at the cell of west, south, east and north, as Golly looks.
            let feed = arrows & 4 != 0 ? west : arrows & 8 != 0 ? south : arrows & 1 != 0 ? east : arrows & 2 != 0 ? north : 0
            let crossing = (key >> 40 & 0xF).nonzeroBitCount == 2 && (key >> 44 & 0xF).nonzeroBitCount == 2
            return key | UInt64(feed) << 16 | (crossing ? 1 << 21 : 0)
        }

        /// What a neighbour in `state` lying in direction `lies` adds to the key, at
        /// `32 * lies + state`: its bits of the masks, its output, and past bit 40 its
        /// bits of `pointing` and `beside`.
        private static let parts: [UInt64] = (0..<4).flatMap { lies in
            (0..<32).map { state -> UInt64 in
                let bit = UInt64(1) << lies
                var part: UInt64 = 0
                if isTransmission(state) {
                    if direction(state) == lies ^ 2 {
                        part |= bit << 40
                        if isOrdinary(state) { part |= bit << 12 }
                        if isExcited(state) { part |= isOrdinary(state) ? bit : bit << 4 }
                    } else {
                        part |= bit << 44
                    }
                }
                if Hutton32.emits(state, towards: lies ^ 2) { part |= bit << 8 }
                let output: UInt64 = switch state {
                case 0: 0
                case 1...3: 1
                case 4...8: UInt64(state - 2)
                case 17...20: 7
                default: 8
                }
                return part | output << (22 + 4 * lies)
            }
        }

        func at(_ direction: Int) -> Int { lying[direction] }

        /// Whether an excitation of one kind reaches `cell`: from `mask`'s neighbours, but
        /// not back from the one a transmission of that kind points at.
        func reaches(_ mask: Int, cell: Int, special: Bool) -> Bool {
            let pointsBack = (special ? isSpecial(cell) : isOrdinary(cell)) ? 1 << direction(cell) : 0
            return mask & ~pointsBack != 0
        }
    }

    static func isOrdinary(_ state: Int) -> Bool { (9...16).contains(state) }
    static func isSpecial(_ state: Int) -> Bool { (17...24).contains(state) }
    static func isTransmission(_ state: Int) -> Bool { (9...24).contains(state) }
    static func isExcited(_ state: Int) -> Bool { (13...16).contains(state) || (21...24).contains(state) }
    static func isSensitized(_ state: Int) -> Bool { (1...8).contains(state) }
    /// A transmission's direction; for other states what Golly's arithmetic gives
    /// (a byte), which only the odd neighbourhoods of no working machine reach.
    static func direction(_ state: Int) -> Int { Int(UInt8(truncatingIfNeeded: (state - 9) % 4)) }
    /// Excitation gone: an excited transmission's quiescent state, a confluent's 25.
    static func quiet(_ state: Int) -> Int {
        if isExcited(state) { return state - 4 }
        return (26...31).contains(state) ? 25 : state
    }

    /// A confluent emitting towards `direction`: every way when it emits, both ways
    /// along an axis it crosses.
    static func emits(_ state: Int, towards direction: Int) -> Bool {
        if state == 27 || state == 28 || state == 31 { return true }
        return state == (direction % 2 == 0 ? 29 : 30)
    }

    /// The next state of `cell` among `neighbours`.
    static func next(_ cell: Int, _ neighbours: Neighbours) -> Int {
        let ordinaryArrives = neighbours.reaches(neighbours.ordinaryArrows, cell: cell, special: false)
        let specialArrives = neighbours.reaches(neighbours.specialArrows, cell: cell, special: true)
        let feed = neighbours.feed, feedDirection = quiet(feed) - 9

        if isTransmission(cell) {
            let excited = isExcited(cell)
            let output = neighbours.at(direction(cell))
            let outputBecomesOrdinary = output == 8 || (output == 4 && excited) || (output == 5 && !excited)
            let outputBecomesConfluent = output == 7 && excited
            let outputStaysSensitized = (output == 0 && excited) || (1...3).contains(output) || (output == 4 && !isOrdinary(cell))
            if isOrdinary(cell) {
                if specialArrives { return 0 }
                if neighbours.reaches(neighbours.ordinaryArrows | neighbours.emitting, cell: cell, special: false) {
                    if outputBecomesOrdinary || (isSpecial(output) && !isExcited(output)) { return 0 }
                    return outputBecomesConfluent ? 1 : quiet(cell) + 4
                }
                if outputBecomesConfluent { return 0 }
                return excited && outputStaysSensitized ? quiet(cell) + 12 : quiet(cell)
            }
            // The mark at a writing wire's end: an excited special transmission fed by an
            // ordinary one, writing into a sensitized cell.
            if excited && isSensitized(output) && neighbours.ordinaryPointing != 0 {
                if outputStaysSensitized { return ordinaryArrives ? cell - 8 : cell }
                return ordinaryArrives ? 0 : quiet(cell) - 8
            }
            if excited && output == 0 { return specialArrives ? cell : quiet(cell) }
            if ordinaryArrives { return 0 }
            let excites = neighbours.reaches(neighbours.specialArrows | neighbours.emitting, cell: cell, special: true)
            return excites ? quiet(cell) + 4 : quiet(cell)
        }

        let bit = ordinaryArrives
        // A turn of the feeding transmission's direction, as a quiescent ordinary (9) or
        // special (17) transmission, by Golly's arithmetic.
        func turned(_ by: Int, _ base: Int) -> Int { (feedDirection + by) % 4 + base }
        switch cell {
        case 0:
            if bit { return 1 }
            return specialArrives ? quiet(feed) - 8 : 0
        case 1, 2, 3:
            return 2 * cell + (bit ? 1 : 0)
        case 4: return bit ? turned(2, 9) : 8
        case 5: return bit ? quiet(feed) + 8 : turned(3, 9)
        case 6: return bit ? turned(2, 17) : turned(1, 17)
        case 7: return bit ? 25 : turned(3, 17)
        case 8:
            // Forward, or turned left: Golly adds the turn to the feed before taking
            // its direction, and keeps the sum in a byte.
            return (9 + direction(bit ? feed + 1 : feed)) & 0xFF
        default:
            return confluent(cell, neighbours, specialArrives)
        }
    }

    private static func confluent(_ cell: Int, _ neighbours: Neighbours, _ specialArrives: Bool) -> Int {
        if specialArrives { return 0 }
        // Excited ordinary transmissions pointing at it, along each axis (bits: east 0,
        // north 1, west 2, south 3).
        let (northSouth, eastWest) = (neighbours.ordinaryArrows & 0b1010 != 0, neighbours.ordinaryArrows & 0b0101 != 0)
        func crossed() -> Int { northSouth && eastWest ? 31 : northSouth ? 30 : eastWest ? 29 : 25 }
        // Every ordinary transmission pointing at it excited, and one at least.
        let allIn = neighbours.ordinaryPointing != 0 && neighbours.ordinaryPointing == neighbours.ordinaryArrows
        switch cell {
        case 25:
            if neighbours.pointing.nonzeroBitCount == 2 && neighbours.beside.nonzeroBitCount == 2 { return crossed() }
            return allIn ? 26 : 25
        case 26, 28: return allIn ? 28 : 27
        case 27: return allIn ? 26 : 25
        default: return crossed()
        }
    }

    /// The rule as a tree over the von Neumann neighbourhood (north, west, east, south,
    /// then the cell). The cells' next states among four neighbours depend on them only
    /// through `Neighbours.behaviour`, so each of the 32^4 neighbourhoods makes its key,
    /// and only the first of a key steps its 32 cells (a tenth of the 32^5 steps).
    static func build() -> RuleTree {
        let states = 32
        var store = RuleTree.NodeStore(states: states)
        var leaves = LeafTable()
        var entries = [[UInt32]](repeating: [UInt32](repeating: 0, count: states), count: 5)
        for north in 0..<states {
            for west in 0..<states {
                for east in 0..<states {
                    for south in 0..<states {
                        let key = Neighbours.behaviour(north: north, west: west, east: east, south: south)
                        if let leaf = leaves[key] {
                            entries[3][south] = leaf
                            continue
                        }
                        let neighbours = Neighbours(north: north, west: west, east: east, south: south)
                        for cell in 0..<states { entries[4][cell] = UInt32(next(cell, neighbours)) }
                        let leaf = store.node(4, entries[4])
                        leaves[key] = leaf
                        entries[3][south] = leaf
                    }
                    entries[2][east] = store.node(3, entries[3])
                }
                entries[1][west] = store.node(2, entries[2])
            }
            entries[0][north] = store.node(1, entries[1])
        }
        let root = store.node(0, entries[0])
        return RuleTree(name: "Hutton32", states: states, neighbourhood: .vonNeumann, nodes: store.nodes, root: root)
    }

    /// The leaf each behaviour made, open-addressed: a dictionary hashed each of the
    /// 32^4 keys with SipHash, a third of the tree's making.
    private struct LeafTable {
        private var keys = [UInt64](repeating: .max, count: 1 << 10), leaves = [UInt32](repeating: 0, count: 1 << 10)
        private var count = 0

        subscript(key: UInt64) -> UInt32? {
            get {
                var slot = Self.slot(key, keys.count)
                while keys[slot] != .max {
                    if keys[slot] == key { return leaves[slot] }
                    slot = (slot + 1) & (keys.count - 1)
                }
                return nil
            }
            set {
                guard let newValue else { preconditionFailure("leaves are only added") }
                if 2 * (count + 1) > keys.count { grow() }
                var slot = Self.slot(key, keys.count)
                while keys[slot] != .max && keys[slot] != key { slot = (slot + 1) & (keys.count - 1) }
                if keys[slot] == .max { count += 1 }
                (keys[slot], leaves[slot]) = (key, newValue)
            }
        }

        private static func slot(_ key: UInt64, _ size: Int) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - size.trailingZeroBitCount))
        }

        private mutating func grow() {
            let (oldKeys, oldLeaves) = (keys, leaves)
            keys = [UInt64](repeating: .max, count: 2 * oldKeys.count)
            leaves = [UInt32](repeating: 0, count: 2 * oldKeys.count)
            count = 0
            for (key, leaf) in zip(oldKeys, oldLeaves) where key != .max { self[key] = leaf }
        }
    }
}
