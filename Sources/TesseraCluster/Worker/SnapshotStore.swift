import TesseraCore
import TesseraWire

/// A worker's in-memory snapshots (double in-memory checkpointing, as Charm++ does): its
/// own tiles' live cells and the copies it keeps for its buddy, each as the parts of the
/// tile that hold live cells (1 bit a cell of those). It holds
/// at most two generations: the newest one every worker completed, and the one being
/// taken, so a worker lost while a snapshot is taken still leaves a whole one behind.
package struct SnapshotStore: Sendable {
    private var cells: [UInt64: [TileID: [Overlay]]] = [:]
    /// The order being carried out, and the copies it still waits for.
    private var taking: (op: UInt64, order: SnapshotOrder, missing: Set<TileID>)?
    /// Copies that came before their order (the buddy may be quicker than the coordinator).
    private var early: [(from: String, copy: TileParts)] = []

    package init() {}

    package enum Outcome: Equatable {
        /// Taken, copies and all: tell the coordinator.
        case complete(op: UInt64)
        case waiting
        case refused(String)
    }

    /// Starts `order` with this worker's own tiles' cells; drops every generation but the
    /// one the order retains.
    package mutating func begin(op: UInt64, _ order: SnapshotOrder, own: [TileID: [Overlay]]) -> Outcome {
        cells = cells.filter { $0.key == order.retains }
        cells[order.generation, default: [:]].merge(own) { $1 }
        guard !order.keeps.isEmpty else { return .complete(op: op) }
        taking = (op, order, Set(order.keeps))
        let arrived = early.filter { $0.copy.generation >= order.generation }
        early = []
        for (from, copy) in arrived where keep(copy, from: from) == .complete(op: op) { return .complete(op: op) }
        return .waiting
    }

    /// A copy of a buddy's tile: kept if the order in progress expects it from `sender`.
    package mutating func keep(_ copy: TileParts, from sender: String) -> Outcome {
        // Before its order (or for a newer one): held until the order comes.
        guard var current = taking, copy.generation == current.order.generation else { return hold(copy, from: sender) }
        guard sender == current.order.keepsFor, current.missing.remove(copy.tile) != nil else {
            // Not for the order in progress, but perhaps for the next one: after a roll
            // back the coordinator orders the same generation again, with new buddies,
            // whose copies can come before this worker's own order does while the order
            // cut short is still here. Refused, they were lost and the snapshot hung.
            return hold(copy, from: sender)
        }
        cells[copy.generation, default: [:]][copy.tile] = copy.parts
        taking = current
        guard current.missing.isEmpty else { return .waiting }
        taking = nil
        return .complete(op: current.op)
    }

    /// Keeps a copy no order in progress expects until the next order, within reason;
    /// that order refuses it if it is not for it either.
    private mutating func hold(_ copy: TileParts, from sender: String) -> Outcome {
        guard early.count < Tiling.maxTiles else { return .refused("too many snapshot copies before their order") }
        early.append((sender, copy))
        return .waiting
    }

    /// The live parts of `tile` at `generation`: its own snapshot, or a copy kept for a buddy.
    package func parts(of tile: TileID, at generation: UInt64) -> [Overlay]? {
        cells[generation]?[tile]
    }

    /// Generations held, for tests.
    package var generations: [UInt64] { cells.keys.sorted() }
}
