import TesseraCore
import TesseraWire

/// What a presenter needs from a cluster: the coordinator in its own process, or one
/// it drives over the network from a process of its own (`RemoteCluster`).
package protocol ClusterDriver: Sendable {
    var tiling: Tiling { get }
    var workerCount: Int { get }
    var generation: UInt64 { get async }
    var population: Int { get async }
    func advance(_ generations: UInt64) async throws
    func frame(_ viewport: Viewport) async throws -> BitGrid
    func collect() async throws -> BitGrid
    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) async throws
    /// What viewers send, in arrival order.
    var viewerInbox: AsyncStream<MessagePump.Incoming> { get }
    func send(_ message: Message, toViewer identity: PeerID)
}

extension Coordinator: ClusterDriver {
    package nonisolated var tiling: Tiling { plan.tiling }
}
