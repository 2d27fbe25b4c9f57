import FoundationEssentials
import TesseraCore
import TesseraRun

/// One workload measured: whole processes, wall time from start to exit, Tessera and
/// Golly's bgolly on the same file in the same run. A row of `workloads.csv` and of
/// `workloads.json`, units in the names.
package struct WorkloadRow: Codable, Sendable, Equatable, ResultRow {
    package typealias Columns = CodingKeys

    package var workload: String
    package var board: String
    package var generations: UInt64
    package var workers: Int
    package var tesseraSeconds: Double
    /// Generations the run stepped in its own process before (or instead of) its workers.
    package var steppedHere: UInt64
    /// Generations of those stepped by HashLife (the unbounded plane's first, or all).
    package var byHashLife: UInt64 = 0
    /// The same run with no head start (`--no-head-start`): every generation on the workers.
    package var workersOnlySeconds: Double?
    package var inProcessSeconds: Double
    package var quickLifeSeconds: Double?
    package var hashLifeSeconds: Double?
    /// Board cells × generations / Tessera's time: what stepping every cell would need
    /// (nil on the unbounded plane, which has no cell count).
    package var effectiveCellUpdatesPerSecond: Double?
    /// The faster of bgolly's times over Tessera's (above 1: Tessera is faster).
    package var speedupOverBgolly: Double?
    /// bgolly QuickLife's time over Tessera's.
    package var speedupOverQuickLife: Double?
    package var population: Int?
    /// Whether bgolly ended with the same population (nil: not checked).
    package var sameAsBgolly: Bool?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case workload, board, generations, workers
        case tesseraSeconds = "tessera_s"
        case steppedHere = "generations_stepped_here"
        case byHashLife = "generations_by_hashlife"
        case workersOnlySeconds = "tessera_workers_only_s"
        case inProcessSeconds = "tessera_in_process_s"
        case quickLifeSeconds = "bgolly_quicklife_s"
        case hashLifeSeconds = "bgolly_hashlife_s"
        case effectiveCellUpdatesPerSecond = "effective_cell_updates_per_s"
        case speedupOverBgolly = "speedup_over_bgolly"
        case speedupOverQuickLife = "speedup_over_quicklife"
        case population
        case sameAsBgolly = "same_as_bgolly"
    }

    package var csvFields: [String] {
        CodingKeys.allCases.map { key in
            switch key {
            case .workload: workload
            case .board: board
            case .generations: "\(generations)"
            case .workers: "\(workers)"
            case .tesseraSeconds: "\(tesseraSeconds)"
            case .steppedHere: "\(steppedHere)"
            case .byHashLife: "\(byHashLife)"
            case .workersOnlySeconds: workersOnlySeconds.map { "\($0)" } ?? ""
            case .inProcessSeconds: "\(inProcessSeconds)"
            case .quickLifeSeconds: quickLifeSeconds.map { "\($0)" } ?? ""
            case .hashLifeSeconds: hashLifeSeconds.map { "\($0)" } ?? ""
            case .effectiveCellUpdatesPerSecond: effectiveCellUpdatesPerSecond.map { "\($0)" } ?? ""
            case .speedupOverBgolly: speedupOverBgolly.map { "\($0)" } ?? ""
            case .speedupOverQuickLife: speedupOverQuickLife.map { "\($0)" } ?? ""
            case .population: population.map { "\($0)" } ?? ""
            case .sameAsBgolly: sameAsBgolly.map { "\($0)" } ?? ""
            }
        }
    }

}

/// Runs workloads as a user would: `tessera run FILE --generations N` with the default
/// local cluster (and with its workers doing every generation, and in process), and
/// bgolly QuickLife (and HashLife) on the same file.
package struct WorkloadBench: Sendable {
    /// This program, which the runs start.
    package var tessera: String
    /// Workers for the cluster runs; nil: the default (one per core).
    package var workers: Int?
    /// Runs per figure; the median is reported.
    package var repeats: Int
    /// Where the pattern files go while the bench runs.
    package var folder: String

    package init(tessera: String, workers: Int?, repeats: Int, folder: String) {
        (self.tessera, self.workers, self.repeats, self.folder) = (tessera, workers, repeats, folder)
    }

    package func measure(_ workload: Workload) async throws -> WorkloadRow {
        var file = folder + "/\(workload.name).rle"
        try AtomicFile.write(file) { try $0(workload.file) }
        if workload.settle > 0 {
            // The timed run starts from the settled board, written by Tessera (checked
            // against bgolly in the test suite), so every program starts from the same file.
            let settled = folder + "/\(workload.name)-settled.rle"
            _ = try await run([tessera, "run", file, "--generations", "\(workload.settle)", "--output", settled])
            file = settled
        }
        let cells = workload.board.map { Double($0.cellCount) * Double(workload.generations) }
        let cluster = [tessera, "run", file, "--generations", "\(workload.generations)"] + (workers.map { ["--workers", "\($0)"] } ?? [])
        let summary = folder + "/\(workload.name).out"
        let tesseraSeconds = try await median { try await run(cluster, output: summary) }
        // A chosen worker count has no head start: then the first figure is the workers' already.
        let workersOnly = workers == nil ? try await median { try await run(cluster + ["--no-head-start"]) } : nil
        let inProcess = try await median { try await run([tessera, "run", file, "--generations", "\(workload.generations)", "--workers", "0"]) }
        let text = (try? String(contentsOfFile: summary, encoding: .utf8)) ?? ""
        let population = text.firstMatch(of: /population (\d+)/).flatMap { Int($0.1) }
        let workersUsed = text.firstMatch(of: /, (\d+) workers?\b/).flatMap { Int($0.1) } ?? 0
        let allHere = text.contains("in process (") || text.contains("in process by HashLife")
        let steppedHere = allHere ? workload.generations
            : text.firstMatch(of: /the first (\d+) generations stepped here/).flatMap { UInt64($0.1) } ?? 0
        let byHashLife = text.contains("in process by HashLife") ? workload.generations
            : text.firstMatch(of: /the first (\d+) generations by HashLife/).flatMap { UInt64($0.1) } ?? 0
        var row = WorkloadRow(workload: workload.name, board: workload.boardName, generations: workload.generations,
                              workers: workersUsed, tesseraSeconds: tesseraSeconds, steppedHere: steppedHere,
                              workersOnlySeconds: workersOnly, inProcessSeconds: inProcess,
                              effectiveCellUpdatesPerSecond: cells.map { $0 / tesseraSeconds }, population: population)
        row.byHashLife = byHashLife
        if let bgolly = GollyReference.path {
            // bgolly runs to an absolute generation, counting from the file's (`#CXRLE Gen=`).
            let steps = ["-m", "\(workload.settle + workload.generations)", file]
            row.quickLifeSeconds = try await median { try await run([bgolly, "-q", "-q", "-a", "QuickLife"] + steps) }
            if workload.hashLife {
                row.hashLifeSeconds = try await median { try await run([bgolly, "-q", "-q", "-a", "HashLife", "-i", "\(workload.generations)"] + steps) }
            }
            let best = [row.quickLifeSeconds, row.hashLifeSeconds].compactMap { $0 }.min()!
            row.speedupOverBgolly = best / tesseraSeconds
            row.speedupOverQuickLife = row.quickLifeSeconds.map { $0 / tesseraSeconds }
            // bgolly says the population of every generation when not quiet: the last line is the one.
            let check = folder + "/\(workload.name).golly"
            _ = try await run([bgolly, "-a", "QuickLife", "-i", "\(workload.generations)"] + steps, output: check)
            let last = (try? String(contentsOfFile: check, encoding: .utf8))?.split(separator: "\n").last { $0.contains(": ") }
            let golly = last.flatMap { Int($0.split(separator: ": ").last?.filter(\.isNumber) ?? "") }
            row.sameAsBgolly = golly.map { $0 == population }
        }
        return row
    }

    private func median(_ measure: () async throws -> Double) async throws -> Double {
        var times: [Double] = []
        for _ in 0..<repeats { times.append(try await measure()) }
        return times.median!
    }

    /// Runs a program to its end; its wall time, in seconds.
    private func run(_ arguments: [String], output: String? = nil) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let process = try ChildProcess.spawn(arguments, quiet: true, output: output)
        let ended = try await process.termination()
        guard ended == .exited(0) else {
            throw TesseraError("\(Files.lastComponent(of: arguments[0])) \(ended) on \(arguments.dropFirst().joined(separator: " "))")
        }
        return (clock.now - start).seconds
    }
}
