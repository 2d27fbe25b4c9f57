import Synchronization

/// John von Neumann's 29-state self-reproducing automaton (`JvN29`), Renato Nobili's
/// 32-state extension with crossing confluents (`Nobili32`) and Tim Hutton's (`Hutton32`,
/// its own file), in Golly's state numbers,
/// as Golly's JvN engine steps them, built once a process into a decision tree over the
/// von Neumann neighbourhood that the rule-file kernel walks.
///
/// The states, as Golly's files number them:
/// - 0: ground.
/// - 1...8: sensitized, the bits received so far: S, S0, S1, S00, S01, S10, S11, S000.
/// - 9...12 and 13...16: ordinary transmission pointing east, north, west, south,
///   quiescent and then excited; 17...20 and 21...24 the same for special transmission.
/// - 25...28: confluent, by (received last generation, emitting now): (0, 0), (1, 0),
///   (0, 1), (1, 1).
/// - 29...31 (Nobili32): a confluent crossing an excitation east-west, north-south, or
///   both, which it emits along that axis next.
package enum VonNeumannRules {
    package enum Variant: String, Sendable, CaseIterable {
        case jvn29 = "JvN29", nobili32 = "Nobili32", hutton32 = "Hutton32"

        var states: Int { self == .jvn29 ? 29 : 32 }
    }

    /// The rule of Golly's JvN engine that `name` names (any case; the older `JvN-29`,
    /// `JvN-32` and `modJvN-32` too), as Golly writes it; nil for a name of no JvN rule.
    package static func gollyName(of name: String) -> String? {
        switch name.lowercased() {
        case "jvn29", "jvn-29": "JvN29"
        case "nobili32", "jvn-32": "Nobili32"
        case "hutton32", "modjvn-32": "Hutton32"
        default: nil
        }
    }

    /// The variant Golly reads `name` as (`gollyName(of:)`); nil for a name of no JvN
    /// rule.
    package static func variant(named name: String) -> Variant? {
        gollyName(of: name).flatMap(Variant.init(rawValue:))
    }

    private static let built = Mutex<[Variant: RuleTree]>([:])

    /// The tree of the rule `name` names (`variant(named:)`); nil for no JvN rule.
    package static func tree(named name: String) -> RuleTree? {
        guard let variant = variant(named: name) else { return nil }
        if let tree = built.withLock({ $0[variant] }) { return tree }
        let tree = variant == .hutton32 ? Hutton32.build() : build(variant)
        built.withLock { $0[variant] = tree }
        return tree
    }

    // MARK: Cells

    /// Directions as Golly's JvN engine numbers them: a transmission state's direction is
    /// its state minus 9, modulo 4.
    private static let (east, north, west, south) = (0, 1, 2, 3)

    enum Cell: Equatable {
        case ground
        /// 1...8, the sensitized state's number: its bits so far, after a leading 1.
        case sensitized(Int)
        case transmission(special: Bool, direction: Int, excited: Bool)
        case confluent(received: Bool, emitting: Bool, crossingEastWest: Bool, crossingNorthSouth: Bool)

        init(_ state: Int) {
            switch state {
            case 0: self = .ground
            case 1...8: self = .sensitized(state)
            case 9...24: self = .transmission(special: state >= 17, direction: (state - 9) % 4, excited: (state - 9) % 8 >= 4)
            case 25...28: self = .confluent(received: state == 26 || state == 28, emitting: state >= 27,
                                            crossingEastWest: false, crossingNorthSouth: false)
            default: self = .confluent(received: true, emitting: false, crossingEastWest: state != 30, crossingNorthSouth: state != 29)
            }
        }

        var state: Int {
            switch self {
            case .ground: return 0
            case .sensitized(let bits): return bits
            case .transmission(let special, let direction, let excited): return 9 + (special ? 8 : 0) + (excited ? 4 : 0) + direction
            case .confluent(let received, let emitting, let eastWest, let northSouth):
                if eastWest || northSouth { return eastWest && northSouth ? 31 : eastWest ? 29 : 30 }
                return 25 + (received ? 1 : 0) + (emitting ? 2 : 0)
            }
        }

        /// The direction this cell points, where it is a transmission.
        var pointing: Int? {
            if case .transmission(_, let direction, _) = self { return direction }
            return nil
        }
    }

    /// What a cell learns from its four neighbours, one bit each, OR-ed together.
    struct Signals: OptionSet, Hashable {
        let rawValue: UInt16
        /// An ordinary transmission points at the cell from the north or south, or from
        /// the east or west (quiescent or excited).
        static let ordinaryInNorthSouth = Signals(rawValue: 1 << 0)
        static let ordinaryInEastWest = Signals(rawValue: 1 << 1)
        /// An excited ordinary transmission points at the cell, along that axis.
        static let ordinaryExcitedNorthSouth = Signals(rawValue: 1 << 2)
        static let ordinaryExcitedEastWest = Signals(rawValue: 1 << 3)
        /// A quiescent ordinary transmission points at the cell.
        static let ordinaryQuiet = Signals(rawValue: 1 << 4)
        /// An excited special transmission points at the cell.
        static let specialExcited = Signals(rawValue: 1 << 5)
        /// What excites a transmission: an excited transmission pointing at it (not
        /// head to head), or a confluent emitting towards it (one it does not feed).
        static let excitesTransmission = Signals(rawValue: 1 << 6)
        /// A transmission beside the cell that does not point at it, north or south,
        /// east or west: where a confluent's excitation can go.
        static let besideNorthSouth = Signals(rawValue: 1 << 7)
        static let besideEastWest = Signals(rawValue: 1 << 8)

        static let ordinaryExcited: Signals = [.ordinaryExcitedNorthSouth, .ordinaryExcitedEastWest]
        static let crossing: Signals = [.ordinaryInNorthSouth, .ordinaryInEastWest, .besideNorthSouth, .besideEastWest]
    }

    /// What `neighbour` tells `cell`, reaching it in direction `towards`.
    static func signals(from neighbour: Cell, towards: Int, to cell: Cell) -> Signals {
        let northSouth = towards == north || towards == south
        // A transmission pointing back at the neighbour takes nothing from it but
        // what kills it.
        let cellFeedsNeighbour = cell.pointing == towards ^ 2
        switch neighbour {
        case .ground, .sensitized:
            return []
        case .confluent(_, let emitting, let crossingEastWest, let crossingNorthSouth):
            let emits = emitting || (northSouth ? crossingNorthSouth : crossingEastWest)
            return emits && !cellFeedsNeighbour ? .excitesTransmission : []
        case .transmission(let special, let direction, let excited):
            guard direction == towards else { return northSouth ? .besideNorthSouth : .besideEastWest }
            var signals: Signals = []
            if !special {
                signals.insert(northSouth ? .ordinaryInNorthSouth : .ordinaryInEastWest)
                signals.insert(excited ? (northSouth ? .ordinaryExcitedNorthSouth : .ordinaryExcitedEastWest) : .ordinaryQuiet)
            } else if excited {
                signals.insert(.specialExcited)
            }
            if excited && !cellFeedsNeighbour { signals.insert(.excitesTransmission) }
            return signals
        }
    }

    /// The sensitized path's end: the state its ninth-to-seventeenth value becomes
    /// (S001 → west, S010 → south, S011 → special east … S0000 → east, S0001 → north).
    private static let constructed: [Cell] = [
        .transmission(special: false, direction: west, excited: false),
        .transmission(special: false, direction: south, excited: false),
        .transmission(special: true, direction: east, excited: false),
        .transmission(special: true, direction: north, excited: false),
        .transmission(special: true, direction: west, excited: false),
        .transmission(special: true, direction: south, excited: false),
        .confluent(received: false, emitting: false, crossingEastWest: false, crossingNorthSouth: false),
        .transmission(special: false, direction: east, excited: false),
        .transmission(special: false, direction: north, excited: false),
    ]

    /// The cell's next state, given what its neighbours tell it.
    static func next(_ cell: Cell, _ signals: Signals, _ variant: Variant) -> Cell {
        switch cell {
        case .ground, .sensitized:
            let bits = if case .sensitized(let bits) = cell { bits } else { 0 }
            let path = 2 * bits + (signals.isDisjoint(with: [.ordinaryExcited, .specialExcited]) ? 0 : 1)
            if path == 0 { return .ground }
            return path <= 8 ? .sensitized(path) : constructed[path - 9]
        case .transmission(let special, let direction, _):
            // Each kind of transmission is destroyed by the other's excitation.
            if special ? !signals.isDisjoint(with: .ordinaryExcited) : signals.contains(.specialExcited) { return .ground }
            return .transmission(special: special, direction: direction, excited: signals.contains(.excitesTransmission))
        case .confluent(var received, var emitting, let eastWest, let northSouth):
            if signals.contains(.specialExcited) { return .ground }
            // Nobili's crossing: ordinary transmissions in and out on both axes.
            if variant == .nobili32 && signals.isSuperset(of: .crossing) {
                let (eastWest, northSouth) = (signals.contains(.ordinaryExcitedEastWest), signals.contains(.ordinaryExcitedNorthSouth))
                return .confluent(received: eastWest || northSouth, emitting: false, crossingEastWest: eastWest, crossingNorthSouth: northSouth)
            }
            // A crossing that is no longer crossed is a quiescent confluent.
            if eastWest || northSouth { (received, emitting) = (false, false) }
            if !signals.isDisjoint(with: .ordinaryExcited) && !signals.contains(.ordinaryQuiet) {
                (emitting, received) = (received, true)
            } else if variant == .jvn29 || !signals.isDisjoint(with: [.besideNorthSouth, .besideEastWest]) {
                (emitting, received) = (received, false)
            }
            return .confluent(received: received, emitting: emitting, crossingEastWest: false, crossingNorthSouth: false)
        }
    }

    // MARK: The tree

    /// The inputs in the order the tree reads them (n, w, e, s, then the cell), each
    /// with the direction it reaches the cell in.
    private static let towards = [south, east, west, north]

    static func build(_ variant: Variant) -> RuleTree {
        let states = variant.states
        let cells = (0..<states).map(Cell.init)
        // A node below the root depends on the neighbours read so far only through what
        // they tell each possible cell; nodes are made once per level and such list.
        var store = RuleTree.NodeStore(states: states)
        var made = [[[Signals]: UInt32]](repeating: [:], count: 4)
        func node(_ level: Int, _ told: [Signals]) -> UInt32 {
            if level == 4 {
                return store.node(4, (0..<states).map { UInt32(next(cells[$0], told[$0], variant).state) })
            }
            if let done = made[level][told] { return done }
            let entries = cells.map { neighbour in
                node(level + 1, (0..<states).map { told[$0].union(signals(from: neighbour, towards: towards[level], to: cells[$0])) })
            }
            let offset = store.node(level, entries)
            made[level][told] = offset
            return offset
        }
        let root = node(0, Array(repeating: [], count: states))
        return RuleTree(name: variant.rawValue, states: states, neighbourhood: .vonNeumann, nodes: store.nodes, root: root)
    }
}
