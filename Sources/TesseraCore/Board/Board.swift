/// How the board's edges behave.
public enum Topology: String, Sendable, CaseIterable {
    /// Edges wrap around (Golly's `:T`).
    case torus
    /// Cells beyond the edges are always dead (Golly's `:P`).
    case plane
    /// Golly's unbounded plane, for a rule with no suffix. A board of this topology is
    /// nominal: the sparse map, HashLife and the whole-board engines place cells in
    /// Golly's 64-bit coordinates wherever they are.
    case infinite

    /// Whether cells beyond the board's edges are dead rather than wrapped.
    public var hasDeadEdges: Bool { self != .torus }
}

/// The size and topology of a board, and where it sits in Golly's coordinates.
///
/// A bounded W×H board spans Golly x ∈ [−⌊W/2⌋, W−⌊W/2⌋) and y likewise, which is how
/// Golly lays out a bounded grid `:TW,H` or `:PW,H`; the unbounded plane's nominal
/// board sits wherever its `left` and `top` say.
public struct BoardShape: Hashable, Sendable, CustomStringConvertible {
    /// The widest and tallest board: 2^31 cells a side, 2^62 cells in all.
    public static let maxSide = 1 << 31
    /// The farthest a board's corner may lie from the origin: its far corner then
    /// still fits in 64 bits.
    public static let maxCoordinate = 1 << 62

    public let width: Int
    public let height: Int
    public let topology: Topology
    /// Golly x of the board's left column.
    public let left: Int
    /// Golly y of the board's top row.
    public let top: Int
    /// How the edges of a grid meet where a torus's or a plane's do not (the board steps
    /// whole: see `EdgeJoin`); the topology is `.torus` for a bounded one, `.infinite`
    /// for a tube or a strip, which are unbounded one way.
    public let edges: EdgeJoin?

    /// A board laid out as Golly lays out a bounded grid of this size.
    public init(width: Int, height: Int, topology: Topology, edges: EdgeJoin? = nil) {
        self.init(width: width, height: height, topology: topology, left: -(width / 2), top: -(height / 2), edges: edges)
    }

    /// A board whose top-left cell is at Golly (`left`, `top`).
    public init(width: Int, height: Int, topology: Topology, left: Int, top: Int, edges: EdgeJoin? = nil) {
        self.width = width
        self.height = height
        self.topology = topology
        self.left = left
        self.top = top
        self.edges = edges
    }

    public var cellCount: Int { width * height }

    /// Golly's bounded-grid rule suffix, e.g. `:T640,480`; none for the unbounded plane.
    public var gollySuffix: String {
        if let edges { return edges.gollySuffix(width: width, height: height) }
        return switch topology {
        case .torus: ":T\(width),\(height)"
        case .plane: ":P\(width),\(height)"
        case .infinite: ""
        }
    }

    public var description: String {
        if let edges, edges.unboundedAlong != nil { return "\(edges.name) \(gollySuffix)" }
        if let edges { return "\(width)x\(height) \(edges.name)" }
        return topology == .infinite ? "the unbounded plane"
            : "\(width)x\(height) \(topology.rawValue)"
    }

    /// A Larger than Life rule's grid, as Golly's ltlalgo reads its suffix: a torus or a
    /// plane, 400x400 where no size is given, each side at least twice the range, at
    /// most 10^8 cells.
    private static func largerThanLifeGrid(_ suffix: Substring, of rule: LargerThanLife, in text: String) throws -> BoardShape {
        let bad = TesseraError("unsupported grid ':\(suffix)' in Larger than Life rule '\(text)'",
                               fix: "use :Tw,h (torus) or :Pw,h (plane), as Golly's Larger than Life does")
        var topology = Topology.torus
        var (width, height) = (400, 400)
        if let kind = suffix.first {
            switch kind {
            case "T", "t": topology = .torus
            case "P", "p": topology = .plane
            default: throw bad
            }
            let sizes = suffix.dropFirst()
            if !sizes.isEmpty {
                let numbers = sizes.split(separator: ",", omittingEmptySubsequences: false)
                guard let w = Int(numbers[0]) else { throw bad }
                switch numbers.count {
                case 1: (width, height) = (w, w)
                case 2 where numbers[1].isEmpty: (width, height) = (w, w)
                case 2: guard let h = Int(numbers[1]) else { throw bad }; (width, height) = (w, h)
                default: throw bad
                }
            }
        }
        (width, height) = (max(width, 2 * rule.range), max(height, 2 * rule.range))
        guard Double(width) * Double(height) <= 1e8 else {
            throw TesseraError("grid \(width)x\(height) of Larger than Life rule '\(text)' is past Golly's 10^8 cells", fix: "give a smaller grid")
        }
        return BoardShape(width: width, height: height, topology: topology)
    }

    /// Splits `B3/S23:T640,480` into the rule and the board it names, if any.
    /// A rule that is no notation Golly reads is the name of a rule file (`RuleFiles`).
    public static func parseRule(_ text: String) throws -> (Rule, BoardShape?) {
        guard let colon = text.firstIndex(of: ":") else { return (try rule(text), nil) }
        let rule = try rule(String(text[..<colon]))
        let suffix = text[text.index(after: colon)...]
        if let ltl = rule.largerThanLife { return (rule, try largerThanLifeGrid(suffix, of: ltl, in: text)) }
        return (rule, try grid(suffix, in: text))
    }

    /// A bounded grid's suffix as Golly's lifealgo reads it (`setgridsize`): `T`, `P`,
    /// `K`, `C` or `S`, a width, and a height (the width where none is given), each side
    /// with a shift (`+n`, `-n`) or a Klein bottle's twist (`*`) where Golly allows one.
    private static func grid(_ suffix: Substring, in text: String) throws -> BoardShape {
        func bad(_ problem: String) -> TesseraError {
            TesseraError("bounded grid ':\(suffix)' in rule '\(text)': \(problem)",
                         fix: "write it as Golly does: :Tw,h (torus), :Pw,h (plane), :Tw+s,h (shifted torus), :Kw*,h or :Kw,h* (Klein bottle), :Cw,h (cross-surface), :Sn (sphere), :T0,h or :Tw,0 (tube) or :P0,h or :Pw,0 (strip)")
        }
        var rest = suffix.uppercased()[...]
        guard let kind = rest.popFirst(), "TPKCS".contains(kind) else { throw bad("unknown topology") }
        // A side, with its twist and shift.
        func side() throws -> (size: Int, twist: Bool, shift: Int) {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(digits.count)
            guard digits.count <= 10, let size = digits.isEmpty ? 0 : Int(digits) else { throw bad("a side is too long") }
            let twist = rest.first == "*"
            if twist {
                guard kind == "K" else { throw bad("only a Klein bottle has a twist") }
                rest = rest.dropFirst()
            }
            var shift = 0
            if let sign = rest.first, sign == "+" || sign == "-" {
                guard kind == "T" || kind == "K" else { throw bad("a \(kind == "P" ? "plane" : kind == "S" ? "sphere" : "cross-surface") has no shift") }
                guard kind != "K" || twist else { throw bad("a Klein bottle's shift must be on its twisted side") }
                rest = rest.dropFirst()
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                rest = rest.dropFirst(digits.count)
                guard digits.count <= 10, let amount = digits.isEmpty ? 0 : Int(digits) else { throw bad("a shift is too long") }
                shift = (size > 0 ? amount % size : amount) * (sign == "+" ? 1 : -1)
            }
            return (size, twist, shift)
        }
        let across = try side()
        var down = across
        if rest.first == ",", kind != "S" {
            rest = rest.dropFirst()
            if !rest.isEmpty { down = try side() } else { down = (across.size, false, 0) }
        } else {
            down = (across.size, false, 0)
        }
        guard rest.isEmpty else { throw bad("unexpected characters after the sides") }
        if kind == "T" || kind == "P", across.size == 0 || down.size == 0, across.size != down.size {
            // An infinite tube, or a strip of the plane, unbounded one way (Golly: a shift
            // needs both sides; `side` has refused a plane's shift and any twist).
            guard across.shift == 0, down.shift == 0 else { throw bad("a tube has no shift") }
            let (side, runsAcross) = (max(across.size, down.size), across.size == 0)
            guard side <= maxSide else { throw bad("a side is past \(maxSide) cells") }
            return BoardShape(width: 0, height: 0, topology: .infinite, left: 0, top: 0,
                              edges: kind == "T" ? .tube(across: runsAcross, side: side) : .strip(across: runsAcross, side: side))
        }
        guard across.size > 0, down.size > 0 else {
            throw bad("a side of 0 on both sides (the unbounded plane) is not supported")
        }
        if across.twist && down.twist { throw bad("a Klein bottle twists one pair of edges, not both") }
        if across.shift != 0 && down.shift != 0 { throw bad("a grid shifts one pair of edges, not both") }
        let (width, height) = (across.size, down.size)
        guard width <= maxSide, height <= maxSide else { throw bad("a side is past \(maxSide) cells") }
        let edges: EdgeJoin?
        switch kind {
        case "P": return BoardShape(width: width, height: height, topology: .plane)
        case "S": edges = .sphere
        case "C": edges = .crossSurface
        case "K":
            // As Golly: no twist given twists the left and right edges; a shift moves
            // one cell, on an even twisted side only.
            let topAndBottom = across.twist
            let shift = topAndBottom ? across.shift : down.shift
            edges = .kleinBottle(twistsTopAndBottom: topAndBottom, shifted: shift != 0 && (topAndBottom ? width : height) % 2 == 0)
        default:
            edges = across.shift != 0 || down.shift != 0 ? .shiftedTorus(horizontal: across.shift, vertical: down.shift) : nil
        }
        return BoardShape(width: width, height: height, topology: .torus, edges: edges)
    }

    private static func rule(_ text: String) throws -> Rule { try Rule(named: text) }

    /// Parses `WxH` (or `N` for a square board).
    public static func parseSize(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let w = Int(parts[0]),
              let h = parts.count == 2 ? Int(parts[1]) : w
        else {
            throw TesseraError("bad board size '\(text)'", fix: "write WIDTHxHEIGHT, e.g. 512x512")
        }
        guard w > 0, h > 0 else {
            throw TesseraError("board size '\(text)' is empty", fix: "give a width and height of at least 1")
        }
        return (w, h)
    }
}
