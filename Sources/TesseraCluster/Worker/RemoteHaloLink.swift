import TesseraCore
import TesseraTiles
import TesseraWire

/// A halo link to a tile on another worker: the strip goes out over ZeroMQ, straight to
/// that worker's inbox, on a connection that presents the run's token and this worker's
/// endpoint (`HaloToken.identity(of:)`).
struct RemoteHaloLink: HaloLink {
    let tile: TileID
    let pump: MessagePump
    let endpoint: String
    let identity: PeerID
    let epoch: UInt64

    func send(_ strip: HaloStrip) async throws {
        pump.send(Wire.encode(.halo(strip, epoch: epoch)), to: .peer(endpoint: endpoint, presenting: identity))
    }
}
