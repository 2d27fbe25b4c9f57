import Testing
import TesseraCore

/// The unbounded plane's window: room for the live cells to grow, and a move before
/// they could reach an edge.
@Suite struct PlaneWindowTests {
    @Test func aWindowLeavesAMarginAsWideAsThePatternOnEverySide() throws {
        let live = CellBounds(left: 1_000_000_000, top: -1_000_000_000, width: 1000, height: 10)
        let window = try PlaneWindow.around(live)
        #expect(window.topology == .infinite)
        #expect(window.width % 256 == 0 && window.height % 256 == 0)
        #expect(PlaneWindow.margin(of: live, in: window) >= 1000)
        #expect(!PlaneWindow.shouldMove(live, from: window), "a fresh window needs no move")
        // A tiny pattern still gets the least margin.
        let dot = CellBounds(left: -5, top: 3, width: 1, height: 1)
        #expect(PlaneWindow.margin(of: dot, in: try PlaneWindow.around(dot)) >= PlaneWindow.minMargin)
        #expect(try PlaneWindow.around(dot, minSide: 5000).width >= 5000)
    }

    @Test func theMarginCountsDeadRowsToTheNearestEdge() {
        let window = BoardShape(width: 100, height: 50, topology: .infinite, left: -10, top: 20)
        #expect(PlaneWindow.margin(of: CellBounds(left: -10, top: 30, width: 5, height: 5), in: window) == 0)
        #expect(PlaneWindow.margin(of: CellBounds(left: 0, top: 30, width: 5, height: 5), in: window) == 10)
        #expect(PlaneWindow.margin(of: CellBounds(left: 0, top: 60, width: 5, height: 7), in: window) == 3)
        #expect(PlaneWindow.margin(of: CellBounds(left: 80, top: 30, width: 5, height: 5), in: window) == 5)
    }

    @Test func aWindowMovesWhenTheMarginRunsLowOrThePatternShrinks() throws {
        let live = CellBounds(left: 0, top: 0, width: 300, height: 300)
        let window = try PlaneWindow.around(live)
        let margin = PlaneWindow.margin(of: live, in: window)
        let grown = CellBounds(left: live.left - margin + 10, top: 0, width: 300 + margin - 10, height: 300)
        #expect(PlaneWindow.shouldMove(grown, from: window))
        let shrunk = CellBounds(left: 100, top: 100, width: 2, height: 2)
        let big = try PlaneWindow.around(CellBounds(left: 0, top: 0, width: 20000, height: 20000))
        #expect(PlaneWindow.shouldMove(shrunk, from: big))
    }

    @Test func patternsPastTheLimitsAreRefusedWithAFix() {
        #expect(throws: TesseraError.self) { try PlaneWindow.around(CellBounds(left: 0, top: 0, width: 1 << 31, height: 1)) }
        #expect(throws: TesseraError.self) {
            try PlaneWindow.around(CellBounds(left: BoardShape.maxCoordinate, top: 0, width: 1, height: 1))
        }
    }

    /// Boxes share a window when their windows would overlap, and through others that
    /// do; the rest keep windows of their own.
    @Test func groupsJoinWhoseWindowsWouldOverlap() throws {
        let dot = { (x: Int, y: Int) in CellBounds(left: x, top: y, width: 3, height: 3) }
        let boxes = [dot(0, 0), dot(1_000_000_000, 0), dot(400, 0), dot(800, 0), dot(0, -1 << 40), dot(1_000_000_400, 0)]
        // 400 apart: windows (256 cells of margin each way, 768 a side) overlap, and the
        // chain 0 → 400 → 800 joins the first and the fourth, which alone would not.
        #expect(try PlaneAtlas.groups(of: boxes, minSide: 1) == [[0, 2, 3], [1, 5], [4]])
        // Far enough apart that even their windows do not touch.
        let apart = [dot(0, 0), dot(0, 2 * PlaneAtlas.leastMargin + 300)]
        #expect(try PlaneAtlas.groups(of: apart, minSide: 1).count == 2)
        #expect(try PlaneAtlas.groups(of: apart, minSide: 1, margin: PlaneWindow.minMargin).count == 1)
    }

    /// Groups found through the grids of squares and cells are the groups of every pair
    /// compared: seeded boxes of mixed sizes (many small, a few over four times the
    /// median), near and far apart; and many small boxes crowded together, most of them
    /// joined by the squares they share (a group's window grows with it, so the crowd
    /// becomes one group, and the far boxes stay alone).
    @Test(arguments: [(300, 60_000, 500, true), (1500, 12_000, 8, false)])
    func groupsAreThoseOfEveryPairCompared(count: Int, area: Int, largest: Int, someHuge: Bool) throws {
        var generator = SplitMix64(seed: 17)
        func random(_ n: Int) -> Int { Int(generator.next() % UInt64(n)) }
        var boxes: [CellBounds] = []
        for _ in 0..<count {
            let side = someHuge && random(20) == 0 ? 2000 + random(20_000) : 1 + random(largest)
            let spread = random(10) == 0 ? 1 << 40 : area
            boxes.append(CellBounds(left: random(spread) - spread / 2, top: random(area) - area / 2, width: side,
                                    height: 1 + random(min(400, largest))))
        }
        // Every pair, as groups: windows that overlap join, until none do.
        var group = Array(boxes.indices)
        func find(_ i: Int) -> Int { group[i] == i ? i : find(group[i]) }
        while true {
            var bounds: [Int: CellBounds] = [:]
            for (i, box) in boxes.enumerated() { bounds[find(i)] = bounds[find(i)].map { $0.union(box) } ?? box }
            let windows = try bounds.map { ($0.key, try PlaneWindow.around($0.value, minSide: 1, least: PlaneAtlas.leastMargin)) }
            var joined = false
            for (a, wa) in windows {
                for (b, wb) in windows where a < b && wa.left < wb.left + wb.width && wb.left < wa.left + wa.width
                    && wa.top < wb.top + wb.height && wb.top < wa.top + wa.height {
                    let (ra, rb) = (find(a), find(b))
                    if ra != rb { group[max(ra, rb)] = min(ra, rb); joined = true }
                }
            }
            if !joined { break }
        }
        var expected: [Int: [Int]] = [:]
        for i in boxes.indices { expected[find(i), default: []].append(i) }
        let groups = try PlaneAtlas.groups(of: boxes, minSide: 1)
        #expect(groups == expected.values.sorted { $0[0] < $1[0] })
        #expect(groups.count > 1 && groups.count < boxes.count, "\(groups.count) groups")
    }

    @Test func anAtlasLaysWindowsApartWithTheirMarginsWhole() throws {
        let groups = [CellBounds(left: 0, top: 0, width: 40, height: 9), CellBounds(left: 1 << 50, top: -(1 << 45), width: 3, height: 3),
                      CellBounds(left: -7_000_000, top: 5, width: 5000, height: 2)]
        let atlas = try PlaneAtlas(groups: groups, minSide: 1, margin: PlaneAtlas.leastMargin)
        #expect(atlas.islands.count == 3)
        for (i, a) in atlas.islands.enumerated() {
            #expect(a.rect.x >= 0 && a.rect.y >= 0 && a.rect.x + a.rect.width <= atlas.board.width && a.rect.y + a.rect.height <= atlas.board.height)
            for b in atlas.islands[(i + 1)...] {
                let apart = a.rect.x + a.rect.width <= b.rect.x || b.rect.x + b.rect.width <= a.rect.x
                    || a.rect.y + a.rect.height <= b.rect.y || b.rect.y + b.rect.height <= a.rect.y
                #expect(apart, "windows overlap on the atlas")
            }
            // Its live box, back in Golly's coordinates, is the group's.
            #expect(groups.contains(a.golly(a.live)))
            #expect(a.margin(after: 0) >= PlaneAtlas.leastMargin)
        }
        // Few groups keep a lone window's margin; many share a board of bounded size.
        #expect(PlaneAtlas.margin(forGroups: 3) == PlaneWindow.minMargin && PlaneAtlas.margin(forGroups: 1000) == PlaneAtlas.leastMargin)
        let margin = atlas.margin(after: 0)
        #expect(atlas.margin(after: UInt64(margin - 1)) == 1 && atlas.margin(after: UInt64(margin)) == 0)
        // Far less board than one window around them all would need.
        #expect(atlas.board.width <= 1 << 15 && atlas.board.height <= 1 << 15)
        // Each group's cells land in its own window.
        let overlays = atlas.overlays(of: groups.map { PlacedCells(cells: BitGrid(width: $0.width, height: $0.height), left: $0.left, top: $0.top) })
        #expect(Set(overlays.map { TileRect(x: $0.x, y: $0.y, width: $0.cells.width, height: $0.cells.height) }) == Set(atlas.islands.map(\.live)))
    }
}
