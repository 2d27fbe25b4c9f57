import FoundationEssentials
import Glibc
import Synchronization
import TesseraCluster
import TesseraCore
import TesseraPatterns

/// A local run's first generations, stepped in this process before any worker exists:
/// as a sparse map of tiles (`LocalPlane`) where the run is one (`RunSetup.runsSparse`),
/// else a bounded board on one dense tile. The workers (and the coordinator's sockets) are started only once a
/// generation keeps this process busy for longer than `busy`, and are handed the live
/// cells once they are up (as shards, where the run is on them). Starting
/// them costs tens of milliseconds (each is an exec, libzmq's shared libraries, flag
/// parsing, a connection and a handshake), and every round on them a loopback round
/// trip and halo strips: more than a sparse pattern's whole run takes here, and more
/// than Golly takes for it.
package struct HeadStart: Sendable {
    /// What steps here: a bounded board's one dense tile, or a sparse map's tiles.
    let local: any LocalUniverse
    /// The run on one tile, as it started.
    private let board: RunSetup
    /// The generation the tiles got to, and on a bounded board where their live cells
    /// are (its coordinates) once they stop; the seconds spent building and stepping them.
    private(set) var generation: UInt64
    private var live: TileRect?
    private(set) var seconds: Double
    /// Generations in the next round.
    private var pace: UInt64
    /// Whether the board kept a core busy but was too sparse for the workers (`leastFill`).
    var keptSparse = false

    /// Generations stepped here.
    var generations: UInt64 { generation - board.generation }

    /// A generation's compute time on one core past which the workers are started. A
    /// round on two local workers costs about 2.5 ms more than its compute (measured:
    /// 1–2 ms of halo latency and the coordinator's round trip), so halving a round of
    /// 128 generations pays once each takes about 40 µs: an 8192² soup settling does
    /// (about 140 µs), a 2048² torus soup (about 60 µs); acorn, rabbits, a Gosper gun, a
    /// spaceship fleet or ash (2–35 µs) are faster here to the end.
    static let busy = Duration.microseconds(40)
    /// What is left of the run, at the pace of its last round, must keep this core busy
    /// for longer than this for the workers to start. Two local workers cost about 17 ms
    /// to start on two cores, beside this process's stepping, and then take the cells
    /// over, to go 1.2–1.8 times as fast: a rest shorter than about 50 ms is over here
    /// sooner. Golly's 7-in-a-row-Cordership-V-gun takes about 38 µs a generation: its
    /// 1000 generations started the workers on some runs and not on others, and were
    /// over before they were up (45 ms in all, against 43 for QuickLife).
    static let worthStarting = Duration.milliseconds(100)
    /// The least share of the live cells' bounding box holding tiles (`LocalUniverse.fill`)
    /// for the workers to start: a sparser pattern steps as fast here on the sparse map's
    /// threads, in the memory of its tiles, with no bands to trade. Golly's
    /// slow-salvo-MWSS-oscillator, 2% full, is one; soups are full.
    static let leastFill = 0.75

    /// Builds the cells of `alone`, a run on one tile (`RunSetup.inOneTile`), here.
    init(_ alone: RunSetup) async throws {
        let started = ContinuousClock.now
        board = alone
        local = try await InProcessRun.universe(of: alone)
        generation = board.generation
        pace = 16
        seconds = (ContinuousClock.now - started).seconds
    }

    /// Steps on toward `total` generations (counted from the run's first) in rounds,
    /// until `stop`, asked with the generation reached before each round, says to stop.
    /// Rounds start at 16 generations (a busy board is seen busy within a few
    /// milliseconds) and double up to `longest`, whatever the halo (one tile trades with
    /// no one): long rounds spread a round's own cost thin, short ones answer `stop`
    /// soon. Tells `progress`
    /// after each round.
    mutating func step(toward total: UInt64, longest: UInt64, progress: Progress?,
                       until stop: (UInt64) async throws -> Bool) async throws {
        let clock = ContinuousClock(), started = clock.now, before = seconds
        defer { seconds = before + (clock.now - started).seconds }
        while generations < total {
            progress?.note(generations: generations, seconds: before + (clock.now - started).seconds)
            if try await stop(generation) { break }
            let count = min(pace, total - generations)
            try await local.advance(count)
            generation += count
            pace = min(pace * 2, longest)
        }
        if !board.isUnbounded { live = try await local.liveBounds() }
    }

    func population() async throws -> Int { try await local.countPopulation() }

    /// Gives the coordinator's workers the cells of a bounded board as they stand here,
    /// on `setup`'s tiles, to run to the end of the run's `generations`.
    func handOver(to coordinator: Coordinator, as setup: RunSetup, generations: UInt64) async throws {
        precondition(!board.isUnbounded, "the unbounded plane is handed over as shards (liveParts)")
        let next: RunSetup
        if let live, setup.rule.steppedAsStates {
            let states = try await local.collectStates().cropped(x: live.x, y: live.y, width: live.width, height: live.height)
            next = setup.handedOver(cells: states.occupied, states: states, at: live, generation: generation)
        } else if let live {
            next = setup.handedOver(cells: try await local.cells(in: live), at: live, generation: generation)
        } else {
            next = setup.handedOver(cells: BitGrid(width: 0, height: 0), at: TileRect(x: 0, y: 0, width: 0, height: 0),
                                    generation: generation)
        }
        try await coordinator.replan(next.plan(generations: generations))
    }

    /// Says, round by round, when a board keeps a core busy enough for the workers: two
    /// rounds in a row that took longer than `busy` a generation, with enough of the run
    /// left at that pace (`worthStarting`). It reads this process's CPU time, not the
    /// clock on the wall, so that a machine busy with other work does not make a quiet
    /// board look busy (only the head start computes here while it runs); what is left
    /// would take here that CPU time shared among the cores the last round kept busy (a
    /// sparse map steps a generation's tiles on every core once hundreds are due).
    struct Busy {
        private var last = (cpu: CPUClock.process, wall: ContinuousClock.now, generation: UInt64?.none)
        private var busyRounds = 0
        private var pace = Duration.zero
        /// The cores the last round kept busy, on average: its CPU time over its wall time.
        private var cores = 1.0

        /// `left`: the generations the run has to go from `generation`.
        mutating func isBusy(at generation: UInt64, left: UInt64) -> Bool {
            let (now, wall) = (CPUClock.process, ContinuousClock.now)
            if let before = last.generation, generation > before {
                let cpu = now - last.cpu
                pace = cpu / Int(generation - before)
                busyRounds = pace > HeadStart.busy ? busyRounds + 1 : 0
                cores = max(1, cpu / max(wall - last.wall, .nanoseconds(1)))
            }
            last = (now, wall, generation)
            return busyRounds >= 2 && pace * Double(left) / cores > HeadStart.worthStarting
        }

        /// Whether `local`, busy, fills enough of its box for the workers (`leastFill`).
        /// Noted: a busy board kept here is told apart from a quiet one.
        mutating func fillsEnough(_ local: any LocalUniverse) async -> Bool {
            let full = await local.fill() >= HeadStart.leastFill
            keptSparse = !full
            return full
        }

        /// Whether the board was last seen busy but too sparse for the workers.
        private(set) var keptSparse = false
    }

    /// The live cells as they stand here, in Golly's coordinates: what shards take over.
    func liveParts() async throws -> [PlacedCells] {
        guard let plane = local as? LocalPlane else { throw TesseraError("a head start on a dense board hands over no sparse parts") }
        return await plane.liveParts()
    }

    /// Writes the cells as they stand here.
    func write(_ output: BoardOutput) async throws { try await local.write(output) }

    func record(workers: Int, started: Bool, handedOver: Bool) -> RunOutcome.HeadStart {
        RunOutcome.HeadStart(generations: generations, seconds: seconds, workers: workers, started: started, handedOver: handedOver,
                             keptSparse: keptSparse)
    }

    /// How far a head start got, for the progress line, which reads it from another
    /// task: behind a lock, hence `Sendable`.
    package final class Progress: Sendable {
        private let state = Mutex((generations: UInt64(0), seconds: 0.0, running: true))

        func note(generations: UInt64, seconds: Double) {
            state.withLock { $0 = (generations, seconds, $0.running) }
        }

        func finish() { state.withLock { $0.running = false } }

        /// Generations stepped here and the seconds it took, and whether it still runs.
        var snapshot: (generations: UInt64, seconds: Double, running: Bool) { state.withLock { $0 } }
    }
}
