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
        /// A box a reader kept in blocks is digested as it was read before its blocks were
        /// 64 cells a side (one grid up to 2^24 cells, else blocks of 512), so that a
        /// checkpoint written then still resumes.
        static func digest(of pattern: Pattern) -> UInt64 {
            let pattern = pattern.inOneGrid() ?? pattern.inBlocksOf512()
            var sums: [UInt64] = [pattern.generation]
            for part in pattern.placedParts(on: pattern.board?.topology ?? .infinite) {
                sums += [part.left, part.top, part.cells.width, part.cells.height].map { UInt64(bitPattern: Int64($0)) }
                sums.append(part.cells.words.withUnsafeBytes(checksum(of:)))
            }
            return sums.withUnsafeBytes(checksum(of:))
        }
    }
}

extension Pattern {
    /// A pattern a reader kept in blocks of its declared box, cut instead into 512-cell
    /// blocks of the box, each trimmed to its live cells, in order of rows; any other
    /// pattern as it is.
    func inBlocksOf512() -> Pattern {
        guard hasParts, pending == nil, let (width, height) = extent else { return self }
        var blocks = SparseBlocks(what: "a checkpoint's starting cells", width: width, height: height, side: 512)
        // A reader's blocks lie within the box, each within one block of 512.
        for part in parts where (try? blocks.formUnion(part.cells, left: part.left, top: part.top)) != true { return self }
        return Pattern(parts: blocks.parts(), extent: (width, height), position: position,
                       rule: rule, board: board, generation: generation, comments: comments)
    }
}
