import Foundation
import TesseraCluster
import TesseraCore
import TesseraTiles

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

    package init(mode: Mode, workerCounts: [Int], halos: [Int]?, size: Int, rule: Rule, generations: UInt64, repeats: Int,
                 soup: Soup, launcher: WorkerLauncher, listen: String) {
        (self.mode, self.workerCounts, self.halos, self.size, self.rule) = (mode, workerCounts, halos, size, rule)
        (self.generations, self.repeats, self.soup, self.launcher, self.listen) = (generations, repeats, soup, launcher, listen)
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
                let depth = series ?? tiling.defaultHalo
                try tiling.validate(halo: depth)
                // Remote workers check their own memory.
                try TileCluster.checkMemory(launcher.hosts.isEmpty ? tiling.tiles : [], of: tiling, halo: depth)
                let setup = RunSetup(name: "soup", shape: shape, rule: rule, tiling: tiling, halo: depth, generation: 0,
                                     pattern: nil, soup: soup)
                points.append(Point(workers: count, series: series, setup: setup))
            }
        }
        return points
    }

    /// Runs every point `repeats` times, telling `progress` how many runs are done of
    /// how many, and relates the points to each other.
    package func run(progress: (Int, Int) -> Void) async throws -> [ScalingPoint] {
        let planned = try points()
        let total = planned.count * repeats
        var results: [ScalingPoint] = []
        for point in planned {
            var outcomes: [RunOutcome] = []
            for _ in 0..<repeats {
                progress(results.count * repeats + outcomes.count, total)
                let session = RunSession(setup: point.setup, generations: generations,
                                         workers: .launched(count: point.workers, launcher: launcher, listen: listen))
                outcomes.append(try await session.run())
            }
            results.append(ScalingPoint(mode: mode.rawValue, workers: point.workers, series: point.series,
                                        plan: point.setup.plan(generations: generations), outcomes: outcomes))
        }
        progress(total, total)
        ScalingPoint.relate(&results)
        return results
    }
}
