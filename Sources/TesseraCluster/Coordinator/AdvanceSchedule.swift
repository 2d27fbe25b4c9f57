import TesseraCore

/// How a long advance goes (`Coordinator.advance(_:balancing:)`): how many generations
/// each stretch runs, where it stops for a checkpoint, when the tiles are snapshotted in
/// memory, what load each tile put on its worker, and which tiles stay put a while after
/// moving. A value with pure transitions, tested without processes; the actor reads the
/// clock and carries out what it says.
package struct AdvanceSchedule: Sendable {
    package let halo: UInt64
    package let end: UInt64
    package let checkpoints: CheckpointSchedule.Interval?
    /// Generations of the next stretch, before the end and checkpoints cut it.
    package private(set) var stretch: UInt64
    /// Stretches begun so far.
    package private(set) var stretches = 0
    /// How long between snapshots: `defaultSnapshotInterval`, longer where one is slow.
    package private(set) var snapshotInterval = Self.defaultSnapshotInterval
    /// When each tile last moved, in stretches.
    private var lastMoved: [TileID: Int] = [:]
    /// Each tile's compute seconds at the last look (the workers report running totals).
    private var baseline: [TileID: Double]
    private var lastCheckpoint: ContinuousClock.Instant
    private var lastSnapshot: ContinuousClock.Instant

    /// How often a batch run that may survive lost workers snapshots its tiles in
    /// memory (or less often, if a snapshot takes more than 1/40 of it): the generations
    /// since are what a loss costs again.
    package static let defaultSnapshotInterval = Duration.seconds(2)
    /// A tile that moved stays this many stretches, so that noise in the loads does not
    /// send it back and forth.
    package static let stayAfterMove = 4
    /// What a stretch aims to take: long enough that a stop costs little beside it,
    /// short enough to follow a pattern that moves and to let a leaving worker go soon.
    package static let stretchSeconds = 0.25

    package init(halo: Int, from generation: UInt64, generations: UInt64, checkpoints: CheckpointSchedule.Interval?,
                 tileSeconds: [TileID: Double], now: ContinuousClock.Instant) {
        self.halo = UInt64(halo)
        end = generation + generations
        self.checkpoints = checkpoints
        stretch = UInt64(halo)
        baseline = tileSeconds
        (lastCheckpoint, lastSnapshot) = (now, now)
    }

    /// The generations to advance from `generation`: the stretch, cut at the run's end
    /// and at the next multiple of a checkpoint's interval in generations.
    package mutating func nextCount(at generation: UInt64) -> UInt64 {
        stretches += 1
        let count = min(stretch, end - generation)
        return checkpoints?.cut(count, at: generation) ?? count
    }

    /// What is due after a stretch that ended at `generation`, at `now`: a checkpoint,
    /// and a snapshot (where a lost worker may be survived, and the run goes on). A
    /// checkpoint brings a snapshot with it: memory rolls back faster than disk, and
    /// never to an older generation.
    package func due(at generation: UInt64, now: ContinuousClock.Instant, restartsLeft: Int) -> (checkpoint: Bool, snapshot: Bool) {
        let checkpoint = checkpoints?.isDue(at: generation, elapsed: now - lastCheckpoint) ?? false
        let snapshot = restartsLeft > 0 && generation < end && (checkpoint || now - lastSnapshot >= snapshotInterval)
        return (checkpoint, snapshot)
    }

    package mutating func checkpointed(at now: ContinuousClock.Instant) { lastCheckpoint = now }

    /// A snapshot from `started` to `ended`: one that is slow comes less often, so that
    /// snapshots take at most 2.5% of the time (one given up counts with its wait).
    package mutating func snapshotted(started: ContinuousClock.Instant, ended: ContinuousClock.Instant) {
        lastSnapshot = ended
        snapshotInterval = max(Self.defaultSnapshotInterval, (ended - started) * 40)
    }

    /// After a stretch of `count` generations that took `seconds`: the next aims at
    /// `stretchSeconds`, growing at most fourfold, in whole halo rounds.
    package mutating func stretched(count: UInt64, seconds: Double) {
        let took = max(seconds, 1e-4)
        stretch = max(halo, min(count * 4, UInt64(min(Double(count) * Self.stretchSeconds / took, 1e12))) / halo * halo)
    }

    /// The next stretch is `rounds` halo rounds, whatever they take (random moves, for tests).
    package mutating func stretch(rounds: UInt64) {
        stretch = halo * rounds
    }

    /// The compute seconds each tile took since the last look, from the workers' running
    /// totals `measured`.
    package mutating func loads(measured: [TileID: Double]) -> [TileID: Double] {
        defer { baseline = measured }
        return Dictionary(uniqueKeysWithValues: measured.map { ($0, max(0, $1 - (baseline[$0] ?? 0))) })
    }

    /// Tiles that moved within the last `stayAfterMove` stretches.
    package var staying: Set<TileID> {
        Set(lastMoved.filter { stretches - $0.value <= Self.stayAfterMove }.keys)
    }

    /// `tiles` moved: they start from no load on their new worker, and stay a while.
    package mutating func moved(_ tiles: some Sequence<TileID>) {
        for tile in tiles { (baseline[tile], lastMoved[tile]) = (0, stretches) }
    }

    /// Every tile was dealt afresh (rolled back, or the board cut again): loads and
    /// recent moves start over.
    package mutating func startOver() {
        (baseline, lastMoved) = ([:], [:])
    }
}
