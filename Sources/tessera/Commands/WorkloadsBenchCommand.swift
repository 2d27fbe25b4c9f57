import ArgumentParser
import FoundationEssentials
import Glibc
import TesseraCluster
import TesseraCore
import TesseraBench
import TesseraRun

/// `tessera bench workloads`: a named suite, whole processes, side by side with bgolly.
struct WorkloadsBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workloads",
        abstract: "Runs a suite of workloads as whole processes, side by side with bgolly on the same files; writes CSV and JSON.")

    @Option(help: "Workloads to run, comma-separated (default: all; see --list).")
    var only: String?

    @Flag(help: "List the workloads and exit.")
    var list = false

    @Option(help: "Worker processes for the cluster runs. Default: one per core, as 'tessera run' does.")
    var workers: Int?

    @Option(help: "Runs per figure; the median is reported.")
    var `repeat`: Int = 1

    @Option(help: "Shrink boards and generations by this factor (0-1] for a quick look.")
    var scale: Double = 1

    @Option(help: "Folder for workloads.csv and workloads.json.")
    var out: String = "results"

    @Option(help: "Keep the pattern files measured in this folder (default: a temporary one, removed).")
    var files: String?

    func validate() throws {
        guard scale > 0, scale <= 1 else { throw TesseraError("--scale \(scale) is out of range", fix: "give a number above 0 and at most 1") }
        guard self.repeat >= 1 else { throw TesseraError("--repeat must be at least 1") }
        if let workers, workers < 1 { throw TesseraError("--workers \(workers) runs no cluster", fix: "give 1 or more") }
    }

    func run() async throws {
        var suite = try Workload.suite(scale: scale)
        if list {
            for workload in suite {
                print(workload.name.padded(18)
                    + "\(workload.boardName), \(workload.generations) generations: \(workload.summary)")
            }
            return
        }
        if let only {
            let names = only.split(separator: ",").map { String($0.trimmingWhitespace) }
            for name in names where !suite.contains(where: { $0.name == name }) {
                throw TesseraError("no workload named '\(name)'", fix: "run 'tessera bench workloads --list'")
            }
            suite = suite.filter { names.contains($0.name) }
        }
        try ResultsFolder.check(out)
        let scratch = files ?? FileManager.default.temporaryDirectory.appendingPathComponent("tessera-workloads-\(getpid())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if files == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        let bench = WorkloadBench(tessera: LocalWorkers.executable, workers: workers, repeats: self.repeat, folder: scratch)
        let rows = try await ProgressLine.each(suite, named: \.name) { try await bench.measure($0) }
        try ResultsFolder.write([("workloads.csv", WorkloadRow.csv(rows)), ("workloads.json", try WorkloadRow.json(rows))], into: out)
        printTable(rows)
    }

    private func printTable(_ rows: [WorkloadRow]) {
        func seconds(_ value: Double?) -> String { value.map { String(cFormat: "%.3f", $0) } ?? "-" }
        print("workload          board                  generations  tessera s  stepped here  by HashLife  workers only s  in-process s  QuickLife s  HashLife s  effective/s  vs QuickLife  vs bgolly")
        for row in rows {
            let ratio = row.speedupOverBgolly.map { String(cFormat: "%.2fx", $0) } ?? "-"
            let check = row.sameAsBgolly == false ? "  POPULATION DIFFERS" : ""
            func share(_ count: UInt64) -> String { count == row.generations ? "all" : count == 0 ? "-" : "\(count)" }
            let versusQuickLife = row.speedupOverQuickLife.map { String(cFormat: "%.2fx", $0) } ?? "-"
            let name = row.workload.padded(18)
                + row.board.padded(23) + String(cFormat: "%11d", row.generations)
            let figures: [(String, Int)] = [
                (seconds(row.tesseraSeconds), 9), (share(row.steppedHere), 12), (share(row.byHashLife), 11),
                (seconds(row.workersOnlySeconds), 14), (seconds(row.inProcessSeconds), 12),
                (seconds(row.quickLifeSeconds), 11), (seconds(row.hashLifeSeconds), 10), (row.effectiveCellUpdatesPerSecond.map { Format.rate($0) } ?? "-", 11),
                (versusQuickLife, 12), (ratio, 9),
            ]
            print(name + figures.map { "  " + $0.0.leftPadded($0.1) }.joined() + check)
        }
        let cluster = workers.map { "\($0) workers, every generation" }
            ?? "as 'tessera run FILE' runs it (stepped here until the board is busy, then on one worker per core)"
        print("tessera: whole process, \(cluster); stepped here: generations stepped before the workers took over; "
            + "by HashLife: on the unbounded plane, generations HashLife stepped before handing the pattern to tiles; "
            + "workers only: --no-head-start; in-process: --workers 0 (tiles); vs bgolly: the faster of QuickLife and HashLife over tessera")
        print("wrote \(out)/workloads.csv, \(out)/workloads.json")
    }
}
