import ArgumentParser
import Foundation
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles

/// `tessera bench scaling`: a sweep of real local clusters, written as CSV, JSON and an SVG plot.
struct ScalingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scaling",
        abstract: "Sweeps worker counts and halo depths on local clusters; writes CSV, JSON and an SVG plot.")

    enum Mode: String, ExpressibleByArgument, CaseIterable { case strong, weak }

    @Option(help: "strong: one board for every point; weak: the board grows with the workers.")
    var mode: Mode = .strong

    @Option(help: "Worker counts, comma-separated.")
    var workers: String = "1,2"

    @Option(help: "Board side N (strong: N×N; weak: N×(N·workers)).")
    var size: Int = 4096

    @Option(help: "Halo depths, comma-separated. Default: each tiling's default.")
    var halo: String?

    @Option(help: "Life-like rule.")
    var rule: String = "B3/S23"

    @Option(help: "Generations per run.")
    var generations: UInt64 = 200

    @Option(help: "Runs per point; the median is reported with the spread.")
    var `repeat`: Int = 1

    @Option(help: "Soup density.")
    var density: Double = 0.35

    @Option(help: "Folder for results.csv, results.json and scaling.svg.")
    var out: String = "results"

    @Option(help: "Run the workers on these hosts (a file, one host name per line) instead of here.")
    var hosts: String?

    @Option(help: "With --hosts: the command that runs a worker on {host}.")
    var launch: String = "ssh {host}"

    @Option(help: "With --hosts: the tessera binary on the hosts. Default: this binary's path.")
    var remoteTessera: String?

    @Option(help: "With --hosts: where the workers reach this coordinator, tcp://ADDRESS:PORT|*. Default: this machine's address on the route to the first host, any free port.")
    var listen: String?

    struct Point {
        /// The halo depth asked for; nil where each tiling took its default.
        var series: Int?
        var mode: String, workers: Int, halo: Int, width: Int, height: Int, tiles: String, generations: UInt64
        var secondsMedian: Double, cellUpdatesPerSecondMedian: Double
        var cellUpdatesPerSecondMin: Double, cellUpdatesPerSecondMax: Double
        var speedup = 0.0, efficiency = 0.0
        var computeSeconds: Double, haloWaitSeconds: Double, haloWaitPercent: Double, bytesPerGeneration: Double
    }

    static func list(_ text: String, _ name: String) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw TesseraError("bad --\(name) '\(text)'", fix: "give positive integers separated by commas, e.g. 1,2,4")
        }
        return values.map { $0! }
    }

    func run() async throws {
        let counts = try Self.list(workers, "workers").sorted()
        let halos = try halo.map { try Self.list($0, "halo") }
        let (parsedRule, _) = try BoardShape.parseRule(rule)
        guard size >= 1, generations >= 1, self.repeat >= 1 else {
            throw TesseraError("--size, --generations and --repeat must be at least 1")
        }
        let soup = try Soup(density: density, seed: 1)
        let launcher = try hosts.map {
            WorkerLauncher(hosts: try WorkerLauncher.hosts(file: $0), command: launch,
                           executable: remoteTessera ?? LocalWorkers.executable)
        } ?? .here
        let listen = try self.listen ?? launcher.hosts.first.map { host in
            guard let address = try? Endpoint.localAddress(toward: "tcp://\(host):9") else {
                throw TesseraError("cannot tell this machine's address toward host '\(host)'",
                                   fix: "give --listen tcp://ADDRESS:* with an address the hosts reach this machine at")
            }
            return "tcp://\(address):*"
        } ?? "tcp://127.0.0.1:*"
        _ = try Endpoint.split(listen)
        try checkOut()
        // Every point is validated before the first run, so a bad one fails at once.
        var plans: [(workers: Int, series: Int?, plan: RunPlan)] = []
        for count in counts {
            let shape = BoardShape(width: size, height: mode == .strong ? size : size * count, topology: .torus)
            let (columns, rows) = RunPlan.defaultTiles(count: count, shape: shape)
            let tiling = try Tiling(shape: shape, columns: columns, rows: rows)
            try RunPlan.check(workers: count, tiling: tiling)
            for series in halos?.map(Optional.some) ?? [nil] {
                let depth = series ?? tiling.defaultHalo
                try tiling.validate(halo: depth)
                // Remote workers check their own memory.
                try TileCluster.checkMemory(hosts == nil ? tiling.tiles : [], of: tiling, halo: depth)
                plans.append((count, series, RunPlan(tiling: tiling, rule: parsedRule, halo: depth, generation: 0,
                                             generations: generations, soup: soup, cells: nil)))
            }
        }
        var points: [Point] = []
        let total = plans.count * self.repeat
        for (count, series, plan) in plans {
            var outcomes: [RunOutcome] = []
            for _ in 0..<self.repeat {
                progress(done: points.count * self.repeat + outcomes.count, of: total)
                do {
                    outcomes.append(try await LocalCluster.run(plan, workers: count, launcher: launcher, listen: listen))
                } catch {
                    print("")  // end the progress bar's line before the error
                    throw error
                }
            }
            points.append(Self.point(mode: mode, workers: count, series: series, plan: plan, outcomes: outcomes))
        }
        progress(done: total, of: total)
        print("")
        Self.relate(&points)
        try write(points)
        printTable(points)
    }

    private func progress(done: Int, of total: Int) {
        let width = 30, filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardOutput.write(Data("\r[\(bar)] \(done)/\(total) runs".utf8))
    }

    static func point(mode: Mode, workers: Int, series: Int?, plan: RunPlan, outcomes: [RunOutcome]) -> Point {
        let cells = Double(plan.tiling.shape.cellCount) * Double(plan.generations)
        let rates = outcomes.map { cells / max($0.seconds, 1e-9) }.sorted()
        let middle = (rates[(rates.count - 1) / 2] + rates[rates.count / 2]) / 2
        let median = outcomes.sorted { $0.seconds < $1.seconds }[(outcomes.count - 1) / 2]
        let compute = median.workers.reduce(0) { $0 + $1.report.computeSeconds }
        let wait = median.workers.reduce(0) { $0 + $1.report.waitSeconds }
        let bytes = median.workers.reduce(0.0) { $0 + Double($1.report.bytesSent) }
        return Point(series: series, mode: mode.rawValue, workers: workers, halo: plan.halo, width: plan.tiling.shape.width,
                     height: plan.tiling.shape.height, tiles: "\(plan.tiling.columns)x\(plan.tiling.rows)",
                     generations: plan.generations, secondsMedian: median.seconds,
                     cellUpdatesPerSecondMedian: middle, cellUpdatesPerSecondMin: rates.first!,
                     cellUpdatesPerSecondMax: rates.last!, computeSeconds: compute, haloWaitSeconds: wait,
                     haloWaitPercent: 100 * wait / max(compute + wait, 1e-9),
                     bytesPerGeneration: bytes / Double(plan.generations))
    }

    /// Speed-up and efficiency against the fewest-worker point of the same series (one
    /// per halo depth asked for; one in all with default halos, whose depth varies with
    /// the tiling), which is the 1-worker point when the sweep has one.
    static func relate(_ points: inout [Point]) {
        for i in points.indices {
            guard let base = points.filter({ $0.series == points[i].series }).min(by: { $0.workers < $1.workers }) else { continue }
            let perWorker = base.cellUpdatesPerSecondMedian / Double(base.workers)
            points[i].speedup = points[i].cellUpdatesPerSecondMedian / perWorker
            points[i].efficiency = points[i].speedup / Double(points[i].workers)
        }
    }

    /// One row per point, units in the column names; the CSV and the JSON share them.
    static let columns = ["mode", "workers", "halo", "width_cells", "height_cells", "tiles", "generations",
                          "seconds_median", "cell_updates_per_s_median", "cell_updates_per_s_min",
                          "cell_updates_per_s_max", "speedup", "efficiency", "compute_s", "halo_wait_s",
                          "halo_wait_percent", "bytes_per_generation"]

    static func values(_ p: Point) -> [Any] {
        [p.mode, p.workers, p.halo, p.width, p.height, p.tiles, p.generations, p.secondsMedian,
         p.cellUpdatesPerSecondMedian, p.cellUpdatesPerSecondMin, p.cellUpdatesPerSecondMax, p.speedup, p.efficiency,
         p.computeSeconds, p.haloWaitSeconds, p.haloWaitPercent, p.bytesPerGeneration]
    }

    /// Fails before any run if `--out` cannot be made; makes nothing until there are results.
    private func checkOut() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, FileManager.default.isWritableFile(atPath: out) else {
                throw TesseraError("cannot write into \(out)", fix: "give --out a writable folder")
            }
            return
        }
        var parent = (out as NSString).deletingLastPathComponent
        while !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            parent = (parent as NSString).deletingLastPathComponent
        }
        guard FileManager.default.isWritableFile(atPath: parent.isEmpty ? "." : parent) else {
            throw TesseraError("cannot create folder \(out)", fix: "check the path given to --out")
        }
    }

    private func write(_ points: [Point]) throws {
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw TesseraError("cannot create folder \(out)", fix: "check the path given to --out")
        }
        let rows = points.map(Self.values)
        let csv = ([Self.columns.joined(separator: ",")] + rows.map { $0.map { "\($0)" }.joined(separator: ",") })
            .joined(separator: "\n") + "\n"
        let objects = rows.map { Dictionary(uniqueKeysWithValues: zip(Self.columns, $0)) }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys]),
                          as: UTF8.self) + "\n"
        for (name, text) in [("results.csv", csv), ("results.json", json), ("scaling.svg", ScalingPlot.svg(points))] {
            try AtomicFile.write(out + "/" + name) { try $0(text) }
        }
    }

    private func printTable(_ points: [Point]) {
        print("workers  halo  board          cell-updates/s (min-max)            speed-up  efficiency  halo wait  bytes/gen")
        for p in points {
            let rate = "\(Format.rate(p.cellUpdatesPerSecondMedian)) (\(Format.rate(p.cellUpdatesPerSecondMin))-\(Format.rate(p.cellUpdatesPerSecondMax)))"
            print(String(format: "%7d  %4d  %@  %@  %8.2f  %10.2f  %8.1f%%  %@", p.workers, p.halo,
                         "\(p.width)x\(p.height)".padding(toLength: 13, withPad: " ", startingAt: 0),
                         rate.padding(toLength: 34, withPad: " ", startingAt: 0), p.speedup, p.efficiency,
                         p.haloWaitPercent, Format.bytes(UInt64(p.bytesPerGeneration))))
        }
        print("wrote \(out)/results.csv, \(out)/results.json, \(out)/scaling.svg")
    }
}

/// Speed-up (left axis) and efficiency (right axis) against workers, with the ideal
/// speed-up line, as SVG.
enum ScalingPlot {
    static func svg(_ points: [ScalingBench.Point]) -> String {
        let (w, h) = (640.0, 420.0)
        let (left, right, top, bottom) = (60.0, 70.0, 50.0, 50.0)
        let maxWorkers = Double(points.map(\.workers).max() ?? 1)
        let maxSpeedup = (max(maxWorkers, points.map(\.speedup).max() ?? 1) * 1.1).rounded(.up)
        func x(_ v: Double) -> Double { left + (w - left - right) * v / maxWorkers }
        func y(_ v: Double, _ scale: Double) -> Double { h - bottom - (h - top - bottom) * v / scale }
        func text(_ x: Double, _ y: Double, _ anchor: String, _ body: String, _ extra: String = "") -> String {
            "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\"\(extra)>\(body)</text>\n"
        }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        if let first = points.first {
            let board = first.mode == "weak" ? "\(first.width) cells wide, growing with the workers" : "\(first.width)x\(first.height)"
            svg += text(w / 2, 24, "middle", "\(first.mode) scaling, \(board), \(first.generations) generations", " font-size=\"14\"")
        }
        svg += "<path d=\"M\(left),\(top) V\(h - bottom) H\(w - right) V\(top)\" fill=\"none\" stroke=\"black\"/>\n"
        svg += text(w / 2, h - 12, "middle", "workers")
        svg += text(16, h / 2, "middle", "speed-up (solid)", " transform=\"rotate(-90 16 \(h / 2))\"")
        svg += text(w - 16, h / 2, "middle", "efficiency (dashed)", " transform=\"rotate(90 \(w - 16) \(h / 2))\"")
        for workers in Set(points.map(\.workers)).sorted() {
            svg += text(x(Double(workers)), h - bottom + 16, "middle", "\(workers)")
        }
        let step = max(1.0, (maxSpeedup / 8).rounded(.up))
        for v in stride(from: 0.0, through: maxSpeedup, by: step) {
            svg += text(left - 6, y(v, maxSpeedup) + 4, "end", "\(Int(v))")
        }
        let efficiencyTop = 1.2
        for v in [0.0, 0.25, 0.5, 0.75, 1.0] {
            svg += text(w - right + 6, y(v, efficiencyTop) + 4, "start", String(format: "%.2f", v))
            svg += "<line x1=\"\(left)\" y1=\"\(y(v, efficiencyTop))\" x2=\"\(w - right)\" y2=\"\(y(v, efficiencyTop))\" stroke=\"#eee\"/>\n"
        }
        svg += "<line x1=\"\(x(0))\" y1=\"\(y(0, maxSpeedup))\" x2=\"\(x(maxWorkers))\" y2=\"\(y(maxWorkers, maxSpeedup))\" stroke=\"#999\" stroke-dasharray=\"2,4\"/>\n"
        svg += text(x(maxWorkers) - 4, y(maxWorkers, maxSpeedup) - 6, "end", "ideal speed-up", " fill=\"#999\"")
        let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
        for (i, halo) in Set(points.map { $0.series ?? 0 }).sorted().enumerated() {
            let series = points.filter { ($0.series ?? 0) == halo }.sorted { $0.workers < $1.workers }
            let color = colors[i % colors.count]
            let speed = series.map { "\(x(Double($0.workers))),\(y($0.speedup, maxSpeedup))" }.joined(separator: " ")
            let efficiency = series.map { "\(x(Double($0.workers))),\(y($0.efficiency, efficiencyTop))" }
                .joined(separator: " ")
            svg += "<polyline points=\"\(speed)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            svg += "<polyline points=\"\(efficiency)\" fill=\"none\" stroke=\"\(color)\" stroke-dasharray=\"6,3\"/>\n"
            for p in series {
                svg += "<circle cx=\"\(x(Double(p.workers)))\" cy=\"\(y(p.speedup, maxSpeedup))\" r=\"3\" fill=\"\(color)\"/>\n"
                svg += "<circle cx=\"\(x(Double(p.workers)))\" cy=\"\(y(p.efficiency, efficiencyTop))\" r=\"3\" fill=\"white\" stroke=\"\(color)\"/>\n"
            }
            svg += text(left + 10, top + 16 + Double(i) * 16, "start", halo == 0 ? "default halo" : "halo \(halo)",
                        " fill=\"\(color)\"")
        }
        return svg + "</svg>\n"
    }
}
