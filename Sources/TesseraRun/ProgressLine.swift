import Foundation
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
        FileHandle.standardOutput.write(Data((line + text + "\u{1B}[K").utf8))
    }

    package static func clear() {
        guard isTerminal else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
    }

    /// Follows a run until its task is cancelled: generation of `total`, cell-updates/s,
    /// time left and the share of time spent waiting for halos.
    package static func follow(_ coordinator: Coordinator, cells: Int, total: UInt64?) async {
        defer { clear() }
        while !Task.isCancelled {
            let status = await coordinator.status
            draw(fraction: total.map { Double(status.done) / Double(max($0, 1)) }, describe(status, cells: cells, total: total))
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    static func describe(_ status: Coordinator.Status, cells: Int, total: UInt64?) -> String {
        guard status.ready else { return "waiting for workers: \(status.joined) of \(status.workers)" }
        var parts = ["generation \(status.done)" + (total.map { " of \($0)" } ?? "")]
        if status.done > 0, status.secondsAdvancing > 0 {
            let perSecond = Double(status.done) / status.secondsAdvancing
            parts.append(Format.rate(perSecond * Double(cells)) + " cell-updates/s")
            if let total, total > status.done { parts.append("ETA " + Format.duration(Double(total - status.done) / perSecond)) }
        }
        let busy = status.computeSeconds + status.waitSeconds
        if busy > 0 { parts.append(String(format: "halo wait %.1f%%", 100 * status.waitSeconds / busy)) }
        return parts.joined(separator: " · ")
    }
}
