import Testing
import TesseraCore
@testable import TesseraTiles

/// A link whose other end is gone: every send fails.
struct BrokenLink: HaloLink {
    let tile: TileID
    func send(_ strip: HaloStrip) async throws { throw TesseraError("the neighbour is gone") }
}

/// A link that keeps what it is given and delivers nothing.
struct SilentLink: HaloLink {
    let tile: TileID
    func send(_ strip: HaloStrip) async throws {}
}

/// The time limits catch a wait that never ends. They are generous because these tests
/// share the cooperative threads (two here) with the command-line tests, whose
/// synchronous waits for processes can hold both for minutes (a CI run once starved
/// these for 3.7 minutes).
@Suite struct TileActorTests {
    static let rect = TileRect(x: 0, y: 0, width: 32, height: 32)
    static let cells = try! Soup(density: 0.4, seed: 3).cells(x: 0, y: 0, width: 32, height: 32)

    func tile(_ id: TileID = TileID(column: 0, row: 0)) throws -> TileActor {
        try TileActor(id: id, rect: Self.rect, depth: 2, rule: .life, deadSides: [], cells: Self.cells)
    }

    /// All eight links go to a neighbour that never answers.
    func waitingTile() async throws -> TileActor {
        let actor = try tile()
        var links: [Direction: any HaloLink] = [:]
        for side in Direction.allCases { links[side] = SilentLink(tile: TileID(column: 1, row: 0)) }
        await actor.connect(links)
        return actor
    }

    /// Before: one tile's failure left its siblings waiting for halos forever.
    @Test(.timeLimit(.minutes(10)))
    func oneFailingTileEndsTheWholeRun() async throws {
        let waiting = try await waitingTile()
        let failing = try tile(TileID(column: 1, row: 0))
        await failing.connect([.north: BrokenLink(tile: TileID(column: 0, row: 0))])
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await waiting.run(generations: 10) }
                group.addTask { try await failing.run(generations: 10) }
                for try await _ in group {}
            }
            Issue.record("the run did not fail")
        } catch {
            #expect(error as? TesseraError == TesseraError("the neighbour is gone"))
        }
    }

    @Test(.timeLimit(.minutes(10)))
    func cancellingARunEndsItsWaitForHalos() async throws {
        let actor = try await waitingTile()
        let run = Task { try await actor.run(generations: 4) }
        while await actor.isWaitingForHalos == false { await Task.yield() }
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
    }

    /// Before: a second run replaced the first one's waiter, and reads saw half a round.
    @Test(.timeLimit(.minutes(10)))
    func aRunningTileRefusesASecondRunAndReads() async throws {
        let actor = try await waitingTile()
        let run = Task { try await actor.run(generations: 4) }
        while await actor.isWaitingForHalos == false { await Task.yield() }
        await #expect(throws: TesseraError.self) { try await actor.run(generations: 1) }
        await #expect(throws: TesseraError.self) { try await actor.population() }
        await #expect(throws: TesseraError.self) { try await actor.cells(in: Self.rect) }
        await #expect(throws: TesseraError.self) { try await actor.dots(in: Viewport(x: 0, y: 0, cellsPerDot: 1, width: 4, height: 4)) }
        await #expect(throws: TesseraError.self) { try await actor.load(Self.cells, generation: 0) }
        run.cancel()
        _ = try? await run.value
        #expect(try await actor.population() > 0, "after the run ends, reads work again")
    }

    /// A strip is taken once, for this round or the next, of the halo's size; anything
    /// else is refused and changes nothing.
    @Test func refusesStripsThatDoNotFit() async throws {
        let actor = try await waitingTile()
        let side = HaloStrip(tile: actor.id, side: .west, generation: 0, cells: BitGrid(width: 2, height: 32), previous: BitGrid(width: 2, height: 32))
        try await actor.receive(side)
        await #expect(throws: TesseraError.self, "twice") { try await actor.receive(side) }
        let wrongSize = HaloStrip(tile: actor.id, side: .north, generation: 0, cells: BitGrid(width: 32, height: 3), previous: BitGrid(width: 32, height: 3))
        await #expect(throws: TesseraError.self, "wrong size") { try await actor.receive(wrongSize) }
        let beyond = HaloStrip(tile: actor.id, side: .north, generation: 0, pieces: [
            HaloStrip.Piece(offset: 30, cells: BitGrid(width: 3, height: 2), previous: BitGrid(width: 3, height: 2)),
        ], whole: false)
        await #expect(throws: TesseraError.self, "past the edge's end") { try await actor.receive(beyond) }
        let tooFar = HaloStrip(tile: actor.id, side: .north, generation: 3, cells: BitGrid(width: 32, height: 2), previous: BitGrid(width: 32, height: 2))
        await #expect(throws: TesseraError.self, "two rounds ahead") { try await actor.receive(tooFar) }
        try await actor.receive(HaloStrip(tile: actor.id, side: .north, generation: 2, cells: BitGrid(width: 32, height: 2), previous: BitGrid(width: 32, height: 2)))
        let lonely = try tile()
        await #expect(throws: TesseraError.self, "no neighbour there") { try await lonely.receive(side) }
    }

    @Test func refusesAKernelThisCPUDoesNotRun() throws {
        if Kernel.Implementation.avx2.isSupported {
            try Kernel.Implementation.avx2.checkSupported()
        } else {
            #expect(throws: TesseraError.self) {
                try TileActor(id: TileID(column: 0, row: 0), rect: Self.rect, depth: 1, rule: .life, deadSides: [],
                              cells: Self.cells, implementation: .avx2)
            }
        }
        try Kernel.Implementation.portable.checkSupported()
    }

    /// A frame's dots are the cells under each, read only where blocks hold live cells:
    /// checked against every dot's cells looked at one by one, on a tile off the board's
    /// corner, as painted and after steps (so blocks are known empty), for dots smaller
    /// and larger than a word, viewports hanging over the tile's edges, rows of dots all
    /// lit (the rest of their cell rows skipped), and a clip.
    @Test func framesMarkEveryDotOverALiveCell() async throws {
        let rect = TileRect(x: -300, y: 500, width: 700, height: 150)
        var cells = try Soup(density: 0.03, seed: 11).cells(x: 0, y: 0, width: rect.width, height: rect.height)
        for y in 60..<90 { for x in 400..<460 where (x * 7 + y * 3) % 5 < 2 { cells[x, y] = true } }
        let actor = try TileActor(id: TileID(column: 0, row: 0), rect: rect, depth: 4, rule: .life,
                                  deadSides: Set(Direction.allCases), cells: cells)
        try await expectDotsOverLiveCells(of: actor)
        try await actor.run(generations: 30)
        try await expectDotsOverLiveCells(of: actor)
    }

    func expectDotsOverLiveCells(of actor: TileActor) async throws {
        let rect = actor.rect
        let now = try #require(try await actor.cells(in: rect)).cells
        #expect(now.population > 100)
        let views = [Viewport(x: 100, y: 560, cellsPerDot: 5, width: 12, height: 6),
                     Viewport(x: -300, y: 500, cellsPerDot: 1, width: 700, height: 150),
                     Viewport(x: -333, y: 481, cellsPerDot: 3, width: 300, height: 80),
                     Viewport(x: -10, y: 520, cellsPerDot: 7, width: 90, height: 30),
                     Viewport(x: -400, y: 400, cellsPerDot: 64, width: 20, height: 8),
                     Viewport(x: 100, y: 555, cellsPerDot: 100, width: 1, height: 1)]
        let clips: [TileRect?] = [nil, TileRect(x: -250, y: 530, width: 333, height: 61)]
        for view in views {
            for clip in clips {
                let area = clip.map(rect.intersection) ?? rect
                guard let (x, y, dots) = try await actor.dots(in: view, clip: clip) else {
                    #expect(view.dots(covering: area!) == nil)
                    continue
                }
                for dy in 0..<dots.height {
                    for dx in 0..<dots.width {
                        let xs = view.cells(underColumn: x + dx).clamped(to: area!.x..<(area!.x + area!.width))
                        let ys = view.cells(underRow: y + dy).clamped(to: area!.y..<(area!.y + area!.height))
                        let alive = ys.contains { cy in xs.contains { now[$0 - rect.x, cy - rect.y] } }
                        #expect(dots[dx, dy] == alive, "\(view) \(String(describing: clip)) dot \(x + dx),\(y + dy)")
                    }
                }
            }
        }
    }

    /// An in-memory snapshot keeps a tile's live parts: painted back, they are the
    /// tile's cells exactly, and on a sparse tile they hold a sliver of its area. Cells
    /// on the tile's last row and column, and in neighbouring blocks, included.
    @Test func livePartsAreTheTilesCells() async throws {
        let rect = TileRect(x: 512, y: 256, width: 4096, height: 2048)
        var cells = BitGrid(width: rect.width, height: rect.height)
        let glider = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)], blinker = [(0, 0), (1, 0), (2, 0)]
        for (x, y) in glider { cells[100 + x, 100 + y] = true; cells[254 + x, 30 + y] = true }
        for (x, y) in blinker { cells[3000 + x, 1500 + y] = true; cells[4093 + x, 2047 + y] = true; cells[255 + x, 31 + y] = true }
        let actor = try TileActor(id: TileID(column: 0, row: 0), rect: rect, depth: 8, rule: .life,
                                  deadSides: Set(Direction.allCases), cells: cells)
        for generations: UInt64 in [0, 1, 40] {
            try await actor.run(generations: generations)
            let parts = try await actor.liveParts()
            let painted = StartingCells(soup: nil, overlays: parts)
                .cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height, of: BoardShape(width: 8192, height: 4096, topology: .plane))
            let now = try #require(try await actor.cells(in: rect)).cells
            #expect(now.population > 0 && painted == now, "after \(generations) more")
            #expect(parts.reduce(0) { $0 + $1.cells.width * $1.cells.height } <= rect.width * rect.height / 50)
        }
    }
}
