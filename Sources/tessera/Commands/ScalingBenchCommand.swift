import ArgumentParser
import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraBench
import TesseraRun
import TesseraWire

extension ScalingSweep.Mode: ExpressibleByArgument {}

/// `tessera bench scaling`: a sweep of real local clusters, written as CSV, JSON and an SVG plot.
struct ScalingBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scaling",
        abstract: "Sweeps worker counts and halo depths on local clusters; writes CSV, JSON and an SVG plot.")

    @Option(help: "strong: one board for every point; weak: the board grows with the workers.")
    var mode: ScalingSweep.Mode = .strong

    @Option(help: "Worker counts, comma-separated.", transform: parsing { try Self.list($0, "workers") })
    var workers: [Int] = [1, 2]

    @Option(help: "Board side N (strong: N×N; weak: N×(N·workers)).")
    var size: Int = 4096

    @Option(help: "Halo depths, comma-separated. Default: each tiling's default.", transform: parsing { try Self.list($0, "halo") })
    var halo: [Int]?

    @Option(help: "Life-like rule.", transform: parsing(RuleChoice.init(parsing:)))
    var rule: RuleChoice = try! RuleChoice(parsing: "B3/S23")

    @Option(help: "Generations per run.")
    var generations: UInt64 = 200

    @Option(help: "Runs per point; the median is reported with the spread.")
    var `repeat`: Int = 1

    @Option(help: "Soup density.")
    var density: Double = 0.35

    @Flag(help: "Also run each point's tiles as independent one-worker runs side by side: the machine's ceiling, with no halo traffic.")
    var ceiling = false

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

    @Option(help: "The cluster's key folder: every run's connections use CurveZMQ (what it costs shows beside a run without).")
    var keys: String?

    static func list(_ text: String, _ name: String) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingWhitespace) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 }) else {
            throw TesseraError("bad --\(name) '\(text)'", fix: "give positive integers separated by commas, e.g. 1,2,4")
        }
        return values.map { $0! }
    }

    func validate() throws {
        _ = try Soup(density: density, seed: 1)
        if let listen { _ = try Endpoint.split(listen) }
        if ceiling && hosts != nil {
            throw TesseraError("--ceiling measures this machine's cores, not other hosts'", fix: "leave out --hosts or --ceiling")
        }
    }

    func run() async throws {
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
        try ResultsFolder.check(out)
        var sweep = ScalingSweep(mode: mode, workerCounts: workers, halos: halo, size: size, rule: rule.rule,
                                 generations: generations, repeats: self.repeat, soup: try Soup(density: density, seed: 1),
                                 launcher: launcher, listen: listen, ceiling: ceiling)
        sweep.credentials = try Credentials.member(keys: keys)
        let points: [ScalingPoint]
        do {
            points = try await sweep.run { done, total in ProgressLine.draw(fraction: Double(done) / Double(total), "\(done)/\(total) runs") }
            ProgressLine.clear()
        } catch {
            ProgressLine.clear()
            throw error
        }
        try ScalingPoint.write(points, into: out)
        printTable(points)
    }

    private func printTable(_ points: [ScalingPoint]) {
        print("workers  halo  board          cell-updates/s (min-max)            speed-up  efficiency  halo wait  bytes/gen"
            + (ceiling ? "  ceiling      of ceiling" : ""))
        for p in points {
            let rate = "\(Format.rate(p.cellUpdatesPerSecondMedian)) (\(Format.rate(p.cellUpdatesPerSecondMin))-\(Format.rate(p.cellUpdatesPerSecondMax)))"
            var line = String(cFormat: "%7d  %4d  ", p.workers, p.halo) + "\(p.width)x\(p.height)".padded(13) + "  " + rate.padded(34)
                + String(cFormat: "  %8.2f  %10.2f  %8.1f%%  ", p.speedup, p.efficiency, p.haloWaitPercent)
                + Format.bytes(UInt64(p.bytesPerGeneration)).leftPadded(9)
            if let ceiling = p.ceilingCellUpdatesPerSecond, let share = p.shareOfCeiling {
                line += "  " + Format.rate(ceiling).leftPadded(11) + String(cFormat: "  %9.1f%%", 100 * share)
            }
            print(line)
        }
        print("wrote \(out)/results.csv, \(out)/results.json, \(out)/scaling.svg")
    }
}
