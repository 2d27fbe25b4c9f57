import FoundationEssentials
import Glibc
import TesseraCore
import TesseraPatterns
import TesseraRun

/// Runs a corpus's files as a user would, `tessera run FILE --generations N` beside
/// `bgolly -a ENGINE -m N FILE` for each engine that runs the file's rule, whole
/// processes with their wall times and peak memory; then once more each with its result
/// written (`--output`, `-o`), and compares the two results.
package struct CorpusBench: Sendable {
    package var tessera: String
    package var bgolly: String
    /// Golly's rule files, for bgolly's RuleLoader (`-s`).
    package var rules: String
    package var generations: UInt64
    /// Runs per time; the median is reported (and the largest peak memory).
    package var repeats: Int
    /// Seconds a run may take before it is killed.
    package var timeout: Double
    /// Where unpacked inputs and the outputs go while the bench runs.
    package var folder: String
    /// Worker processes each `tessera run` steps its file on (`--workers`); nil: as a
    /// user's plain run chooses.
    package var workers: Int?

    package init(tessera: String, bgolly: String, rules: String, generations: UInt64, repeats: Int, timeout: Double, folder: String) {
        (self.tessera, self.bgolly, self.rules, self.generations) = (tessera, bgolly, rules, generations)
        (self.repeats, self.timeout, self.folder) = (repeats, timeout, folder)
    }

    package func measure(_ file: CorpusFile) async throws -> CorpusRow {
        let input = try self.input(for: file)
        var first = try InputFile(input, fix: "check the corpus folder").read(upTo: 1 << 16)
        // A gzipped file's rule is inside it.
        if Gzip.isGzip(first) { first = try Gzip.unpack(InputFile(input, fix: "check the corpus folder").readToEnd()).prefix(1 << 16) }
        let head = String(decoding: first, as: UTF8.self)
        let named = CorpusFile.rule(inText: head[...])
        let engines = CorpusFile.engines(forRule: named?.rule, game: named?.game)
        // bgolly's -m is a generation to reach, counted from the file's own.
        let start = head.firstMatch(of: /(?m)^#CXRLE.*Gen=(\d+)|^#G (\d+)/).flatMap { UInt64($0.1 ?? $0.2 ?? "") } ?? 0
        var row = CorpusRow(file: file.name, rule: named?.rule ?? "B3/S23", generations: generations, outcome: .failed, note: "")

        let ours = try await runTessera(input, writing: Self.resultFormat(of: input, engine: nil))
        (row.tesseraSeconds, row.tesseraPeakMiB) = (ours.seconds, ours.peak.map { Double($0) / 1_048_576 })
        var reference: (engine: CorpusFile.Engine, output: String, seconds: Double, peak: Int)?
        var bgollyProblem = ""
        for engine in engines {
            let theirs = try await runBgolly(input, engine: engine, to: start + generations,
                                             writing: Self.resultFormat(of: input, engine: engine))
            guard let output = theirs.output, let seconds = theirs.seconds, let peak = theirs.peak else {
                bgollyProblem = "bgolly -a \(engine.rawValue): \(theirs.problem)"
                continue
            }
            if reference == nil || seconds < reference!.seconds { reference = (engine, output, seconds, peak) }
        }
        if let reference {
            (row.bgollySeconds, row.bgollyEngine, row.bgollyPeakMiB) = (reference.seconds, reference.engine.rawValue, Double(reference.peak) / 1_048_576)
        }
        guard let output = ours.output else {
            (row.outcome, row.note) = (ours.refused ? .refused : .failed, ours.problem)
            return row
        }
        guard let reference else {
            (row.outcome, row.note) = (.noReference, bgollyProblem)
            return row
        }
        row.speedup = reference.seconds / ours.seconds!
        row.memoryRatio = ours.peak.map { Double($0) / Double(max(reference.peak, 1)) }
        // The same RLE rows, whatever each says of its position: the same cells; the same
        // macrocell nodes, whatever each says of its writer: the same cells where they were.
        if let rows = try Self.rows(of: output), rows == (try Self.rows(of: reference.output)) {
            let population = output.hasSuffix(".mc") ? Self.population(ofMacrocell: rows) : Self.population(ofRows: rows)
            (row.outcome, row.note, row.population) = (.matched, "", population)
            return row
        }
        let size = [output, reference.output].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.max() ?? 0
        guard size <= Self.largestCompared else {
            (row.outcome, row.note) = (.unchecked, "results of \(size >> 20) MiB differ in their bytes, too large to compare cell by cell here")
            return row
        }
        let comparison: CellComparison
        do {
            comparison = try CellComparison(PatternFile.load(output).withStatesMade(), PatternFile.load(reference.output).withStatesMade())
        } catch let error as TesseraError {
            (row.outcome, row.note) = (.unchecked, "results differ in their bytes, and cannot be compared cell by cell here: \(error.description)")
            return row
        }
        row.population = comparison.population
        row.outcome = comparison.same ? .matched : .differs
        row.note = comparison.how
        return row
    }

    /// Results larger than this (on disk) are compared by their bytes alone: read as
    /// patterns, they would take this bench's memory past the programs' it measures.
    static let largestCompared = 16 << 20

    /// The format each program writes its result in: a macrocell's as a macrocell where
    /// the program is Tessera or one of bgolly's HashLifes (HashLife, RuleLoader, JvN: a
    /// 2^20-generation W22 is 4.6 billion cells, hundreds of MB of RLE, and 10891 nodes;
    /// Goucher's Codd replicator 6 billion cells of states, too many for a grid to
    /// compare), else RLE.
    static func resultFormat(of input: String, engine: CorpusFile.Engine?) -> String {
        let hashed: [CorpusFile.Engine?] = [nil, .hashLife, .ruleLoader, .jvn]
        return Files.uncompressedName(of: input).lowercased().hasSuffix(".mc") && hashed.contains(engine) ? "mc" : "rle"
    }

    /// An RLE's rows (what follows its header), a macrocell's nodes (what follows its
    /// first line, which names the writer), or nil for another format.
    static func rows(of path: String) throws -> Data? {
        if path.hasSuffix(".mc") {
            guard let data = FileManager.default.contents(atPath: path), let end = data.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return data[(end + 1)...]
        }
        guard path.hasSuffix(".rle"), let data = FileManager.default.contents(atPath: path),
              let header = data.firstRange(of: Data("\nx =".utf8)) ?? (data.starts(with: Data("x =".utf8)) ? data.startIndex..<data.startIndex : nil),
              let end = data[header.upperBound...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return data[(end + 1)...]
    }

    /// The cells RLE rows hold in a state other than 0: the sum of the `o` runs, or of
    /// a multi-state file's `A`..`X` (after any `p`..`y`).
    static func population(ofRows rows: Data) -> Int {
        var total = 0, count = 0
        for byte in rows {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): count = min(count * 10 + Int(byte - UInt8(ascii: "0")), 1 << 40)
            case UInt8(ascii: "o"), UInt8(ascii: "A")...UInt8(ascii: "X"): (total, count) = (total + max(count, 1), 0)
            case UInt8(ascii: "b"), UInt8(ascii: "."), UInt8(ascii: "$"): count = 0
            case UInt8(ascii: "!"): return total
            default: continue
            }
        }
        return total
    }

    /// The live cells of a two-state macrocell's nodes (after its first line): a leaf's
    /// `*`s, a node's quadrants' sums, the last node's total (saturating).
    static func population(ofMacrocell nodes: Data) -> Int {
        var populations: [Int] = [0]
        for line in nodes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            if let first = line.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
                let fields = line.split(separator: UInt8(ascii: " ")).compactMap { Int(String(decoding: $0, as: UTF8.self)) }
                let children = fields.dropFirst().map { $0 < populations.count ? populations[$0] : 0 }
                populations.append(children.reduce(0) { $0.addingReportingOverflow($1).overflow ? .max : $0 + $1 })
            } else {
                populations.append(line.reduce(0) { $0 + ($1 == UInt8(ascii: "*") ? 1 : 0) })
            }
        }
        return populations.last ?? 0
    }

    /// The file as both programs read it: a gzipped one as it is (both unpack it, and
    /// the time to do so is theirs), a `.gz` that is plain text under its plain name.
    private func input(for file: CorpusFile) throws -> String {
        guard file.path.hasSuffix(".gz") else { return file.path }
        let magic = try InputFile(file.path, fix: "check the corpus folder").read(upTo: 2)
        if Array(magic) == [0x1F, 0x8B] { return file.path }
        let plain = folder + "/" + Files.lastComponent(of: String(file.path.dropLast(3)))
        try? FileManager.default.removeItem(atPath: plain)
        try FileManager.default.copyItem(atPath: file.path, toPath: plain)
        return plain
    }

    /// A program's runs of one file: time, peak memory and result, or why it failed.
    private struct Measured {
        var output: String?
        var seconds: Double?
        var peak: Int?
        var refused = false
        var problem = ""
    }

    /// Tessera's time and memory for the run alone (what bgolly is timed doing), then its
    /// result from one more run that writes it.
    private func runTessera(_ input: String, writing format: String) async throws -> Measured {
        let run = [tessera, "run", input, "--generations", "\(generations)"] + (workers.map { ["--workers", "\($0)"] } ?? [])
        var outcome = try await timed(run)
        guard outcome.seconds != nil else { return outcome }
        var output = folder + "/tessera." + format
        var written = try await timed(run + ["--output", output], repeats: 1)
        // Past Golly's ±10^9, RLE holds no position: a macrocell does (bgolly refuses the same RLE).
        if written.problem.contains("(macrocell)") {
            output = folder + "/tessera.mc"
            written = try await timed(run + ["--output", output], repeats: 1)
        }
        guard written.seconds != nil else { return written }
        outcome.output = output
        return outcome
    }

    private func runBgolly(_ input: String, engine: CorpusFile.Engine, to generation: UInt64, writing format: String) async throws -> Measured {
        var arguments = [bgolly, "-q", "-q", "-a", engine.rawValue, "-m", "\(generation)"]
        if engine == .hashLife { arguments += ["-i", "\(generations)"] }
        if engine == .ruleLoader { arguments += ["-s", rules + "/"] }
        var outcome = try await timed(arguments + [input])
        guard outcome.seconds != nil else { return outcome }
        var output = folder + "/bgolly-\(engine)." + format
        var written = try await timed(arguments + ["-o", output, input], repeats: 1)
        // bgolly writes RLE only within ±10^9; its HashLife writes a macrocell instead.
        if written.problem.contains("too large to write in RLE"), engine == .hashLife {
            output = folder + "/bgolly-\(engine).mc"
            written = try await timed(arguments + ["-o", output, input], repeats: 1)
        }
        guard written.seconds != nil else { return written }
        outcome.output = output
        return outcome
    }

    /// Runs `arguments` `repeats` times (once if it fails): the median time and the
    /// largest peak memory, or why it failed (its first line of output or errors).
    ///
    /// The peak is GNU time's `%M`, where it is installed: a child spawned from this
    /// process shares its memory until it execs, and Linux carries that high-water mark
    /// into the child's own `ru_maxrss`, so every program measured directly would seem
    /// to hold at least what this bench once held.
    private func timed(_ arguments: [String], repeats: Int? = nil) async throws -> Measured {
        var times: [Double] = [], peak = 0
        let said = folder + "/said.txt", peakFile = folder + "/peak.txt"
        let measured = Self.gnuTime.map { [$0, "-f", "%M", "-o", peakFile, "--"] + arguments } ?? arguments
        for _ in 0..<(repeats ?? self.repeats) {
            let clock = ContinuousClock(), started = clock.now
            let process = try ChildProcess.spawn(measured, newProcessGroup: true, output: said, errors: said + ".err")
            let ended = try await withThrowingTaskGroup(of: (ChildProcess.Termination, Int)?.self) { group in
                group.addTask { try await process.usage() }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    kill(-process.pid, SIGKILL)
                    return nil
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            guard let (termination, bytes) = ended, termination == .exited(0) else {
                let lines = [said + ".err", said].compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
                    .flatMap { $0.split(separator: "\n") }
                    .filter { !$0.hasPrefix("This is bgolly") && !$0.hasPrefix("- ") && !$0.hasPrefix("Command exited with") }
                // The kill's own ending can come back before the timer's nil does.
                let timedOut = ended == nil || (clock.now - started).seconds >= timeout
                let why = timedOut ? "killed after \(Int(timeout)) s" : lines.first.map(String.init) ?? "\(ended!.0)"
                return Measured(refused: ended?.0 == .exited(2), problem: why)
            }
            times.append((clock.now - started).seconds)
            let reported = (try? String(contentsOfFile: peakFile, encoding: .utf8)).flatMap { Int($0.trimmingWhitespace) }.map { $0 * 1024 }
            peak = max(peak, reported ?? bytes)
        }
        return Measured(seconds: times.median, peak: peak)
    }

    static let gnuTime = ["/usr/bin/time"].first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Two results compared as sets of live cells, wherever each program put its origin
/// (bgolly's RLE has no position): cropped to their live cells, grid against grid.
struct CellComparison {
    let same: Bool
    let population: Int
    let how: String

    init(_ a: Pattern, _ b: Pattern) {
        let (ours, theirs) = (Self.live(a), Self.live(b))
        population = ours.reduce(0) { $0 + $1.cells.population }
        let theirPopulation = theirs.reduce(0) { $0 + $1.cells.population }
        if ours.count <= 1 && theirs.count <= 1 {
            same = ours.first?.cells == theirs.first?.cells
            how = same ? "" : "cells differ (population \(population), bgolly's \(theirPopulation))"
            return
        }
        // Groups far apart: each group's cells, placed from the leftmost, topmost cell.
        func placed(_ parts: [PlacedCells]) -> [PlacedCells] {
            let left = parts.map(\.left).min() ?? 0, top = parts.map(\.top).min() ?? 0
            return parts.map { PlacedCells(cells: $0.cells, left: $0.left - left, top: $0.top - top) }
                .sorted { ($0.top, $0.left) < ($1.top, $1.left) }
        }
        same = placed(ours) == placed(theirs)
        how = same ? "\(ours.count) groups" : "cells differ (population \(population), bgolly's \(theirPopulation))"
    }

    /// Each part cropped to its live cells; parts with none dropped.
    static func live(_ pattern: Pattern) -> [PlacedCells] {
        pattern.placedParts(on: .torus).compactMap { PlacedCells(trimming: $0.cells, left: $0.left, top: $0.top) }
    }
}
