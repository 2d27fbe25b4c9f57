import TesseraCore
import TesseraTiles
import TesseraWire

/// One worker's shard of a sparse plane spread over several (`ShardMap`): the tiles it
/// owns, stepped stretch by stretch, each stretch after a trade of bands with every
/// other shard (`SparsePlane.bands`). Every shard sends every other one `Bands` message
/// a stretch, empty or not, so a stretch waits for exactly `shards - 1` of them.
///
/// The plane is this actor's alone; what it offers are values.
package actor ShardRunner {
    package nonisolated let me: Int
    package nonisolated let map: ShardMap
    /// The assignment's epoch, which every band it sends carries.
    package nonisolated let epoch: UInt64
    /// The generation reached and the seconds spent, for the worker's heartbeats.
    package nonisolated let progress = TileProgress()
    private let plane: SparsePlane
    /// Threads a generation's tiles are shared among, when enough are due: a worker
    /// started by hand on a machine of many cores steps its shard on all of them (local
    /// workers are pinned to a core each).
    private let threads: Int
    /// Bands in hand, by the stretch's first generation and the sending shard: at most
    /// this stretch's and the next one's (a quicker shard may be a stretch ahead).
    private var inbox: [UInt64: [Int: [PlacedCells]]] = [:]
    private var waiter: (generation: UInt64, done: Completion<Void>)?
    private var running = false
    /// Why the run must stop (a halt), once it must: kept for a wait not begun yet.
    private var failure: (any Error)?

    /// Shard `me` of `map`, holding the cells of `parts` (Golly's coordinates) that lie on its tiles.
    package init(me: Int, map: ShardMap, rule: Rule, board: BoardShape?, generation: UInt64, parts: [PlacedCells],
                 epoch: UInt64 = 0, threads: Int = CPUAffinity.usableCount) throws {
        (self.me, self.map, self.epoch, self.threads) = (me, map, epoch, max(1, threads))
        plane = try SparsePlane(parts: parts, rule: rule, board: board, generation: generation)
        plane.crop { map.owner(of: $0) == me }
        progress.record(generation: generation)
    }

    /// The shard `assignment` gives this worker.
    package init(_ assignment: ShardAssignment) throws {
        try self.init(me: assignment.shard, map: assignment.map, rule: assignment.rule, board: assignment.board,
                      generation: assignment.generation,
                      parts: assignment.parts.map(PlacedCells.init), epoch: assignment.epoch)
    }

    package var tileCount: Int { plane.tileCount }
    package var generation: UInt64 { plane.generation }
    /// The live cells, a part a tile: each at most 64x64, so any 4096 of them make a
    /// message of at most 2 MiB.
    package func liveTileParts() -> [PlacedCells] { plane.liveTileParts().map(\.cells) }
    /// The dots of `viewport` its tiles in view show (`SparsePlane.frame`).
    package func frame(_ viewport: Viewport) -> BitGrid { plane.frame(viewport) }
    package var figures: ShardFigures { ShardFigures(population: plane.population, tiles: plane.tileCount, bounds: plane.bounds) }

    /// Steps `generations` in stretches of at most `depth` (1...64), handing each
    /// stretch's bands for shard i to `send`, and waiting for every other shard's.
    /// Every shard must be asked for the same generations and depth.
    package func run(generations: UInt64, depth: Int, send: @Sendable (Int, Bands) -> Void) async throws {
        guard !running else { throw TesseraError("shard \(me) asked to run while it runs") }
        guard (1...64).contains(depth) else { throw TesseraError("a stretch of \(depth) generations: shards trade bands at most 64 deep") }
        running = true
        defer { running = false }
        var left = generations
        while left > 0 {
            try Task.checkCancellation()
            // Compute is the thread's CPU time over the stretches with no `await` (see
            // `TileActor.run`), and this process's over a generation shared among
            // threads; the wait is wall time.
            let clock = ContinuousClock(), started = CPUClock.thread
            let stretch = Int(min(UInt64(depth), left)), first = plane.generation
            let bands = plane.bands(depth: stretch, owner: map.owner(of:), me: me)
            for other in 0..<map.shards where other != me {
                send(other, Bands(generation: first, epoch: epoch, parts: (bands[other] ?? []).map(Overlay.init)))
            }
            if let failure { throw failure }
            let (banding, waited) = (CPUClock.thread - started, clock.now)
            if (inbox[first]?.count ?? 0) < map.shards - 1 {
                let done = Completion<Void>()
                waiter = (first, done)
                defer { waiter = nil }
                try await done.value()
            }
            let arrived = clock.now
            var (since, stepping) = (CPUClock.thread, Duration.zero)
            for parts in (inbox.removeValue(forKey: first) ?? [:]).values {
                for part in parts { plane.add(part) }
            }
            // A generation at a time, each told to the heartbeats: a stretch of a huge
            // shard can outlast the coordinator's patience for one that comes no further.
            for _ in 0..<stretch {
                // While the tiles step on other threads, reads (a frame, the live
                // cells) see the present generation, which they never write.
                if threads > 1, plane.dueCount >= SparsePlane.sharedFrom, let work = plane.work() {
                    stepping += CPUClock.thread - since
                    let shared = CPUClock.process
                    await work.run(among: threads)
                    plane.finish()
                    (stepping, since) = (stepping + (CPUClock.process - shared), CPUClock.thread)
                } else {
                    plane.advance(1)
                }
                progress.record(generation: plane.generation)
            }
            plane.crop { map.owner(of: $0) == me }
            left -= UInt64(stretch)
            stepping += CPUClock.thread - since
            progress.record(generation: plane.generation, compute: banding + stepping, wait: arrived - waited)
        }
    }

    /// Takes shard `sender`'s bands. Only bands for this stretch or the next are taken,
    /// once from each shard; anything else is refused with an error that says why.
    package func receive(_ bands: Bands, from sender: Int) throws {
        guard sender != me, (0..<map.shards).contains(sender) else {
            throw TesseraError("shard \(me) got bands from shard \(sender), which is not another shard of its plane")
        }
        let now = plane.generation
        guard bands.generation >= now, bands.generation - now <= 64 else {
            throw TesseraError("shard \(me) at generation \(now) got bands for generation \(bands.generation)")
        }
        guard inbox[bands.generation]?[sender] == nil else {
            throw TesseraError("shard \(me) already has shard \(sender)'s bands for generation \(bands.generation)")
        }
        inbox[bands.generation, default: [:]][sender] = bands.parts.map(PlacedCells.init)
        if let waiter, waiter.generation == bands.generation, inbox[bands.generation]!.count == map.shards - 1 {
            waiter.done.succeed()
        }
    }

    /// Ends the run at its wait for bands that will not come (it was halted), now or
    /// when it next waits.
    package func fail(_ error: any Error) {
        failure = error
        waiter?.done.fail(error)
    }
}
