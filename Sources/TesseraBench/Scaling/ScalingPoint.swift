import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraRun

/// One point of a scaling sweep: a worker count (and halo depth) run `repeat` times,
/// as a row of `results.csv` and an object of `results.json`, units in the names.
package struct ScalingPoint: Codable, Sendable, Equatable, ResultRow {
    package typealias Columns = CodingKeys

    /// The halo depth asked for; nil where each tiling took its default. Not written:
    /// it groups points into series for speed-up and the plot.
    package var series: Int? = nil
    package var mode: String
    package var workers: Int
    package var halo: Int
    package var width: Int
    package var height: Int
    package var tiles: String
    package var generations: UInt64
    package var secondsMedian: Double
    package var cellUpdatesPerSecondMedian: Double
    package var cellUpdatesPerSecondMin: Double
    package var cellUpdatesPerSecondMax: Double
    package var speedup = 0.0
    package var efficiency = 0.0
    package var computeSeconds: Double
    package var haloWaitSeconds: Double
    package var haloWaitPercent: Double
    package var bytesPerGeneration: Double
    /// With `--ceiling`: as many independent one-worker runs side by side, each on one
    /// tile's board, added up; and this point's rate as a share of that.
    package var ceilingCellUpdatesPerSecond: Double? = nil
    package var shareOfCeiling: Double? = nil

    /// The columns, in order; the CSV and the JSON share them.
    package enum CodingKeys: String, CodingKey, CaseIterable {
        case mode, workers, halo
        case width = "width_cells", height = "height_cells"
        case tiles, generations
        case secondsMedian = "seconds_median"
        case cellUpdatesPerSecondMedian = "cell_updates_per_s_median"
        case cellUpdatesPerSecondMin = "cell_updates_per_s_min"
        case cellUpdatesPerSecondMax = "cell_updates_per_s_max"
        case speedup, efficiency
        case computeSeconds = "compute_s"
        case haloWaitSeconds = "halo_wait_s"
        case haloWaitPercent = "halo_wait_percent"
        case bytesPerGeneration = "bytes_per_generation"
        case ceilingCellUpdatesPerSecond = "ceiling_cell_updates_per_s"
        case shareOfCeiling = "share_of_ceiling"
    }

    package var csvFields: [String] {
        CodingKeys.allCases.map { key in
            switch key {
            case .mode: mode
            case .workers: "\(workers)"
            case .halo: "\(halo)"
            case .width: "\(width)"
            case .height: "\(height)"
            case .tiles: tiles
            case .generations: "\(generations)"
            case .secondsMedian: "\(secondsMedian)"
            case .cellUpdatesPerSecondMedian: "\(cellUpdatesPerSecondMedian)"
            case .cellUpdatesPerSecondMin: "\(cellUpdatesPerSecondMin)"
            case .cellUpdatesPerSecondMax: "\(cellUpdatesPerSecondMax)"
            case .speedup: "\(speedup)"
            case .efficiency: "\(efficiency)"
            case .computeSeconds: "\(computeSeconds)"
            case .haloWaitSeconds: "\(haloWaitSeconds)"
            case .haloWaitPercent: "\(haloWaitPercent)"
            case .bytesPerGeneration: "\(bytesPerGeneration)"
            case .ceilingCellUpdatesPerSecond: ceilingCellUpdatesPerSecond.map { "\($0)" } ?? ""
            case .shareOfCeiling: shareOfCeiling.map { "\($0)" } ?? ""
            }
        }
    }

    /// The point for `outcomes`, repeated runs of `plan` on `workers` workers: the
    /// median rate with its spread, and the median run's time split and traffic.
    package init(mode: String, workers: Int, series: Int?, plan: RunPlan, outcomes: [RunOutcome]) {
        let cells = Double(plan.tiling.shape.cellCount) * Double(plan.generations)
        let rates = outcomes.map { cells / max($0.seconds, 1e-9) }.sorted()
        let median = outcomes.sorted { $0.seconds < $1.seconds }[(outcomes.count - 1) / 2]
        let compute = median.workers.reduce(0) { $0 + $1.report.computeSeconds }
        let wait = median.workers.reduce(0) { $0 + $1.report.waitSeconds }
        let bytes = median.workers.reduce(0.0) { $0 + Double($1.report.bytesSent) }
        self.init(series: series, mode: mode, workers: workers, halo: plan.halo, width: plan.tiling.shape.width,
                  height: plan.tiling.shape.height, tiles: "\(plan.tiling.columns)x\(plan.tiling.rows)",
                  generations: plan.generations, secondsMedian: median.seconds,
                  cellUpdatesPerSecondMedian: (rates[(rates.count - 1) / 2] + rates[rates.count / 2]) / 2,
                  cellUpdatesPerSecondMin: rates.first!, cellUpdatesPerSecondMax: rates.last!,
                  computeSeconds: compute, haloWaitSeconds: wait, haloWaitPercent: 100 * wait / max(compute + wait, 1e-9),
                  bytesPerGeneration: bytes / Double(plan.generations))
    }

    package init(series: Int? = nil, mode: String, workers: Int, halo: Int, width: Int, height: Int, tiles: String,
                 generations: UInt64, secondsMedian: Double, cellUpdatesPerSecondMedian: Double,
                 cellUpdatesPerSecondMin: Double, cellUpdatesPerSecondMax: Double, computeSeconds: Double,
                 haloWaitSeconds: Double, haloWaitPercent: Double, bytesPerGeneration: Double) {
        (self.series, self.mode, self.workers, self.halo, self.width, self.height) = (series, mode, workers, halo, width, height)
        (self.tiles, self.generations, self.secondsMedian) = (tiles, generations, secondsMedian)
        (self.cellUpdatesPerSecondMedian, self.cellUpdatesPerSecondMin, self.cellUpdatesPerSecondMax)
            = (cellUpdatesPerSecondMedian, cellUpdatesPerSecondMin, cellUpdatesPerSecondMax)
        (self.computeSeconds, self.haloWaitSeconds, self.haloWaitPercent, self.bytesPerGeneration)
            = (computeSeconds, haloWaitSeconds, haloWaitPercent, bytesPerGeneration)
    }

    /// Speed-up and efficiency against the fewest-worker point of the same series (one
    /// per halo depth asked for; one in all with default halos, whose depth varies with
    /// the tiling), which is the 1-worker point when the sweep has one.
    package static func relate(_ points: inout [ScalingPoint]) {
        for i in points.indices {
            guard let base = points.filter({ $0.series == points[i].series }).min(by: { $0.workers < $1.workers }) else { continue }
            let perWorker = base.cellUpdatesPerSecondMedian / Double(base.workers)
            points[i].speedup = points[i].cellUpdatesPerSecondMedian / perWorker
            points[i].efficiency = points[i].speedup / Double(points[i].workers)
        }
    }

    /// Writes results.csv, results.json and scaling.svg into `folder`, each atomically.
    package static func write(_ points: [ScalingPoint], into folder: String) throws {
        try ResultsFolder.write([("results.csv", csv(points)), ("results.json", try json(points)),
                                 ("scaling.svg", ScalingPlot.svg(points))], into: folder)
    }
}
