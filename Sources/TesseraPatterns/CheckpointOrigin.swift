import TesseraCore

extension Checkpoint {
    /// Where a checkpointed run started: its pattern (by a digest of its cells, where
    /// they lay and at which generation) and its soup. A run that resumes checks that its
    /// command starts from the same cells, so that a checkpoint of another run is
    /// refused, not resumed into another board.
    public struct Origin: Codable, Sendable, Equatable {
        /// The pattern's name as given, for messages; not compared.
        public let pattern: String?
        /// `checksum(of:)` of the pattern's live cells where they lie, in hex.
        public let cells: String?
        public let soup: Double?
        public let seed: UInt64?

        public init(pattern: Pattern?, name: String?, soup: Soup?) {
            self.pattern = pattern == nil ? nil : name
            cells = pattern.map { String(cFormat: "%016llx", Self.digest(of: $0)) }
            (self.soup, seed) = (soup?.density, soup?.seed)
        }

        /// Whether both start from the same cells, whatever the pattern was called.
        public func isSame(as other: Origin) -> Bool {
            cells == other.cells && soup == other.soup && seed == other.seed
        }

        public var description: String {
            let soup = self.soup.map { "a soup of density \($0) and seed \(seed ?? 1)" }
            switch (pattern, soup) {
            case let (pattern?, soup?): return "\(pattern) over \(soup)"
            case let (pattern?, nil): return pattern
            case let (nil, soup?): return soup
            case (nil, nil): return "no cells"
            }
        }

        /// A digest of the pattern's placed live cells and its generation, part by part.
        static func digest(of pattern: Pattern) -> UInt64 {
            var sums: [UInt64] = [pattern.generation]
            for part in pattern.placedParts(on: pattern.board?.topology ?? .infinite) {
                sums += [part.left, part.top, part.cells.width, part.cells.height].map { UInt64(bitPattern: Int64($0)) }
                sums.append(part.cells.words.withUnsafeBytes(checksum(of:)))
            }
            return sums.withUnsafeBytes(checksum(of:))
        }
    }
}
