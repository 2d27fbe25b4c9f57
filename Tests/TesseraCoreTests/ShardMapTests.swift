import Testing
@testable import TesseraCore

/// A sparse plane spread over shards by a `ShardMap`, each stretch a trade of bands,
/// steps the plane exactly as one plane does: the algorithm worker processes run, here
/// with the shards side by side in memory.
@Suite struct ShardMapTests {
    /// Shards of one plane, trading bands between stretches.
    struct Shards {
        let map: ShardMap
        let planes: [SparsePlane]

        init(_ parts: [PlacedCells], map: ShardMap, rule: Rule = .life, board: BoardShape? = nil) throws {
            self.map = map
            planes = try (0..<map.shards).map { me in
                let plane = try SparsePlane(parts: parts, rule: rule, board: board)
                plane.crop { map.owner(of: $0) == me }
                return plane
            }
        }

        func advance(_ generations: Int, depth: Int) {
            var done = 0
            while done < generations {
                let stretch = min(depth, generations - done)
                let bands = planes.indices.map { planes[$0].bands(depth: stretch, owner: map.owner(of:), me: $0) }
                for (me, plane) in planes.enumerated() {
                    for from in bands.indices where from != me {
                        for part in bands[from][me] ?? [] { plane.add(part) }
                    }
                    plane.advance(UInt64(stretch))
                    plane.crop { map.owner(of: $0) == me }
                }
                done += stretch
            }
        }

        /// Every shard's live cells, as one plane's parts.
        func liveParts(rule: Rule, board: BoardShape?) throws -> [PlacedCells] {
            try SparsePlane(parts: planes.flatMap { $0.liveParts() }, rule: rule, board: board).liveParts()
        }
    }

    static func soup(_ side: Int, seed: UInt64, at left: Int = 0, _ top: Int = 0, density: Double = 0.4) throws -> PlacedCells {
        PlacedCells(cells: try Soup(density: density, seed: seed).cells(x: 0, y: 0, width: side, height: side), left: left, top: top)
    }

    /// Steps `parts` on one plane and on `shards` shards, and compares them.
    static func check(_ parts: [PlacedCells], shards: Int, generations: Int, depth: Int, rule: Rule = .life,
                      board: BoardShape? = nil, least: Int = 1) throws {
        let reference = try SparsePlane(parts: parts, rule: rule, board: board)
        let tiles = reference.liveTiles
        let map = ShardMap.splitting(tiles, into: shards, least: least)
        let spread = try Shards(parts, map: map, rule: rule, board: board)
        #expect(Set(spread.planes.indices.filter { spread.planes[$0].tileCount > 0 }).count == min(shards, tiles.count))
        spread.advance(generations, depth: depth)
        reference.advance(UInt64(generations))
        #expect(spread.planes.reduce(0) { $0 + $1.population } == reference.population)
        #expect(try spread.liveParts(rule: rule, board: board) == reference.liveParts(), "\(shards) shards, depth \(depth)")
        // Between stretches every shard's live cells lie on its own tiles (the others
        // it holds are the empty neighbours of its live edges).
        for (me, plane) in spread.planes.enumerated() {
            #expect(plane.liveTiles.allSatisfy { map.owner(of: $0) == me })
        }
    }

    @Test(arguments: [1, 13, 64])
    func aSoupOnFourShardsStepsAsOnePlane(depth: Int) throws {
        try Self.check([Self.soup(400, seed: 7, at: -200, -150)], shards: 4, generations: 300, depth: depth)
    }

    @Test func farApartPartsAndTheGlidersTheySendCrossShards() throws {
        // Two soups a million cells apart: each shard holds parts of both or one alone.
        let parts = [try Self.soup(150, seed: 3), try Self.soup(150, seed: 4, at: 1_000_000, -1_000_000)]
        try Self.check(parts, shards: 3, generations: 500, depth: 32)
    }

    @Test func boundedGridsWrapAndEndAsOnOnePlane() throws {
        // A torus whose sides are whole tiles, and a plane whose are not.
        try Self.check([Self.soup(256, seed: 11, at: -128, -128)], shards: 3, generations: 200, depth: 20,
                       board: BoardShape(width: 256, height: 256, topology: .torus))
        try Self.check([Self.soup(200, seed: 12, at: -100, -100)], shards: 2, generations: 200, depth: 64,
                       board: BoardShape(width: 200, height: 200, topology: .plane))
    }

    @Test func otherRulesCrossShardsToo() throws {
        try Self.check([Self.soup(256, seed: 5, at: -128, -128, density: 0.3)], shards: 2, generations: 150, depth: 9,
                       rule: try Rule(parsing: "B36/S23"))
    }

    /// Gliders flying west into still blocks on the other shard's side: the band that
    /// first carries a glider must wake the quiet tile beside it at once.
    @Test(arguments: [1, 2, 5])
    func aGliderArrivingBesideAQuietTileOfAnotherShardWakesIt(depth: Int) throws {
        var parts: [PlacedCells] = []
        for (index, y) in [4, 20, 36, 52].enumerated() {
            var block = BitGrid(width: 2, height: 2)
            (block[0, 0], block[1, 0], block[0, 1], block[1, 1]) = (true, true, true, true)
            parts.append(PlacedCells(cells: block, left: 59 + index % 2, top: y))
            // A glider heading north-west.
            var glider = BitGrid(width: 3, height: 3)
            (glider[0, 0], glider[1, 0], glider[2, 0], glider[0, 1], glider[1, 2]) = (true, true, true, true, true)
            parts.append(PlacedCells(cells: glider, left: 70 + 3 * index, top: y + 8 + index))
        }
        try Self.checkAcrossFirstTileEdge(parts, generations: 120, depth: depth)
    }

    /// `parts` on two shards split at tile (1, 0)'s Morton code, against one plane.
    @discardableResult
    static func checkAcrossFirstTileEdge(_ parts: [PlacedCells], generations: Int, depth: Int) throws -> Shards {
        let map = ShardMap(starts: [0, ShardMap.code(of: TileKey(x: 1, y: 0))])
        let reference = try SparsePlane(parts: parts, rule: .life)
        let spread = try Shards(parts, map: map)
        spread.advance(generations, depth: depth)
        reference.advance(UInt64(generations))
        #expect(try spread.liveParts(rule: .life, board: nil) == reference.liveParts())
        return spread
    }

    /// A lone glider flies from one shard's tile into another's that is empty, so no
    /// band ever comes back: its edge's neighbour, dropped with the ghosts after each
    /// stretch, must be there again before the next one.
    @Test(arguments: [2, 7, 64])
    func aLoneGliderCrossesIntoAnEmptyShard(depth: Int) throws {
        var glider = BitGrid(width: 3, height: 3)
        // Heading south-east.
        (glider[1, 0], glider[2, 1], glider[0, 2], glider[1, 2], glider[2, 2]) = (true, true, true, true, true)
        let spread = try Self.checkAcrossFirstTileEdge([PlacedCells(cells: glider, left: 50, top: 20)], generations: 200, depth: depth)
        #expect(spread.planes.map(\.population).reduce(0, +) == 5)
    }

    /// Ghosts arrive on a plane that has run: cells added beside a quiet tile wake it
    /// for the very next generation (here a birth on its edge).
    @Test func cellsAddedBesideAQuietTileWakeItAtOnce() throws {
        var block = BitGrid(width: 2, height: 2)
        (block[0, 0], block[1, 0], block[0, 1], block[1, 1]) = (true, true, true, true)
        let still = PlacedCells(cells: block, left: 10, top: 10)
        var triplet = BitGrid(width: 1, height: 3)
        (triplet[0, 0], triplet[0, 1], triplet[0, 2]) = (true, true, true)
        let arriving = PlacedCells(cells: triplet, left: 64, top: 30)
        let plane = try SparsePlane(parts: [still], rule: .life)
        plane.advance(4)
        #expect(plane.dueCount == 0)
        plane.add(arriving)
        plane.advance(1)
        let fresh = try SparsePlane(parts: [still, arriving], rule: .life, generation: 4)
        fresh.advance(1)
        #expect(plane.liveParts() == fresh.liveParts())
        #expect(plane.cells(in: CellBounds(left: 63, top: 31, width: 1, height: 1)).population == 1)
    }

    @Test func aPatternThatDiesLeavesNoTileOnAnyShard() throws {
        // A diagonal pair across the corner of four tiles, on three shards: it dies at once.
        var cells = BitGrid(width: 2, height: 2)
        (cells[0, 0], cells[1, 1]) = (true, true)
        let pair = PlacedCells(cells: cells, left: 63, top: 63)
        let map = ShardMap(starts: [0, ShardMap.code(of: TileKey(x: 1, y: 0)), ShardMap.code(of: TileKey(x: 0, y: 1))])
        let spread = try Shards([pair], map: map)
        #expect(spread.planes.map(\.population).reduce(0, +) == 2)
        spread.advance(10, depth: 4)
        #expect(spread.planes.allSatisfy { $0.tileCount == 0 })
    }

    @Test func aSmallPatternStaysOnOneShardAndABigOneSpreads() {
        let few = (0..<10).map { TileKey(x: $0, y: 0) }
        let small = ShardMap.splitting(few, into: 4)
        #expect(Set(few.map(small.owner(of:))) == [0])
        let many = (0..<32).flatMap { y in (0..<32).map { TileKey(x: $0 - 16, y: y - 16) } }
        let big = ShardMap.splitting(many, into: 4)
        let counts = Dictionary(grouping: many, by: big.owner(of:)).mapValues(\.count)
        #expect(counts == [0: 256, 1: 256, 2: 256, 3: 256])
        // Morton order keeps a shard's tiles together: most neighbours share its shard.
        let shared = many.filter { big.owner(of: $0) == big.owner(of: TileKey(x: $0.x + 1, y: $0.y)) }.count
        #expect(shared > many.count * 3 / 4)
    }

    @Test func mortonCodesOrderTheWholePlane() {
        #expect(ShardMap.code(of: TileKey(x: Int(Int64.min) >> 6, y: Int(Int64.min) >> 6)) < ShardMap.code(of: TileKey(x: 0, y: 0)))
        #expect(ShardMap.code(of: TileKey(x: 0, y: 0)) < ShardMap.code(of: TileKey(x: 1, y: 1)))
    }

    /// Weighted by measured cost, busy tiles are cut finer: 100 busy tiles then 300 quiet
    /// ones (a hundredth the cost) on two shards split the busy ones, where equal counts
    /// give one shard all of them.
    @Test func weightsCutBusyTilesFiner() {
        let codes = (0..<400).map { UInt128($0) * 7 }
        let weights = (0..<400).map { $0 < 100 ? 1.0 : 0.01 }
        let even = ShardMap.splitting(codes: codes, into: 2)
        #expect(even.starts == [0, codes[200]])
        // Half the weight (51.5 of 103) lies before the 53rd tile.
        #expect(ShardMap.splitting(codes: codes, weights: weights, into: 2).starts == [0, codes[52]])
        #expect(ShardMap.splitting(codes: codes, weights: Array(repeating: 0, count: 400), into: 2) == even)
        // Too few tiles to cut (64 a shard at least): one shard, whatever the weights.
        #expect(ShardMap.splitting(codes: Array(codes.prefix(100)), weights: Array(weights.prefix(100)), into: 2).starts == [0, .max])
    }
}
