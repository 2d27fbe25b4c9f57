import Glibc
import TesseraCluster
import TesseraCore
import TesseraHashLife
import TesseraPatterns

/// How a run steps a pattern on the unbounded plane.
package enum Algorithm: String, Sendable, CaseIterable {
    /// Tiles of cells (`TileEngine`), here and on workers: fastest where a pattern stays chaotic.
    case tiles
    /// HashLife in this process (`HashLife`): fastest where a pattern repeats, as guns do.
    case hashlife
    /// HashLife while it keeps ahead of what tiles would cost, then tiles (`HashLifeRun`).
    case auto
}

/// A run on Golly's unbounded plane by HashLife, in this process.
///
/// Which engine wins depends on the pattern, and cannot be told from its first cells:
/// a Gosper gun's 100000 generations take HashLife a millisecond and tiles seconds, a
/// dense soup's first thousand take tiles a third of HashLife's time. So an `auto` run
/// starts with HashLife and weighs, step by step, the squares it makes against what
/// tiles would have spent on the same generations; once HashLife falls behind, tiles
/// take the pattern on from the last step it finished.
///
/// What tiles spend goes with the area they step, not the live cells: a soup and a
/// spray of gliders of one population cost HashLife about the same squares, and tiles
/// twenty-five times less for the soup. So the measure is the 32×32 squares holding
/// live cells (`HashLife.occupiedSquares`), each generation. A store grown past what
/// the live cells warrant must also step faster than tiles do on the same cells,
/// measured then (`TilesProbe`), as no fixed cost per square is right for every
/// pattern and machine.
package enum HashLifeRun {
    /// Where a run by HashLife ended.
    package enum Ending: Sendable {
        case finished(RunOutcome)
        /// Tiles go on from `setup`, at the generation HashLife reached.
        case handedOver(RunSetup, RunOutcome.HashLifeShare)
    }

    /// Squares HashLife may make for each occupied 32×32 square tiles would step for a
    /// generation. Tiles spend 30 ns on one in a dense soup, 60 in acorn's debris, and
    /// up to 190 where a spaceship flies off (natural-LWSS: every tile it enters is
    /// fresh memory), against about 100 ns for a HashLife square; so 1, midway
    /// on a log scale. A soup makes HashLife 1.5 to 4 squares each, a methuselah
    /// 0.1 to 1.3.
    static let squaresPerOccupiedGeneration = 1.0
    /// Squares HashLife may make before its steps have paid for any (half a millisecond):
    /// what a small gun's first steps need, and all a soup wastes.
    static let allowance = 1 << 12
    /// Or this many for each occupied square at the start, where that is more: a large
    /// pattern's first steps make squares in proportion to its area before any result
    /// repeats (demonoid-c512's 23740 occupied squares: its 1000 generations fell behind
    /// at once, and tiles took 4.2 s where HashLife takes 0.6), and a soup wastes less
    /// than a generation of tiles' time on them.
    static let allowancePerOccupied = 8.0
    /// Or, in a run of `longRun` generations or more, this share of what tiles would spend
    /// on the whole run at the pattern's starting area, where that is more. A large gun's
    /// first steps make up to a million squares before its results repeat, and repay them
    /// many times over in a long run (Golly's five largest guns, 100000 generations: tiles
    /// 1.4–3.5 s, HashLife 0.04–0.6); a soup, which never repays them, loses a few percent
    /// of its run. In shorter runs some guns do not repay them (2c5-spaceship-gun-p690's
    /// 10000 generations: tiles 0.15 s, HashLife 0.38), and none is given.
    static let investedShare = 1.0 / 64
    static let longRun: UInt64 = 1 << 16

    /// Squares HashLife may make before its steps have paid for any, in a run of
    /// `generations` of a pattern filling `occupied` squares: at most a quarter of what
    /// the store holds, so that running out of it is not what ends HashLife's turn.
    static func investment(occupied: Double, generations: UInt64, nodeLimit: Int) -> Int {
        let least = max(Double(allowance), occupied * allowancePerOccupied)
        let share = generations >= longRun ? occupied * Double(generations) * squaresPerOccupiedGeneration * investedShare : 0
        return Int(min(max(least, share), Double(nodeLimit / 4)))
    }

    /// Squares HashLife may hold, whatever it has earned: this many (32 MiB), and this
    /// many more for each occupied square. Memory follows the live cells: a growing
    /// pattern that never repeats (triple-Snark-wick-extruder, 20180 cells) had HashLife
    /// hold 19 million squares, 731 MiB, by 100000 generations, each costing about a
    /// microsecond once the store outgrew the caches, and finish behind tiles (20 s
    /// against 7 s and 18 MiB). A metapixel holds 3 million for its 10^8 cells.
    static let squaresHeldAlways = 1 << 20
    static let squaresHeldPerOccupied = 128.0

    /// Whether HashLife holding `squares` for a pattern filling `occupied` squares holds
    /// more than the live cells warrant.
    static func holdsTooMany(squares: Int, occupied: Double) -> Bool {
        Double(squares) > Double(squaresHeldAlways) + squaresHeldPerOccupied * occupied
    }

    /// How many times what tiles spend HashLife may spend a generation, holding more
    /// than the live cells warrant, before it hands over (tiles' cost measured on the
    /// same cells, `TilesProbe`). A gun pays for its squares after the store has outgrown
    /// them: 7-in-a-row-Cordership-V-gun's steps cost up to 1.6 times tiles' while its
    /// store passed a million squares, and 0.6 times from there on; a growing pattern
    /// that never repeats (triple-Snark-wick-extruder, single-channel-spiral-growth)
    /// costs 2.2 to 3.2 times them, its store past the caches for good.
    static let handOverMargin = 2.0

    /// Whether tiles, which spend `tiles` seconds a generation on the cells, should take
    /// them on from HashLife, which holds `squares` for a pattern filling `occupied`
    /// squares and spent `seconds` a generation (`StepCosts`): where it holds more than
    /// the live cells warrant and steps slower than tiles, by `handOverMargin`. A store
    /// that outgrew the caches costs about a microsecond a square (a wick extruder's 19
    /// million squares: 20 s for 100000 generations, tiles 7 s), but a large store that
    /// still repeats is the fastest way on (loafer-gun-p8388608-linear's 3.9 million
    /// squares: 2^20 generations in 4 s, against bgolly's 3.3; tiles did not finish in
    /// 120 s).
    static func shouldHandOver(squares: Int, occupied: Double, seconds: Double, tiles: Double) -> Bool {
        holdsTooMany(squares: squares, occupied: occupied) && seconds > handOverMargin * tiles
    }

    /// What tiles spend a generation on the cells HashLife holds, measured again where
    /// the pattern has changed: its area halved or doubled, or the generations done
    /// doubled, since the last measure.
    struct TilesPace {
        /// The last measure, and the pattern's area and generations done when it was taken.
        private var last: (seconds: Double, occupied: Double, generation: UInt64)?

        /// Seconds a generation, as last measured (0 before any measure).
        var seconds: Double { last?.seconds ?? 0 }

        func isStale(occupied now: Double, generation done: UInt64) -> Bool {
            guard let last else { return true }
            return now > 2 * last.occupied || now < last.occupied / 2 || done >= 2 * last.generation
        }

        mutating func measured(_ seconds: Double, occupied: Double, generation: UInt64) {
            last = (seconds, occupied, generation)
        }
    }

    /// What HashLife's steps have cost, for the cost a generation over the latest quarter
    /// of the generations done (at least the last step): a window that grows with the
    /// run, so that one step alone does not decide (the step that rebuilds the store's
    /// table as it passes 2^20 squares costs five times its neighbours).
    struct StepCosts {
        /// The generations done and the seconds spent when each step ended, the first
        /// where the window starts: the last mark at or before three quarters of the
        /// generations done, or the one before the last step.
        private var marks: [(generation: UInt64, seconds: Double)] = [(0, 0)]

        /// Notes that `generation` generations were done in `seconds` in all.
        mutating func took(generation: UInt64, seconds: Double) {
            marks.append((generation, seconds))
            // The window only moves on: the marks before its start go.
            let from = generation - generation / 4
            marks.removeFirst(min(marks.lastIndex { $0.generation <= from } ?? 0, marks.count - 2))
        }

        /// Seconds a generation over the window.
        var perGeneration: Double {
            guard let first = marks.first, let last = marks.last, marks.count > 1 else { return 0 }
            return (last.seconds - first.seconds) / Double(last.generation - first.generation)
        }
    }

    /// How much more area a step is allowed than its pattern fills when it starts: a
    /// methuselah's area doubles within some of its steps.
    static let growthRoom = 2.0

    /// Bytes of the memory budget a square stands for: its 24 and its bucket's 4 to 8,
    /// and room for what a collection takes beside the store (a new index for every
    /// square, a copy of each kept). At 32 the default budget let loafer-gun-p8388608-linear
    /// reach 307 MiB at 2^24 generations, against bgolly's 261 at its default.
    static let bytesPerSquare = 40

    /// How a user asked HashLife to run.
    package struct Settings: Sendable {
        /// The most squares it may hold (`nodeLimit(memory:)`).
        package var nodeLimit: Int
        /// Steps of 2^power generations each (`--step`, as bgolly's `-i`), the rest of
        /// the run by its binary digits, smallest first; nil: `powers(of:)`.
        package var stepPower: Int?
        /// Writes the output every so many generations instead of once at the end.
        var files: NumberedFiles?
        /// Where HashLife takes a run back from tiles (`takeBack`): what a generation
        /// cost them, and how far behind that it may fall before it hands back.
        var tiles: (secondsPerGeneration: Double, grace: Double)?

        package init(memory: Int? = nil, step: UInt64? = nil, writeEvery: UInt64? = nil) {
            nodeLimit = HashLifeRun.nodeLimit(memory: memory)
            stepPower = step.map { 63 - $0.leadingZeroBitCount }
            files = writeEvery.map(NumberedFiles.init)
        }

        /// Generations a stretch of the run may take: the steps of a chosen size are
        /// listed 65536 at a time, not all at once (`--step 1` for 10^12 generations).
        var stretch: UInt64 {
            guard let stepPower else { return .max }
            return stepPower >= 47 ? .max : 1 << UInt64(16 + stepPower)
        }

        /// The steps of a stretch of `generations` (at most `stretch`), as powers of two.
        func powers(of generations: UInt64, repeatsInSpace: Bool = false) -> [Int] {
            guard let stepPower else { return HashLifeRun.powers(of: generations, repeatsInSpace: repeatsInSpace) }
            let whole = Array(repeating: stepPower, count: Int(generations >> UInt64(stepPower)))
            let rest = generations & ((1 << UInt64(stepPower)) - 1)
            return whole + (0..<stepPower).filter { rest >> UInt64($0) & 1 == 1 }
        }
    }

    /// The squares HashLife may keep: `memory` MiB where given (`--memory`, as bgolly's
    /// `-M`), else `defaultMemory`.
    package static func nodeLimit(memory: Int? = nil) -> Int {
        let (bytes, overflow) = (memory ?? defaultMemory).multipliedReportingOverflow(by: 1 << 20)
        return min(max((overflow ? .max : bytes) / bytesPerSquare, 1 << 12), Int(UInt32.max - 1))
    }

    /// The store's MiB where `--memory` is not given: bgolly's default (`-M 256`). A store
    /// half full collects between steps, so the process stays under it: Golly's HashLife
    /// folder at 2^20 peaks at 154 MiB (bgolly 260), at about the speed of a store with
    /// room for everything (`--memory 6000`: jagged2 5.3 s and 434 MiB against 3.8 s and
    /// 154; unlimited-novelty 3.0 s against 3.8).
    static let defaultMemory = 256

    /// The squares the hand-over's budget weighs an investment against: this machine's
    /// memory, not the store's size (a store that fills collects and goes on).
    static var roomySquares: Int {
        min(MemoryBudget.physicalBytes / 4 / bytesPerSquare, Int(UInt32.max - 1))
    }

    /// Runs `generations` of `setup` (a pattern on the unbounded plane), writes `output`
    /// if asked, and says what it did; `budgeted` (auto): hands the rest of the run to
    /// tiles once HashLife falls behind them. A stopping signal ends it, with nothing written.
    package static func run(_ setup: RunSetup, generations: UInt64, output: BoardOutput?, budgeted: Bool,
                            settings: Settings = Settings()) async throws -> Ending {
        try await Interrupted.unlessSignalled(output: output?.path) {
            try steps(setup, generations: generations, output: output, budgeted: budgeted, settings: settings) { Task.isCancelled }
        }
    }

    /// After tiles took the run from a budgeted HashLife (`share`, which ran the first
    /// of `generations`, `setup` where it left the cells), tiles in this process and
    /// HashLife take turns: tiles step as many generations as they have stepped so far
    /// (at least `leastStretch`), then HashLife tries again from their cells, with the
    /// budget of a fresh run of the rest, handing back where it falls behind the tiles'
    /// pace (`tileGrace`). A soup is chaotic for tens of thousands of generations, and
    /// then ash and gliders that HashLife steps in microseconds: a 1000² soup's 10^6
    /// generations take 0.3 s so, and 7.4 s on tiles alone after HashLife's first
    /// thousand (bgolly's HashLife: 6.2 s). A pattern that stays chaotic loses a tree
    /// built and a failed turn at each doubling of the tiles' part. Turns are taken
    /// while `longRun` generations are left past the next stretch, the stretch in this
    /// process however dense the pattern (workers would step a dense one's stretch up to
    /// 1.8 times as fast, a bounded loss beside HashLife's gain); the rest is the
    /// caller's, on tiles.
    package static func takeBack(_ setup: RunSetup, generations: UInt64, output: BoardOutput?, after share: RunOutcome.HashLifeShare,
                                 settings: Settings, grace: Double = tileGrace) async throws -> Ending {
        var (setup, share) = (setup, share)
        let first = setup.generation - share.generations
        while true {
            // Doubling what tiles have stepped, not the run: HashLife may fall behind
            // after tens of millions of generations, which tiles would take hours over.
            let done = setup.generation - first, stretch = max(share.tileGenerations, leastStretch)
            guard generations - done >= stretch + longRun else { break }
            let (started, current) = (ContinuousClock.now, setup)
            let parts = try await Interrupted.unlessSignalled(output: output?.path) {
                let local = try LocalPlane(current)
                try await local.advance(stretch)
                return await local.liveParts()
            }
            let tiles = (ContinuousClock.now - started).seconds
            var turn = settings
            turn.tiles = (tiles / Double(stretch), tiles * grace)
            let next = setup.continued(parts: parts, generation: setup.generation + stretch)
            let ending = try await run(next, generations: generations - done - stretch, output: output, budgeted: true, settings: turn)
            switch ending {
            case .finished(let outcome):
                guard let turn = outcome.hashLife else { return ending }
                let whole = share.joined(tiles: stretch, seconds: tiles, then: turn)
                return .finished(RunOutcome(seconds: 0, population: outcome.population, workers: [], generations: 0).after(whole))
            case .handedOver(let rest, let turn):
                (setup, share) = (rest, share.joined(tiles: stretch, seconds: tiles, then: turn))
            }
        }
        return .handedOver(setup, share)
    }

    /// Whether a turn of HashLife that took `seconds` over `generations` fell behind
    /// `tiles`' pace by more than their grace.
    package static func isBehind(_ tiles: (secondsPerGeneration: Double, grace: Double), seconds: Double, generations: UInt64) -> Bool {
        seconds > tiles.secondsPerGeneration * Double(generations) + tiles.grace
    }

    /// The fewest generations tiles step before HashLife tries again.
    static let leastStretch: UInt64 = 4096
    /// How far behind the tiles' pace a turn of HashLife may fall, as a share of the time
    /// tiles took over their last stretch: what a failed turn costs at most, besides
    /// building its tree. The squares' budget alone would let a growing pattern's turn
    /// run on in a fresh store slower than tiles (single-channel-spiral-growth).
    static let tileGrace = 1.0 / 8

    /// The same on this thread, for a process that has not started the task pool (a
    /// methuselah's whole run takes less than starting it does): the stopping signals
    /// are noted, and one ends the run with `Interrupted`.
    package static func runHere(_ setup: RunSetup, generations: UInt64, output: BoardOutput?, budgeted: Bool,
                                settings: Settings = Settings()) throws -> Ending {
        try Signals.noting {
            let ending: Ending
            do {
                ending = try steps(setup, generations: generations, output: output, budgeted: budgeted, settings: settings) {
                    Signals.noted != nil
                }
            } catch is CancellationError {
                throw Interrupted(signal: Signals.noted ?? SIGINT, output: output?.path)
            }
            // One that came after the last step: the output, if any, is written.
            if let signal = Signals.noted {
                guard case .finished = ending else { throw Interrupted(signal: signal, output: output?.path) }
                throw Interrupted(signal: signal, output: output?.path, written: output != nil)
            }
            return ending
        }
    }

    /// Writes `life`'s cells: a macrocell straight from the squares (a metapixel's 10^8
    /// cells are never cells), else its squares of 256² as parts, which hold little empty
    /// space to zero and read, and which the writer joins row by row, a row of squares
    /// at a time: a breeder's 100000 generations held 86 MiB of cells as one grid, where
    /// bgolly, writing from its tree, holds 12.
    static func write(_ life: inout HashLife, rule: Rule, to output: BoardOutput) throws {
        if output.isMacrocell, let tree = life.quadTree() {
            return try output.write(tree: tree, rule: rule, generation: life.generation)
        }
        let squares = life.liveSquares(level: 8)
        var next = squares.startIndex
        try output.write(box: life.bounds, rule: rule, generation: life.generation) {
            guard next < squares.endIndex else { return nil }
            let row = squares[next...].prefix { $0.top == squares[next].top }
            next = row.endIndex
            return life.placedCells(inRow: row)
        }
    }

    private static func steps(_ setup: RunSetup, generations: UInt64, output: BoardOutput?, budgeted: Bool, settings: Settings,
                              isStopped: @escaping () -> Bool) throws -> Ending {
        let nodeLimit = settings.nodeLimit
        _ = try setup.end(after: generations)
        // A macrocell's own tree where the run starts from one: its squares as they are.
        var life = try setup.startingTree.map { try HashLife(tree: $0, rule: setup.rule, generation: setup.generation, nodeLimit: nodeLimit) }
            ?? HashLife(parts: setup.startingParts, rule: setup.rule, generation: setup.generation, nodeLimit: nodeLimit)
        life.isStopped = isStopped
        let clock = ContinuousClock(), start = clock.now
        let (madeBefore, cpuAtStart) = (life.squaresMade, CPUClock.process)
        var costs = StepCosts()
        // Tiles' pace, and the CPU time its measures took, which is not HashLife's.
        var tilesPace = TilesPace(), measuring = Duration.zero
        // Occupied squares times generations: the area tiles would have stepped.
        var stepped = 0.0, done: UInt64 = 0
        var occupied = budgeted ? Double(life.occupiedSquares) : 0
        let invested = investment(occupied: occupied, generations: generations, nodeLimit: max(life.nodeLimit, roomySquares))
        // Tiles take the pattern on from where HashLife stands.
        func handOver() throws -> Ending {
            let share = RunOutcome.HashLifeShare(generations: done, seconds: (clock.now - start).seconds,
                                                 squares: life.nodeCount, handedOver: true, collections: life.collections)
            // Behind from the first step: tiles start from the run's own start,
            // with no need to read the cells back out of HashLife.
            guard done > 0 else { return .handedOver(setup, share) }
            let rest = setup.continued(parts: life.placedCells(), generation: life.generation)
            return .handedOver(rest, share)
        }
        func write(_ output: BoardOutput) throws { try Self.write(&life, rule: setup.rule, to: output) }
        // The run goes in stretches: to each file's generation where one is written every
        // so many, and at most `settings.stretch`.
        repeat {
            let stretch = min(settings.files?.stretch(from: done, of: generations) ?? generations - done, settings.stretch)
            // The steps to take: larger where they grow cheaper, and two of half the size
            // where the store cannot hold one even after collecting.
            let repeatsInSpace = settings.stepPower == nil && life.occupiedSquares >= life.nodeCount
            var plan = StepPlan(settings.powers(of: stretch, repeatsInSpace: repeatsInSpace), mayRaise: settings.stepPower == nil)
            while let power = plan.next() {
                if isStopped() { throw CancellationError() }
                let span = Double(UInt64(1) << UInt64(power))
                let earned = (stepped + occupied * span * growthRoom) * squaresPerOccupiedGeneration
                let budget = budgeted ? madeBefore + invested + Int(min(earned, 1e15)) : .max
                let madeAtStart = life.squaresMade
                do {
                    try life.step(power: power, madeAtMost: budget)
                } catch is HashLife.OverBudget {
                    return try handOver()
                } catch is HashLife.OutOfNodes {
                    if power > 0 {
                        plan.split(power)
                        continue
                    }
                    if budgeted { return try handOver() }
                    guard life.nodeLimit == nodeLimit else {
                        throw TesseraError("HashLife needs more than the \(life.nodeLimit) squares this process's limit on address space leaves room for",
                                           fix: "raise the limit (ulimit -v), or run it with --algorithm tiles")
                    }
                    throw TesseraError("HashLife needs more than its \(nodeLimit * bytesPerSquare >> 20) MiB (\(nodeLimit) squares) for one generation of this pattern",
                                       fix: "give a larger --memory, or run it with --algorithm tiles")
                }
                done += UInt64(1) << UInt64(power)
                plan.took(power, made: life.squaresMade - madeAtStart)
                // The area is counted for the next step's budget: none follows the last.
                if budgeted, done < generations {
                    // As if the area grew evenly over the step.
                    let after = Double(life.occupiedSquares)
                    stepped += (occupied + after) / 2 * span
                    occupied = after
                    // What the steps cost the process's threads (this one and the helpers
                    // that share its squares), not the wall time a busy machine stretches:
                    // tiles' cost per square is a constant of an idle core. By the clock, a
                    // gun that HashLife runs in 0.9 s went to tiles for 7–9 s while two other
                    // processes kept both cores busy. By this thread's time alone, the
                    // helpers' share went unseen, and a run on one core handed over where
                    // the same run on two kept on. (The steps never await.)
                    costs.took(generation: done, seconds: (CPUClock.process - cpuAtStart - measuring).seconds)
                    if holdsTooMany(squares: life.nodeCount, occupied: after) {
                        if tilesPace.isStale(occupied: after, generation: done) {
                            let before = CPUClock.process
                            // Cells tiles cannot hold stay with HashLife.
                            let seconds = (try? TilesProbe.secondsPerGeneration(of: life.placedCells(), rule: setup.rule,
                                                                                generation: life.generation)) ?? .infinity
                            tilesPace.measured(seconds, occupied: after, generation: done)
                            measuring += CPUClock.process - before
                        }
                        if shouldHandOver(squares: life.nodeCount, occupied: after, seconds: costs.perGeneration,
                                          tiles: tilesPace.seconds) {
                            return try handOver()
                        }
                    }
                    if let tiles = settings.tiles, isBehind(tiles, seconds: (clock.now - start).seconds, generations: done) {
                        return try handOver()
                    }
                }
            }
            if let files = settings.files, let output, files.isDue(after: done, of: generations) {
                try write(output.numbered(life.generation))
            }
        } while done < generations
        let seconds = (clock.now - start).seconds
        if let output, settings.files == nil { try write(output) }
        let outcome = RunOutcome(seconds: 0, population: Int(clamping: life.population), workers: [], generations: 0)
        return .finished(outcome.after(RunOutcome.HashLifeShare(generations: generations, seconds: seconds,
                                                                squares: life.nodeCount, handedOver: false,
                                                                collections: life.collections)))
    }
}
