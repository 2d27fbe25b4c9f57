import FoundationEssentials
import TesseraCluster
import TesseraCore

/// The line a run ends with, and with `detailed`, one more per worker.
package enum Summary {
    package static func lines(setup: RunSetup, outcome: RunOutcome, detailed: Bool) -> [String] {
        let generations = outcome.generations
        let rate = Double(setup.shape.cellCount) * Double(generations) / max(outcome.seconds, 1e-9)
        let workers = outcome.workers
        var placement = workers.isEmpty ? "in process" : "\(workers.count) worker\(workers.count == 1 ? "" : "s")"
        if let share = outcome.hashLife {
            let collected = share.collections == 0 ? "" : ", collected \(share.collections) time\(share.collections == 1 ? "" : "s")"
            let returns = "taken back \(share.returns) time\(share.returns == 1 ? "" : "s")"
            let turns = share.returns == 0 ? "" : ", \(share.tileGenerations) of them by tiles where it fell behind (\(returns))"
            placement = !share.handedOver ? "in process by HashLife (\(share.squares) squares\(collected))\(turns)"
                : share.generations == 0 ? "HashLife falling behind at once, \(placement)"
                : "the first \(share.generations) generations by HashLife\(turns), then \(placement)"
        }
        if let head = outcome.headStart {
            let them = "\(head.workers) worker\(head.workers == 1 ? "" : "s")"
            placement += head.handedOver ? " (the first \(head.generations) generations stepped here)"
                : head.started ? " (over before its \(them) \(head.workers == 1 ? "was" : "were") up)"
                : head.keptSparse ? " (too sparse to start its \(them))"
                : " (never busy enough to start its \(them))"
        }
        var line: String
        let recut = outcome.recuts.last.map { "cut again into \($0.columns)x\($0.rows) at generation \($0.generation) for joining workers" }
        if let tiles = outcome.sparseTiles {
            placement += " as a sparse map (\(tiles) tile\(tiles == 1 ? "" : "s") of 64x64 at the end)"
        }
        if let last = outcome.shardDeals.last {
            let times = outcome.shardDeals.count
            placement += ", its shards dealt again \(times == 1 ? "once" : "\(times) times") (last at generation \(last))"
        }
        if setup.isUnbounded || outcome.sparseTiles != nil {
            // Tiles come and go with the pattern: no one board size or tiling to name.
            let speed = Double(generations) / max(outcome.seconds, 1e-9)
            let board = setup.isUnbounded ? setup.shape.edges.map { "the \($0.name) \(setup.shape.gollySuffix)" } ?? "the unbounded plane"
                : "\(setup.shape)"
            line = "\(setup.name): \(generations) generations on \(board) \(setup.rule), \(placement)\(recut.map { ", tiles " + $0 } ?? ""): "
                + "population \(outcome.population), \(String(cFormat: "%.3f", outcome.seconds)) s, \(Format.rate(speed)) generations/s"
        } else {
            // Larger than Life and Generations step the board whole, with no tiles.
            let tiles = !setup.stepsWhole
                ? ", tiles \(setup.tiling.columns)x\(setup.tiling.rows)\(recut.map { ", " + $0 } ?? ""), halo \(setup.halo)" : ""
            line = "\(setup.name): \(generations) generations on \(setup.shape) \(setup.rule), \(placement)\(tiles): "
                + "population \(outcome.population), \(String(cFormat: "%.3f", outcome.seconds)) s, \(Format.rate(rate)) cell-updates/s"
        }
        if !workers.isEmpty {
            let compute = workers.reduce(0) { $0 + $1.report.computeSeconds }
            let wait = workers.reduce(0) { $0 + $1.report.waitSeconds }
            line += String(cFormat: ", halo wait %.1f%%", 100 * wait / max(compute + wait, 1e-9))
        }
        if !outcome.rebalances.isEmpty {
            let moved = outcome.rebalances.reduce(0) { $0 + $1.moves.count }
            line += ", \(moved) tile move\(moved == 1 ? "" : "s")"
        }
        if let last = outcome.checkpoints.last {
            let slowest = outcome.checkpoints.map(\.seconds).max() ?? 0
            line += ", \(outcome.checkpoints.count) checkpoint\(outcome.checkpoints.count == 1 ? "" : "s") (last at generation \(last.generation), "
                + String(cFormat: "%.1f ms at most)", slowest * 1000)
        }
        if !outcome.recoveries.isEmpty {
            line += ", survived \(outcome.recoveries.count) lost worker\(outcome.recoveries.count == 1 ? "" : "s") (\(outcome.generationsComputedAgain) generations computed again)"
        }
        guard detailed else { return [line] }
        let moves = outcome.rebalances.map { r in
            let list = r.moves.map { "\($0.tile) \($0.from)→\($0.to)" }.joined(separator: ", ")
            func loads(_ l: [Double]) -> String { l.map { String(cFormat: "%.3f", $0) }.joined(separator: "/") }
            return "  generation \(r.generation): moved \(list) in \(String(cFormat: "%.1f", r.seconds * 1000)) ms; "
                + "load per worker \(loads(r.before)) s → \(loads(r.after)) s"
        }
        let losses = outcome.recoveries.map {
            "  lost after generation \($0.at), \($0.wentAhead ? "went on from" : "rolled back to") \($0.rolledBackTo) \($0.fromMemory ? "(in-memory snapshot) " : "")"
                + "in \(String(cFormat: "%.0f", $0.seconds * 1000)) ms: \($0.lost)"
        }
        let snapshots = outcome.snapshots.map(\.seconds).sorted()
        let kept = snapshots.isEmpty ? [] : ["  \(snapshots.count) in-memory snapshot\(snapshots.count == 1 ? "" : "s") "
            + (outcome.sparseTiles == nil ? "(each worker's tiles, and a copy on its buddy)" : "(the shards' live cells, kept by the coordinator)")
            + String(cFormat: ": median %.1f ms, at most %.1f ms", snapshots[snapshots.count / 2] * 1000, snapshots.last! * 1000)]
        return [line] + kept + losses + moves + workers.map { w in
            let r = w.report
            let tiles = r.shard.map { "a shard of \($0.tiles) tile\($0.tiles == 1 ? "" : "s")" }
                ?? "tiles " + w.tiles.map(\.description).joined(separator: " ")
            return "  worker \(w.index) (pid \(w.pid) on \(w.host), \(tiles)): "
                + String(cFormat: "compute %.3f s, halo wait %.3f s (%.1f%%), sent ", r.computeSeconds, r.waitSeconds,
                         100 * r.waitSeconds / max(r.computeSeconds + r.waitSeconds, 1e-9)) + Format.bytes(r.bytesSent)
        }
    }
}
