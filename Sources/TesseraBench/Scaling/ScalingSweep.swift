import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraRun
import TesseraTiles
import TesseraWire

/// `tessera bench scaling`: one real cluster per point, over worker counts and halo
/// depths, on torus soups.
package struct ScalingSweep: Sendable {
    package enum Mode: String, Sendable, CaseIterable {
        /// One board for every point.
        case strong
        /// The board grows with the workers: N×(N·workers).
        case weak
    }

    package var mode: Mode
    package var workerCounts: [Int]
    /// Halo depths; nil: each tiling's default.
    package var halos: [Int]?
    package var size: Int
    package var rule: Rule
    package var generations: UInt64
    package var repeats: Int
    package var soup: Soup
    package var launcher: WorkerLauncher
    package var listen: String
    /// Whether each point of several workers is also run as that many independent
    /// one-worker runs side by side, each on one tile's board, on this machine: what it
    /// could give with no halo traffic at all.
    package var ceiling: Bool
    /// The cluster's keys, for sweeps across machines (and to measure what CURVE costs).
    package var credentials: Credentials?

    package init(mode: Mode, workerCounts: [Int], halos: [Int]?, size: Int, rule: Rule, generations: UInt64, repeats: Int,
                 soup: Soup, launcher: WorkerLauncher, listen: String, ceiling: Bool = false) {
        (self.mode, self.workerCounts, self.halos, self.size, self.rule) = (mode, workerCounts, halos, size, rule)
        (self.generations, self.repeats, self.soup, self.launcher, self.listen) = (generations, repeats, soup, launcher, listen)
        self.ceiling = ceiling
    }

    /// One point to measure.
    package struct Point: Sendable {
        package let workers: Int
        package let series: Int?
        package let setup: RunSetup
    }

    /// Every point, checked before the first run, so a bad one fails at once.
    package func points() throws -> [Point] {
        guard size >= 1, generations >= 1, repeats >= 1 else {
            throw TesseraError("--size, --generations and --repeat must be at least 1")
        }
        var points: [Point] = []
        for count in workerCounts.sorted() {
            let shape = BoardShape(width: size, height: mode == .strong ? size : size * count, topology: .torus)
            let (columns, rows) = RunPlan.defaultTiles(count: count, shape: shape)
            let tiling = try Tiling(shape: shape, columns: columns, rows: rows)
            try RunPlan.check(workers: count, tiling: tiling)
            for series in halos?.map(Optional.some) ?? [nil] {
                let depth = series ?? tiling.defaultHalo(reach: rule.reach)
                try tiling.validate(halo: depth, reach: rule.reach)
                // Remote workers check their own memory.
                try TileCluster.checkMemory(launcher.hosts.isEmpty ? tiling.tiles : [], of: tiling, halo: depth, rule: rule)
                let setup = try RunSetup(name: "soup", shape: shape, rule: rule, tiling: tiling, halo: depth, generation: 0,
                                         pattern: nil, soup: soup).onTiles()
                points.append(Point(workers: count, series: series, setup: setup))
            }
        }
        return points
    }

    /// Runs every point `repeats` times, telling `progress` how many runs are done of
    /// how many, and relates the points to each other.
    package func run(progress: (Int, Int) -> Void) async throws -> [ScalingPoint] {
        let planned = try points()
        let runsPerPoint = ceiling ? 2 * repeats : repeats
        let total = planned.count * runsPerPoint
        var results: [ScalingPoint] = []
        for point in planned {
            var outcomes: [RunOutcome] = []
            var ceilings: [Double] = []
            for _ in 0..<repeats {
                progress(results.count * runsPerPoint + outcomes.count + ceilings.count, total)
                var session = RunSession(setup: point.setup, generations: generations,
                                         workers: .launched(count: point.workers, launcher: launcher, listen: listen))
                session.credentials = credentials
                outcomes.append(try await session.run())
                if ceiling && point.workers > 1 {
                    progress(results.count * runsPerPoint + outcomes.count + ceilings.count, total)
                    ceilings.append(try await independentRate(point))
                }
            }
            var result = ScalingPoint(mode: mode.rawValue, workers: point.workers, series: point.series,
                                      plan: point.setup.plan(generations: generations), outcomes: outcomes)
            if !ceilings.isEmpty {
                let median = ceilings.median!
                result.ceilingCellUpdatesPerSecond = median
                result.shareOfCeiling = result.cellUpdatesPerSecondMedian / median
            }
            results.append(result)
        }
        progress(total, total)
        ScalingPoint.relate(&results)
        return results
    }

    /// Each tile of `point` as a board of its own (a torus of the tile's size, the same
    /// halo), all run at once on one worker each: their rates added up.
    private func independentRate(_ point: Point) async throws -> Double {
        let tiling = point.setup.tiling
        return try await withThrowingTaskGroup(of: Double.self) { group in
            for (index, tile) in tiling.tiles.enumerated() {
                let rect = tiling.rect(of: tile)
                let shape = BoardShape(width: rect.width, height: rect.height, topology: .torus)
                let setup = try RunSetup(name: "soup", shape: shape, rule: rule, tiling: try Tiling(shape: shape, columns: 1, rows: 1),
                                         halo: point.setup.halo, generation: 0, pattern: nil,
                                         soup: try Soup(density: soup.density, seed: soup.seed &+ UInt64(index))).onTiles()
                let session = RunSession(setup: setup, generations: generations, workers: .launched(count: 1, listen: listen))
                group.addTask {
                    let outcome = try await session.run()
                    return Double(shape.cellCount) * Double(generations) / max(outcome.seconds, 1e-9)
                }
            }
            return try await group.reduce(0, +)
        }
    }
}
