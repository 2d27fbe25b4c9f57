import FoundationEssentials
import Glibc
import TesseraCluster
import TesseraCore

/// One live line at the bottom of a terminal: redrawn in place a few times a second,
/// cleared at the end, and nothing at all when stdout is not a terminal. `tessera run`,
/// `tessera coordinator` and `tessera bench scaling` all draw theirs with it.
package enum ProgressLine {
    package static var isTerminal: Bool { isatty(1) == 1 }

    /// Draws `[######........] text` (just the text without a fraction) over the last line drawn.
    package static func draw(fraction: Double?, _ text: String) {
        guard isTerminal else { return }
        var line = "\r"
        if let fraction {
            let width = 30, filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        }
        Files.writeToStandardOutput((line + text + "\u{1B}[K"))
    }

    package static func clear() {
        guard isTerminal else { return }
        Files.writeToStandardOutput("\r\u{1B}[K")
    }

    /// `measure` of each item in turn, the line naming the one being measured; cleared
    /// at the end, or when one throws.
    package static func each<Item, Result>(_ items: [Item], named name: (Item) -> String,
                                           _ measure: (Item) async throws -> Result) async throws -> [Result] {
        defer { clear() }
        var results: [Result] = []
        for (index, item) in items.enumerated() {
            draw(fraction: Double(index) / Double(items.count), name(item))
            results.append(try await measure(item))
        }
        return results
    }

    /// Follows a run until its task is cancelled: generation of `total`, cell-updates/s,
    /// time left and the share of time spent waiting for halos; while `headStart` runs,
    /// its generations (with no coordinator, only those), and after it, the workers'
    /// counted on from there.
    package static func follow(_ coordinator: Coordinator?, cells: Int, total: UInt64?, headStart: HeadStart.Progress? = nil) async {
        defer { clear() }
        while !Task.isCancelled {
            let head = headStart?.snapshot
            let text: String, done: UInt64
            if let head, head.running {
                done = head.generations
                text = describe(done: done, seconds: head.seconds, cells: cells, total: total) + " · stepped here"
            } else if let coordinator {
                let status = await coordinator.status
                done = (head?.generations ?? 0) + status.done
                text = describe(status, before: head?.generations ?? 0, cells: cells, total: total)
            } else {
                return
            }
            draw(fraction: total.map { Double(done) / Double(max($0, 1)) }, text)
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The line for `status`, whose generations count on from `before`.
    static func describe(_ status: Coordinator.Status, before: UInt64 = 0, cells: Int, total: UInt64?) -> String {
        guard status.ready else { return "waiting for workers: \(status.joined) of \(status.workers)" }
        var parts = [describe(done: before + status.done, seconds: status.secondsAdvancing, rateOf: status.done, cells: cells, total: total)]
        let busy = status.computeSeconds + status.waitSeconds
        if busy > 0 { parts.append(String(cFormat: "halo wait %.1f%%", 100 * status.waitSeconds / busy)) }
        return parts.joined(separator: " · ")
    }

    /// Generation `done` of `total`, and the speed of the last `rateOf` generations (all
    /// of them unless said), run in `seconds`: in cell-updates of a board of `cells`,
    /// or in generations where that is 0.
    static func describe(done: UInt64, seconds: Double, rateOf stepped: UInt64? = nil, cells: Int, total: UInt64?) -> String {
        var parts = ["generation \(done)" + (total.map { " of \($0)" } ?? "")]
        let stepped = stepped ?? done
        if stepped > 0, seconds > 0 {
            let perSecond = Double(stepped) / seconds
            // A sparse map has no board of cells to count: its generations, then.
            parts.append(cells > 0 ? Format.rate(perSecond * Double(cells)) + " cell-updates/s"
                                   : Format.rate(perSecond) + " generations/s")
            if let total, total > done { parts.append("ETA " + Format.duration(Double(total - done) / perSecond)) }
        }
        return parts.joined(separator: " · ")
    }
}
