import TesseraCore

/// Carries halo strips to a neighbouring tile. This is the seam where transports plug
/// in: in memory to an actor in the same process, or over the network to another worker.
public protocol HaloLink: Sendable {
    /// The tile at the other end, which receives the strips.
    var tile: TileID { get }
    func send(_ strip: HaloStrip) async throws
}

/// Delivers strips to a tile actor in this process.
public struct LocalHaloLink: HaloLink {
    public let target: TileActor

    public init(target: TileActor) { self.target = target }

    public var tile: TileID { target.id }

    public func send(_ strip: HaloStrip) async throws { try await target.receive(strip) }
}
