import ArgumentParser
import FoundationEssentials
import Glibc
import TesseraCluster
import TesseraCore
import TesseraBench
import TesseraRun

/// `tessera bench corpus`: every pattern file of some folders, Tessera beside bgolly.
struct CorpusBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Runs every pattern file under the folders through tessera and through bgolly, checks both end with the same cells, and reports both times and peak memories; writes CSV, JSON and SVG. Exits 1 if any file's cells differ.")

    static let gollyPatterns = "/usr/share/golly/Patterns"
    static let gollyRules = "/usr/share/golly/Rules"

    @Argument(help: "Folders of pattern files, searched recursively (default: Golly's own, \(gollyPatterns)).")
    var folders: [String] = []

    @Option(help: "Generations each file runs.")
    var generations: UInt64 = 1000

    @Option(help: "Runs per time; the median is reported.")
    var `repeat`: Int = 1

    @Option(help: "Seconds a run may take before it is killed and counted as failed.")
    var timeout: Double = 120

    @Option(help: "Folder for corpus.csv, corpus.json and corpus.svg.")
    var out: String = "results"

    @Option(help: "Worker processes each tessera run steps its file on (default: as a plain 'tessera run' chooses).")
    var workers: Int?

    func validate() throws {
        guard self.repeat >= 1 else { throw TesseraError("--repeat must be at least 1", fix: "give --repeat 1 or more") }
        guard timeout > 0, timeout.isFinite else { throw TesseraError("--timeout \(timeout) allows no run", fix: "give seconds above 0") }
        if let workers {
            guard workers >= 0 else { throw TesseraError("--workers \(workers) is no number of workers", fix: "give --workers 0 or more") }
            try WorkerCount.check(workers)
        }
    }

    func run() async throws {
        guard let bgolly = GollyReference.path else {
            throw TesseraError("bgolly is not installed: there is nothing to compare with", fix: "apt-get install golly")
        }
        let roots = folders.isEmpty ? [Self.gollyPatterns] : folders
        if folders.isEmpty && !Files.isFolder(Self.gollyPatterns) {
            throw TesseraError("Golly's patterns are not at \(Self.gollyPatterns)", fix: "apt-get install golly, or give folders of pattern files")
        }
        let files = try CorpusFile.find(in: roots)
        guard !files.isEmpty else { throw TesseraError("no pattern files under \(roots.joined(separator: ", "))", fix: "give folders of .rle, .cells, .lif, .mc or .mcl files") }
        try ResultsFolder.check(out)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-corpus-\(getpid())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var bench = CorpusBench(tessera: LocalWorkers.executable, bgolly: bgolly, rules: Self.gollyRules, generations: generations,
                                repeats: self.repeat, timeout: timeout, folder: scratch)
        bench.workers = workers
        var measured: [CorpusRow] = []
        let rows = try await ProgressLine.each(files, named: \.name) { file in
            let row = try await bench.measure(file)
            measured.append(row)
            // After every file: a long corpus stopped part way keeps the rows it measured.
            try ResultsFolder.write([("corpus.csv", CorpusRow.csv(measured))], into: out)
            return row
        }
        try ResultsFolder.write([("corpus.csv", CorpusRow.csv(rows)), ("corpus.json", try CorpusRow.json(rows)),
                                 ("corpus.svg", CorpusPlot.svg(rows, generations: generations))], into: out)
        printTable(rows)
        if rows.contains(where: { $0.outcome == .differs }) { throw ExitCode(1) }
    }

    private func printTable(_ rows: [CorpusRow]) {
        func seconds(_ value: Double?) -> String { value.map { String(cFormat: "%.3f", $0) } ?? "-" }
        func mib(_ value: Double?) -> String { value.map { String(cFormat: "%.1f", $0) } ?? "-" }
        func ratio(_ value: Double?) -> String { value.map { String(cFormat: "%.2fx", $0) } ?? "-" }
        let width = min(60, rows.map(\.file.count).max() ?? 4)
        print("file".padded(width) + "  outcome       tessera s   bgolly s  engine            speed-up  tessera MiB  bgolly MiB  memory")
        for row in rows {
            let figures = [seconds(row.tesseraSeconds).leftPadded(9), seconds(row.bgollySeconds).leftPadded(9),
                           " " + (row.bgollyEngine ?? "-").padded(16), ratio(row.speedup).leftPadded(9),
                           mib(row.tesseraPeakMiB).leftPadded(11), mib(row.bgollyPeakMiB).leftPadded(10), ratio(row.memoryRatio).leftPadded(7)]
            let note = row.outcome == .matched || row.note.isEmpty ? "" : "  " + row.note
            print(String(row.file.prefix(width)).padded(width) + "  " + row.outcome.rawValue.padded(12) + figures.joined(separator: "  ") + note)
        }
        CorpusSummary(rows).lines.forEach { print($0) }
        print("whole processes, \(generations) generations, timed without writing the result (a run more of each writes it for the check); "
            + "speed-up: bgolly's time over tessera's; memory: tessera's peak over bgolly's")
        print("wrote \(out)/corpus.csv, \(out)/corpus.json, \(out)/corpus.svg")
    }
}
