import FoundationEssentials
import TesseraRun

/// One pattern file run for the same generations by Tessera and by bgolly (each of the
/// engines that runs its rule, the faster one reported), whole processes, with the
/// results compared cell by cell. A row of `corpus.csv` and `corpus.json`.
package struct CorpusRow: Codable, Sendable, Equatable, ResultRow {
    package typealias Columns = CodingKeys

    package enum Outcome: String, Codable, Sendable {
        /// Both ran, and ended with the same cells (up to where each writes them).
        case matched
        /// Both ran, to different cells: a bug to chase.
        case differs
        /// Both ran, to results too large for the bench to compare cell by cell.
        case unchecked
        /// Tessera refused the file, with a line saying why (`note`).
        case refused
        /// Tessera failed otherwise: a crash, a signal, or past the time allowed.
        case failed
        /// bgolly could not run it (or not in the time allowed): nothing to compare with.
        case noReference = "no reference"
    }

    package var file: String
    package var rule: String
    package var generations: UInt64
    package var outcome: Outcome
    package var tesseraSeconds: Double?
    package var bgollySeconds: Double?
    /// The bgolly engine whose time that is (the faster, where two run the rule).
    package var bgollyEngine: String?
    /// bgolly's time over Tessera's: above 1, Tessera is faster.
    package var speedup: Double?
    package var tesseraPeakMiB: Double?
    package var bgollyPeakMiB: Double?
    /// Tessera's peak memory over bgolly's: above 1, Tessera holds more.
    package var memoryRatio: Double?
    package var population: Int?
    /// Tessera's refusal or failure, bgolly's, or how the cells were compared.
    package var note: String

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case file, rule, generations, outcome
        case tesseraSeconds = "tessera_s"
        case bgollySeconds = "bgolly_s"
        case bgollyEngine = "bgolly_engine"
        case speedup = "speedup_over_bgolly"
        case tesseraPeakMiB = "tessera_peak_mib"
        case bgollyPeakMiB = "bgolly_peak_mib"
        case memoryRatio = "memory_over_bgolly"
        case population, note
    }

    package var csvFields: [String] {
        func number(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
        func quoted(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" }) ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
        }
        return CodingKeys.allCases.map { key in
            switch key {
            case .file: quoted(file)
            case .rule: quoted(rule)
            case .generations: "\(generations)"
            case .outcome: outcome.rawValue
            case .tesseraSeconds: number(tesseraSeconds)
            case .bgollySeconds: number(bgollySeconds)
            case .bgollyEngine: bgollyEngine ?? ""
            case .speedup: number(speedup)
            case .tesseraPeakMiB: number(tesseraPeakMiB)
            case .bgollyPeakMiB: number(bgollyPeakMiB)
            case .memoryRatio: number(memoryRatio)
            case .population: population.map { "\($0)" } ?? ""
            case .note: quoted(note)
            }
        }
    }
}

/// What a corpus run comes to: how many files matched, and the speed-ups' spread.
package struct CorpusSummary: Sendable, Equatable {
    package var matched = 0, differing = 0, unchecked = 0, refused = 0, failed = 0, noReference = 0
    /// Median and worst speed-up over the files that matched.
    package var medianSpeedup: Double?, worstSpeedup: Double?
    /// The same over the files bgolly needed `heavy` seconds or more for.
    package var heavyMedianSpeedup: Double?, heavyWorstSpeedup: Double?, heavyCount = 0
    /// The largest memory ratio over the files that matched.
    package var worstMemoryRatio: Double?

    package static let heavy = 0.05

    package init(_ rows: [CorpusRow]) {
        for row in rows {
            switch row.outcome {
            case .matched: matched += 1
            case .differs: differing += 1
            case .unchecked: unchecked += 1
            case .refused: refused += 1
            case .failed: failed += 1
            case .noReference: noReference += 1
            }
        }
        let compared = rows.filter { $0.outcome == .matched }
        let speedups = compared.compactMap(\.speedup)
        (medianSpeedup, worstSpeedup) = (speedups.median, speedups.min())
        let heavy = compared.filter { ($0.bgollySeconds ?? 0) >= Self.heavy }.compactMap(\.speedup)
        (heavyMedianSpeedup, heavyWorstSpeedup, heavyCount) = (heavy.median, heavy.min(), heavy.count)
        worstMemoryRatio = compared.compactMap(\.memoryRatio).max()
    }

    package var lines: [String] {
        func ratio(_ value: Double?) -> String { value.map { String(cFormat: "%.2fx", $0) } ?? "-" }
        return [
            "\(matched) matched, \(differing) differ, \(unchecked) too large to compare, \(refused) refused by tessera, \(failed) failed in tessera, "
                + "\(noReference) without a bgolly result",
            "speed-up over the faster bgolly engine, where matched: median \(ratio(medianSpeedup)), worst \(ratio(worstSpeedup)); "
                + "where bgolly needs \(Int(Self.heavy * 1000)) ms or more (\(heavyCount) files): median \(ratio(heavyMedianSpeedup)), worst \(ratio(heavyWorstSpeedup))",
            "peak memory over bgolly's, worst where matched: \(ratio(worstMemoryRatio))",
        ]
    }
}
