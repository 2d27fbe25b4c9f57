import Foundation
import Testing
import TesseraCore
import TesseraHashLife
import TesseraPatterns
import TesseraWire
@testable import TesseraCluster
@testable import TesseraBench
@testable import TesseraRun

/// The run library's pure parts: sweep rows, the progress line's words, the setup.
@Suite struct RunLibraryTests {
    static let point = ScalingPoint(series: 8, mode: "strong", workers: 2, halo: 8, width: 4096, height: 4096, tiles: "1x2",
                                    generations: 200, secondsMedian: 0.25, cellUpdatesPerSecondMedian: 1.5e11,
                                    cellUpdatesPerSecondMin: 1.4e11, cellUpdatesPerSecondMax: 1.6e11, computeSeconds: 0.4,
                                    haloWaitSeconds: 0.01, haloWaitPercent: 2.4, bytesPerGeneration: 4096)

    /// The CSV and the JSON say the same thing under the same names; a figure a point
    /// does not have (the ceiling of a 1-worker point) is empty in one, absent in the other.
    @Test func csvAndJSONShareTheirColumns() throws {
        var points = [Self.point, Self.point]
        points[0].workers = 1
        points[0].cellUpdatesPerSecondMedian = 0.8e11
        points[1].ceilingCellUpdatesPerSecond = 1.6e11
        points[1].shareOfCeiling = 1.5e11 / 1.6e11
        ScalingPoint.relate(&points)
        #expect(points[1].speedup == 1.5e11 / 0.8e11 && points[1].efficiency == points[1].speedup / 2)
        let csv = ScalingPoint.csv(points).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let header = ScalingPoint.CodingKeys.allCases.map(\.rawValue)
        #expect(csv[0] == header)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(ScalingPoint.json(points).utf8)) as? [[String: Any]])
        #expect(Set(objects[1].keys) == Set(header), "series stays out of the files")
        for (row, object) in zip(csv.dropFirst(), objects) {
            #expect(row.count == header.count)
            for (key, field) in zip(header, row) {
                guard let value = object[key] else {
                    #expect(field.isEmpty, "\(key) is in the CSV only")
                    continue
                }
                if let number = value as? NSNumber, !(value is String) {
                    #expect(Double(field) == number.doubleValue, "\(key)")
                } else {
                    #expect(field == value as? String, "\(key)")
                }
            }
        }
        let decoded = try JSONDecoder().decode([ScalingPoint].self, from: Data(ScalingPoint.json(points).utf8))
        #expect(decoded.map { var p = $0; p.series = 8; return p } == points)
    }

    @Test func theProgressLineSaysWhereTheRunIs() {
        let waiting = Coordinator.Status(workers: 2, joined: 1, ready: false, done: 0, secondsAdvancing: 0, computeSeconds: 0, waitSeconds: 0)
        #expect(ProgressLine.describe(waiting, cells: 100, total: 10) == "waiting for workers: 1 of 2")
        let running = Coordinator.Status(workers: 2, joined: 2, ready: true, done: 250, secondsAdvancing: 2.5, computeSeconds: 9.9, waitSeconds: 0.1)
        #expect(ProgressLine.describe(running, cells: 1 << 30, total: 1000)
            == "generation 250 of 1000 · 107.37 G cell-updates/s · ETA 8 s · halo wait 1.0%")
        #expect(ProgressLine.describe(running, cells: 1 << 30, total: nil) == "generation 250 · 107.37 G cell-updates/s · halo wait 1.0%")
    }

    /// After a head start, the line counts on from the generations stepped here, and
    /// the speed is the workers' own.
    @Test func theProgressLineCountsOnFromAHeadStart() {
        let running = Coordinator.Status(workers: 2, joined: 2, ready: true, done: 250, secondsAdvancing: 2.5, computeSeconds: 9.9, waitSeconds: 0.1)
        #expect(ProgressLine.describe(running, before: 4000, cells: 1 << 30, total: nil)
            == "generation 4250 · 107.37 G cell-updates/s · halo wait 1.0%")
        #expect(ProgressLine.describe(done: 500, seconds: 5, cells: 1 << 30, total: 1000)
            == "generation 500 of 1000 · 107.37 G cell-updates/s · ETA 5 s")
    }

    /// The summary says where the generations were stepped.
    @Test func theSummarySaysWhatAHeadStartDid() throws {
        var choices = RunSetup.Choices()
        choices.pattern = (Pattern(cells: BitGrid(width: 3, height: 3), position: (0, 0)), "g.rle")
        choices.size = (64, 64)
        let setup = try RunSetup(choices, defaultTiles: 2)
        func line(_ head: RunOutcome.HeadStart, workers: [WorkerSummary] = []) -> String {
            Summary.lines(setup: setup, outcome: RunOutcome(seconds: 1, population: 5, workers: workers, generations: 100).after(head),
                          detailed: false)[0]
        }
        let quiet = line(.init(generations: 100, seconds: 1, workers: 2, started: false, handedOver: false))
        #expect(quiet.hasPrefix("g.rle: 200 generations on 64x64 torus B3/S23, in process (never busy enough to start its 2 workers), tiles 1x2"))
        #expect(quiet.contains(": population 5, 2.000 s,"))
        let early = line(.init(generations: 100, seconds: 1, workers: 1, started: true, handedOver: false))
        #expect(early.contains(", in process (over before its 1 worker was up), tiles 1x2"), "\(early)")
        let report = WorkerReport(computeSeconds: 1, waitSeconds: 0, bytesSent: 0)
        let handed = line(.init(generations: 60, seconds: 1, workers: 2, started: true, handedOver: true),
                          workers: [0, 1].map { WorkerSummary(index: $0, pid: 1, host: "h", tiles: [], report: report) })
        #expect(handed.contains(", 2 workers (the first 60 generations stepped here), tiles 1x2"), "\(handed)")
        #expect(handed.contains("160 generations"))
        // The head start's generations and seconds come first.
        let after = RunOutcome(seconds: 4, population: 5, workers: [], generations: 100)
            .after(.init(generations: 60, seconds: 0.5, workers: 2, started: true, handedOver: true))
        #expect(after.seconds == 4.5 && after.generations == 160 && after.headStart?.generations == 60)
    }

    /// HashLife's turns with tiles add up, and the summary says how many were tiles'.
    @Test func theSummarySaysWhereHashLifeTookTheRunBack() throws {
        var choices = RunSetup.Choices()
        choices.pattern = (Pattern(cells: BitGrid(width: 3, height: 3), position: (0, 0)), "s.rle")
        let setup = try RunSetup(choices, defaultTiles: 2)
        let first = RunOutcome.HashLifeShare(generations: 1000, seconds: 0.5, squares: 10, handedOver: true)
        let second = RunOutcome.HashLifeShare(generations: 100, seconds: 0.25, squares: 20, handedOver: true)
        let last = RunOutcome.HashLifeShare(generations: 90000, seconds: 0.125, squares: 30, handedOver: false, collections: 1)
        let whole = first.joined(tiles: 4096, seconds: 1, then: second).joined(tiles: 4096, seconds: 2, then: last)
        #expect(whole.generations == 99292 && whole.seconds == 3.875 && whole.tileGenerations == 8192 && whole.returns == 2)
        #expect(whole.squares == 30 && !whole.handedOver && whole.collections == 1)
        let line = Summary.lines(setup: setup, outcome: RunOutcome(seconds: 0, population: 5, workers: [], generations: 0).after(whole),
                                 detailed: false)[0]
        #expect(line.contains("99292 generations on the unbounded plane B3/S23, in process by HashLife (30 squares, collected 1 time), "
            + "8192 of them by tiles where it fell behind (taken back 2 times): population 5, 3.875 s"), "\(line)")
    }

    /// What a head start hands over: the same board and tiles, its cells where they stood.
    @Test func aHandedOverSetupKeepsTheBoardAndPlacesTheCells() throws {
        var choices = RunSetup.Choices()
        choices.pattern = (Pattern(cells: BitGrid(width: 1, height: 1), position: (0, 0)), "p")
        (choices.size, choices.topology) = ((64, 32), .torus)
        let setup = try RunSetup(choices, defaultTiles: 2)
        let one = try setup.inOneTile()
        #expect(one.tiling.columns == 1 && one.tiling.rows == 1 && one.shape == setup.shape)
        var cells = BitGrid(width: 3, height: 2)
        cells[0, 0] = true
        cells[2, 1] = true
        let next = setup.handedOver(cells: cells, at: TileRect(x: 10, y: 20, width: 3, height: 2), generation: 77)
        #expect(next.generation == 77 && next.shape == setup.shape && next.tiling.columns == setup.tiling.columns
            && next.tiling.rows == setup.tiling.rows && next.halo == setup.halo)
        let board = next.start.cells(x: 0, y: 0, width: 64, height: 32, of: next.shape)
        #expect(board.population == 2 && board[10, 20] && board[12, 21])
    }

    /// A pattern over 16 MiB of cells is cut by the coordinator into each tile's part, so
    /// a worker receives only what lies on its tiles, and no tile's cells travel whole; a
    /// smaller one goes to every worker as it is.
    @Test func largePatternsAreCutIntoEachTilesPart() throws {
        func setup(_ cells: BitGrid) throws -> RunSetup {
            var choices = RunSetup.Choices()
            choices.pattern = (Pattern(cells: cells), "p")
            choices.size = (16384, 16384)
            return try RunSetup(choices, defaultTiles: 2)
        }
        let small = try setup(BitGrid(width: 8192, height: 8192)).plan(generations: 1)
        #expect(small.overlays.count == 1 && small.cells == nil)
        // Centred on the board, so across the border of the 1x2 tiles at row 8192.
        var cells = BitGrid(width: 16384, height: 8200)
        cells[5, 3] = true
        cells[16000, 8199] = true
        let whole = try #require(try setup(cells).start.overlays.first)
        let large = try setup(cells).plan(generations: 1)
        #expect(large.cells == nil && large.overlays.count == 2)
        let rects = large.tiling.tiles.map(large.tiling.rect(of:))
        for overlay in large.overlays {
            let box = TileRect(x: overlay.x, y: overlay.y, width: overlay.cells.width, height: overlay.cells.height)
            #expect(rects.contains { $0.intersection(box) == box }, "\(box) lies in one tile")
        }
        let start = StartingCells(soup: nil, overlays: large.overlays)
        let shape = large.tiling.shape
        #expect(whole.y < 8192 && whole.y + 8200 > 8192)
        #expect(start.cells(x: whole.x, y: whole.y + 3, width: 16, height: 1, of: shape)[5, 0])
        #expect(start.cells(x: whole.x + 16000, y: whole.y + 8199, width: 1, height: 1, of: shape)[0, 0])
        #expect(large.overlays.reduce(0) { $0 + $1.cells.population } == 2)
    }

    @Test func aRunPastTheLastGenerationIsRefused() throws {
        var choices = RunSetup.Choices()
        choices.pattern = (Pattern(cells: BitGrid(width: 1, height: 1), generation: .max - 5), "late")
        let setup = try RunSetup(choices, defaultTiles: 1)
        #expect(try setup.end(after: 5) == .max)
        #expect(throws: TesseraError.self) { try setup.end(after: 6) }
    }

    /// A box read in blocks on the unbounded plane runs on a tube (`--rule` with Golly's
    /// `:T0,h`) as the one grid it was read as before.
    @Test func aBoxReadInBlocksRunsOnATube() throws {
        let pattern = try RLE.parse("x = 1024, y = 1024, rule = B3/S23\n5$10b3o1000$1020b3o!\n")
        #expect(pattern.hasParts)
        var choices = RunSetup.Choices()
        choices.pattern = (pattern, "box.rle")
        choices.rule = try BoardShape.parseRule("B3/S23:T0,1024")
        let setup = try RunSetup(choices, defaultTiles: 1)
        #expect(setup.pattern?.hasParts == false && setup.pattern?.cells.width == 1024 && setup.pattern?.cells.population == 6)
    }

    /// The unbounded plane has no window: parts 2^40 cells apart start as they are; a grid
    /// 8000 cells wide starts as its live blocks, where Golly puts them, with nothing
    /// kept of the space between; a soup's area joins the parts.
    @Test func theUnboundedPlaneStartsFromThePatternsPartsWhereverTheyLie() throws {
        var dot = BitGrid(width: 3, height: 1)
        dot.setRun(y: 0, x: 0, count: 3)
        let parts = [PlacedCells(cells: dot, left: 0, top: 0), PlacedCells(cells: dot, left: 1 << 40, top: 5)]
        var choices = RunSetup.Choices()
        choices.pattern = (Pattern(parts: parts, rule: .life, generation: 0), "far.rle")
        let setup = try RunSetup(choices, defaultTiles: 2)
        #expect(setup.isUnbounded && setup.startingParts.map(\.bounds) == parts.map(\.bounds))
        #expect(setup.shape.description == "the unbounded plane")
        var cells = BitGrid(width: 8000, height: 8000)
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { cells[x, y] = true; cells[7997 + x, 7997 + y] = true }
        choices.pattern = (Pattern(cells: cells, position: (-5, 7)), "two.rle")
        #expect(try RunSetup(choices, defaultTiles: 1).startingParts.map(\.bounds)
                == [CellBounds(left: -5, top: 7, width: 3, height: 3), CellBounds(left: 7992, top: 8004, width: 3, height: 3)])
        choices.pattern = (Pattern(parts: parts, rule: .life, generation: 0), "far.rle")
        choices.soup = try Soup(density: 0.5, seed: 1)
        (choices.size, choices.topology) = ((64, 32), .infinite)
        let souped = try RunSetup(choices, defaultTiles: 1)
        #expect(souped.soup == nil && souped.startingParts.map(\.bounds) == parts.map(\.bounds) + [CellBounds(left: -32, top: -16, width: 64, height: 32)])
        // One grid a trillion cells from the soup stays apart from it (one grid of both
        // would span the trillion); one beside it is laid over it in one grid.
        choices.pattern = (Pattern(cells: dot, position: (1_000_000_000_000, 0)), "far.rle")
        #expect(try RunSetup(choices, defaultTiles: 1).startingParts.map(\.bounds)
                == [CellBounds(left: 1_000_000_000_000, top: 0, width: 3, height: 1), CellBounds(left: -32, top: -16, width: 64, height: 32)])
        choices.pattern = (Pattern(cells: dot, position: (40, 0)), "near.rle")
        #expect(try RunSetup(choices, defaultTiles: 1).startingParts.map(\.bounds) == [CellBounds(left: -32, top: -16, width: 75, height: 32)])
    }
}

/// The steps an `auto` or `hashlife` run takes: they add up to the run, grow from one
/// generation at most doubling, and then keep to one size.
@Suite struct HashLifeScheduleTests {
    @Test func acornsStepsGrowThenKeepToOneSize() {
        // 5206 = 19 × 256 + 342, and 342 = (1 + 2 + … + 128) + 64 + 16 + 4 + 2 + 1: a
        // second step of 64 while acorn is small, the steps under 32 at the end.
        #expect(HashLifeRun.powers(of: 5206) == [0, 1, 2, 3, 4, 5, 6, 6, 7] + Array(repeating: 8, count: 19) + [0, 1, 2, 4])
    }

    @Test(arguments: [1, 2, 3, 7, 255, 256, 511, 512, 1000, 1103, 100_000, 736_692, 1 << 40, UInt64.max])
    func stepsAddUpAndStayFew(generations: UInt64) {
        let powers = HashLifeRun.powers(of: generations)
        #expect(powers.reduce(UInt64(0)) { $0 &+ (1 << UInt64($1)) } == generations)
        let top = powers.max()!
        // From one generation, each step the same as the one before or twice it, up to
        // the top steps; after them, at most five under 32 generations, each of its own size.
        let end = powers.lastIndex(of: top)! + 1
        let growing = powers[..<end], last = powers[end...]
        #expect(growing.first == 0)
        #expect(zip(growing, growing.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 }, "\(powers)")
        #expect(last.count <= HashLifeRun.smallestTwice && last.allSatisfy { $0 < HashLifeRun.smallestTwice }, "\(powers)")
        #expect(zip(last, last.dropFirst()).allSatisfy { $0 < $1 }, "\(powers)")
        // A 256th of the run at the top, at least 256 generations: some 2^8 steps, not 2^k.
        #expect(powers.count <= 2 * 256 + 2 * 64, "\(powers.count) steps")
        // The top step: at least a 512th of the run, and 256 generations where the run has room.
        #expect(UInt64(1) << UInt64(top) >= generations >> 9, "\(powers)")
        #expect(top >= min(8, 62 - generations.leadingZeroBitCount), "\(powers)")
    }

    /// `--step 2^k`: whole steps of that size, then the rest by its binary digits, smallest first.
    @Test func chosenStepsAreWholeStepsThenTheRest() {
        #expect(HashLifeRun.Settings(step: 1024).powers(of: 5206) == [10, 10, 10, 10, 10, 1, 2, 4, 6])
        #expect(HashLifeRun.Settings(step: 1 << 20).powers(of: 1 << 20) == [20])
        #expect(HashLifeRun.Settings(step: 1).powers(of: 3) == [0, 0, 0])
        #expect(HashLifeRun.Settings(step: 1 << 20).powers(of: 5) == [0, 2])
        // Listed 65536 steps at a time: `--step 1` for 10^12 generations is no list of 10^12.
        #expect(HashLifeRun.Settings(step: 1).stretch == 1 << 16 && HashLifeRun.Settings(step: 1 << 50).stretch == .max)
        #expect(HashLifeRun.Settings().stretch == .max)
    }

    /// A pattern that repeats in space starts at a 4th of the top step, the steps below
    /// it gathered into steps of that size: 2^20 = 2^10 + 2^10 + 2^11 + 255 × 2^12.
    @Test(arguments: [1, 3, 255, 1000, 5206, 100_000, 1 << 20, 1 << 40, UInt64.max])
    func aPatternThatRepeatsInSpaceStartsNearTheTop(generations: UInt64) {
        let powers = HashLifeRun.powers(of: generations, repeatsInSpace: true)
        #expect(powers.reduce(UInt64(0)) { $0 &+ (1 << UInt64($1)) } == generations)
        let top = HashLifeRun.powers(of: generations).max()!
        #expect(powers.first == max(top - HashLifeRun.firstBelowTop, 0), "\(powers)")
        #expect(powers.count <= HashLifeRun.powers(of: generations).count, "\(powers)")
        if generations == 1 << 20 { #expect(powers == [10, 10, 11] + Array(repeating: 12, count: 255)) }
    }

    /// The steps a plan takes where a step of each size makes `made(power)` squares.
    func taken(_ powers: [Int], mayRaise: Bool = true, made: (Int) -> Int) -> [Int] {
        var plan = HashLifeRun.StepPlan(powers, mayRaise: mayRaise)
        var taken: [Int] = []
        while let power = plan.next() {
            taken.append(power)
            plan.took(power, made: made(power))
        }
        return taken
    }

    /// Steps double while one twice the size of the one before made fewer than 1.75
    /// times its squares (a propagator's, whatever their size), and keep the plan where
    /// squares double with the step (a soup's) or where the user chose the size.
    @Test func stepsGrowWhileTheyGetCheaper() {
        let planned: [Int] = [10, 11] + Array(repeating: 12, count: 7) + [0, 3]
        let cheap: (Int) -> Int = { _ in 100 }, doubling: (Int) -> Int = { 10 << $0 }
        #expect(taken(planned, made: cheap) == [10, 11, 12, 13, 14, 0, 3])
        #expect(taken(planned, made: doubling) == planned)
        #expect(taken(planned, mayRaise: false, made: cheap) == planned)
        // Seven steps of 2^12 to come after the first: three of 2^13 and one of 2^12 left
        // over; then a step of 2^14 that cost ten times one of 2^13 keeps the plan.
        let uneven: [Int] = [10, 11] + Array(repeating: 12, count: 8) + [0, 3]
        let growing = taken(uneven) { $0 <= 13 ? 100 : 1000 }
        #expect(growing == [10, 11, 12, 13, 14, 12, 0, 3])
        let generations: ([Int]) -> Int = { $0.reduce(0) { $0 + 1 << $1 } }
        #expect(generations(growing) == generations(uneven))
    }

    @Test func noGenerationsIsNoStep() {
        #expect(HashLifeRun.powers(of: 0).isEmpty)
    }

    /// HashLife hands over once it holds more squares than the live cells warrant (a
    /// million always, and 128 more for each occupied square: the wick extruder's 19
    /// million for its 20180 cells are far past; a metapixel's 3 million for 10^8 cells
    /// are not) and steps more than twice as slow as tiles measured on the same cells.
    /// The figures are the runs' own on an AMD EPYC, where a fixed 50 ns an occupied
    /// square kept the extruder with HashLife to the end (127 MiB, slower than tiles).
    @Test func hashLifeHoldsWhatTheLiveCellsWarrant() {
        #expect(!HashLifeRun.holdsTooMany(squares: 1 << 20, occupied: 0))
        #expect(HashLifeRun.holdsTooMany(squares: (1 << 20) + 1, occupied: 0))
        #expect(HashLifeRun.holdsTooMany(squares: 19_000_000, occupied: 3000))
        #expect(!HashLifeRun.holdsTooMany(squares: 3_000_000, occupied: 120_000))
        // The extruder as it first holds too many: 111 µs a generation, tiles 50.
        #expect(HashLifeRun.shouldHandOver(squares: 1_273_556, occupied: 1694, seconds: 111e-6, tiles: 50e-6))
        // 7-in-a-row-Cordership-V-gun at its dearest, just past the bound, and the
        // constructor's tape, a little faster than tiles: both keep going.
        #expect(!HashLifeRun.shouldHandOver(squares: 1_230_270, occupied: 896, seconds: 30.7e-6, tiles: 18.8e-6))
        #expect(!HashLifeRun.shouldHandOver(squares: 1_152_153, occupied: 805, seconds: 3.7e-6, tiles: 5.9e-6))
        // However slow, a store the live cells warrant is kept.
        #expect(!HashLifeRun.shouldHandOver(squares: 3_000_000, occupied: 120_000, seconds: 1, tiles: 1e-3))
    }

    /// Tiles' pace is measured once the store holds too many, and again only where the
    /// pattern has changed: its area halved or doubled, or the generations doubled.
    @Test func tilesPaceIsMeasuredAgainWhereThePatternChanged() {
        var pace = HashLifeRun.TilesPace()
        #expect(pace.isStale(occupied: 100, generation: 4000))
        pace.measured(20e-6, occupied: 100, generation: 4000)
        #expect(pace.seconds == 20e-6)
        #expect(!pace.isStale(occupied: 100, generation: 4000))
        #expect(!pace.isStale(occupied: 199, generation: 7999))
        #expect(!pace.isStale(occupied: 51, generation: 5000))
        #expect(pace.isStale(occupied: 201, generation: 5000))
        #expect(pace.isStale(occupied: 49, generation: 5000))
        #expect(pace.isStale(occupied: 100, generation: 8000))
    }

    /// The probe steps the cells as tiles would: a field of still lifes, which tiles
    /// stop stepping, costs a small part of what a soup of the same area does.
    @Test func tilesProbeSeesWhatTilesStep() throws {
        let side = 1024
        let soup = PlacedCells(cells: try Soup(density: 0.35, seed: 7).cells(x: 0, y: 0, width: side, height: side), left: -512, top: -512)
        var blocks = BitGrid(width: side, height: side)
        for y in stride(from: 0, to: side, by: 8) { for x in stride(from: 0, to: side, by: 8) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { blocks[x + dx, y + dy] = true }
        } }
        // The least of three each: beside the rest of the suite a still field of 512²
        // once cost 1.9 µs a generation (alone 0.14 µs at 1024², the soup 32).
        func least(_ parts: [PlacedCells]) throws -> Double {
            try (0..<3).map { _ in try TilesProbe.secondsPerGeneration(of: parts, rule: .life, generation: 0) }.min()!
        }
        let still = try least([PlacedCells(cells: blocks, left: -512, top: -512)]), busy = try least([soup])
        #expect(busy > 0 && still < busy / 4, "still lifes \(still * 1e6) µs, a soup \(busy * 1e6) µs a generation")
    }

    /// What a generation cost is measured over the latest quarter of the generations
    /// done, so that one dear step (the store's table rebuilt) does not decide alone,
    /// and the run's first, dearest steps stop counting as it goes on.
    @Test func hashLifesCostIsOverTheLatestQuarterOfTheRun() {
        var costs = HashLifeRun.StepCosts()
        #expect(costs.perGeneration == 0)
        // Steps of 256 generations at 50 µs a generation, after a first one at 1 ms.
        costs.took(generation: 256, seconds: 256e-3)
        #expect(abs(costs.perGeneration - 1e-3) < 1e-12)
        var seconds = 256e-3
        for step in 2...40 {
            // The 32nd step costs six times the others.
            seconds += 256 * (step == 32 ? 300e-6 : 50e-6)
            costs.took(generation: UInt64(step) * 256, seconds: seconds)
        }
        // The last quarter of 10240 generations: 10 steps, one of them the dear one.
        #expect(abs(costs.perGeneration - 75e-6) < 1e-9)
        for step in 41...60 {
            seconds += 256 * 50e-6
            costs.took(generation: UInt64(step) * 256, seconds: seconds)
        }
        #expect(abs(costs.perGeneration - 50e-6) < 1e-9)
    }

    /// What HashLife may spend before it has to keep ahead: half a millisecond in a
    /// short run, or 8 squares for each occupied one of a large pattern; a 64th of what
    /// tiles would spend on a long one; never more than a quarter of the store.
    @Test func onlyALongRunInvestsInHashLife() {
        let limit = 1 << 30
        #expect(HashLifeRun.investment(occupied: 300, generations: 65_535, nodeLimit: limit) == HashLifeRun.allowance)
        #expect(HashLifeRun.investment(occupied: 2000, generations: 65_535, nodeLimit: limit) == 8 * 2000)
        #expect(HashLifeRun.investment(occupied: 2000, generations: 100_000, nodeLimit: limit) == 2000 * 100_000 / 64)
        #expect(HashLifeRun.investment(occupied: 1, generations: 100_000, nodeLimit: limit) == HashLifeRun.allowance)
        #expect(HashLifeRun.investment(occupied: 65536, generations: 1 << 40, nodeLimit: limit) == limit / 4)
    }

    /// The store holds 256 MiB of squares unless `--memory` says otherwise, as bgolly's
    /// `-M`; a limit past 64 bits of bytes is all the indices there are.
    @Test func theStoreTakesBgollysMemoryByDefault() {
        #expect(HashLifeRun.nodeLimit() == 256 << 20 / HashLifeRun.bytesPerSquare)
        #expect(HashLifeRun.nodeLimit(memory: 1) == 1 << 20 / HashLifeRun.bytesPerSquare)
        #expect(HashLifeRun.nodeLimit(memory: 0) == 1 << 12)
        #expect(HashLifeRun.nodeLimit(memory: .max) == Int(UInt32.max - 1))
        // What a run may invest before it keeps ahead of tiles is weighed against the
        // machine's memory, not the store's.
        #expect(HashLifeRun.roomySquares >= HashLifeRun.nodeLimit() || MemoryBudget.physicalBytes < 4 << 30)
    }
}


/// HashLife's cells go to an RLE a row of 256² squares at a time, as the writer asks for
/// them, never all at once (a breeder's 100000 generations: 86 MiB of cells as one grid,
/// 14 MiB so): the file is the one the pattern written whole makes.
@Suite struct HashLifeOutputTests {
    @Test func hashLifeWritesARowOfSquaresAtATimeTheSameFile() throws {
        // A seeded soup across squares' edges (dense rows: one grid each), gliders far
        // apart on its rows and 10^6 rows below (a square each), a run of live cells
        // that crosses from one square into the next.
        var generator = SplitMix64(seed: 11)
        var soup = BitGrid(width: 700, height: 300)
        for y in 0..<300 {
            for x in 0..<700 where generator.next() % 3 == 0 { soup[x, y] = true }
        }
        var glider = BitGrid(width: 3, height: 3)
        for (x, y) in [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)] { glider[x, y] = true }
        var run = BitGrid(width: 40, height: 1)
        for x in 0..<40 { run[x, 0] = true }
        let parts = [PlacedCells(cells: soup, left: -300, top: -100), PlacedCells(cells: glider, left: 9000, top: 0),
                     PlacedCells(cells: glider, left: -70000, top: 1_000_000), PlacedCells(cells: run, left: 236, top: 1_000_100)]
        var life = try HashLife(parts: parts, rule: .life, generation: 0, nodeLimit: 1 << 22)
        let squares = life.liveSquares(level: 8)
        let rows = Dictionary(grouping: squares, by: \.top).values.map { life.placedCells(inRow: $0) }
        #expect(rows.contains { $0.count == 1 && $0[0].cells.width > 256 })
        #expect(rows.contains { $0.count >= 3 })

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hashlife-rows-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func output(_ name: String) throws -> BoardOutput {
            try BoardOutput(path: folder.appendingPathComponent(name).path, shape: BoardShape(width: 1, height: 1, topology: .infinite),
                            rule: .life, name: "test")
        }
        try HashLifeRun.write(&life, rule: .life, to: try output("rows.rle"))
        try output("whole.rle").write(parts: parts, rule: .life, generation: 0)
        let written = try String(contentsOf: folder.appendingPathComponent("rows.rle"), encoding: .utf8)
        #expect(written == (try String(contentsOf: folder.appendingPathComponent("whole.rle"), encoding: .utf8)))
        #expect(written.hasPrefix("#CXRLE Pos=-70000,-100\n"))
    }
}

/// HashLife's steps over a rule tree's states (`WholeBoard.hashLifeSteps`): a step size
/// changed forgets every result, so the sizes change seldom.
@Suite struct StateHashLifeStepsTests {
    static func steps(_ generations: UInt64, fixed: Int? = nil, growing: Bool = true) throws -> [Int] {
        var taken: [Int] = []
        let done = try WholeBoard<StateGrid>.hashLifeSteps(generations, fixed: fixed, growing: growing) { taken.append($0) }
        #expect(done == generations && taken.reduce(UInt64(0)) { $0 + (1 << UInt64($1)) } == generations)
        return taken
    }

    /// An eighth of the run at the top (at least 16 generations), whole steps of it, then
    /// the rest by its binary digits, largest first: a size is never taken up again once
    /// left. Growing, from 16 doubling to that top.
    @Test(arguments: [1, 15, 100, 1000, 1023, 4096, 100_000, 1 << 40] as [UInt64])
    func stepsChangeSizeSeldom(generations: UInt64) throws {
        for growing in [false, true] {
            let taken = try Self.steps(generations, growing: growing)
            let top = max(4, 63 - (max(1, generations / 8)).leadingZeroBitCount)
            #expect(taken.max()! <= top, "\(taken)")
            if generations >= 1 << top { #expect(taken.max() == top, "\(taken)") }
            // Up to the top's steps by one size at a time (growing) or at once; after them,
            // each size smaller than the one before.
            let end = taken.lastIndex(of: taken.max()!)! + 1
            let (rising, tail) = (taken[..<end], taken[end...])
            #expect(zip(rising, rising.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 }, "\(taken)")
            #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 < $0 } && tail.allSatisfy { $0 < taken.max()! }, "\(taken)")
            if growing, generations >= 16 { #expect(taken.first == 4, "\(taken)") }
            if !growing { #expect(Set(rising).count == 1, "\(taken)") }
        }
        // 1000 generations: 15 steps of 64, then 32 and 8; growing, 16 and 32 first.
        #expect(try Self.steps(1000, growing: false) == Array(repeating: 6, count: 15) + [5, 3])
        #expect(try Self.steps(1000) == [4, 5] + Array(repeating: 6, count: 14) + [5, 4, 3])
    }

    /// `--step 2^k`: whole steps of that size, then the rest by its binary digits; a step
    /// that `goesOn` refuses is the last.
    @Test func aChosenStepIsKeptAndAStopEndsTheSteps() throws {
        #expect(try Self.steps(1000, fixed: 3) == Array(repeating: 3, count: 125))
        #expect(try Self.steps(21, fixed: 3) == [3, 3, 2, 0])
        var taken: [Int] = []
        let done = try WholeBoard<StateGrid>.hashLifeSteps(1000, step: { taken.append($0) }, goesOn: { $0 < 40 })
        #expect(done == 48 && taken == [4, 5])
    }
}
