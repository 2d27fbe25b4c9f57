import TesseraCore

/// Every message Tessera's processes send each other.
///
/// Requests that expect answers carry an operation number, `op`, and every answer
/// echoes it: an answer to an earlier operation is recognised as stray and refused,
/// whatever it says. Each message kind travels on one lane (see `Lane`), and a socket
/// refuses kinds that do not belong on its lane. This is the wire's union of them all;
/// a handler takes its lane's own type (`ToWorker`, `ToCoordinator`, `HaloMessage`,
/// `ToPresenter`, `FromViewer`, `ToViewer`), whose switches are exhaustive.
package enum Message: Sendable, Equatable {
    // A worker and its coordinator, on the control connection.
    /// A worker introduces itself.
    case hello(Hello)
    /// The coordinator gives a worker its tiles.
    case assign(Assignment)
    /// New cells for a tile: its starting board, a pattern change, an edit or a rewind.
    case load(op: UInt64, TileCells)
    /// The coordinator gives a worker its shard of a sparse plane (`ShardMap`), in
    /// place of tiles.
    case shard(ShardAssignment)
    /// More of the shard's starting cells (`ShardAssignment.partCount`): a big pattern's
    /// shard comes in messages of at most `ShardAssignment.chunk` parts, so that the
    /// heartbeats behind each are heard in time.
    case shardCells([Overlay])
    /// A worker built its tiles, or its shard.
    case ready
    /// A tile took the cells of `load`.
    case loaded(op: UInt64, tile: TileID)
    case start(op: UInt64, generations: UInt64)
    /// A worker's tiles ran the generations of `start`.
    case done(op: UInt64, WorkerReport)
    /// The dots of a viewport, of the cells within `clip` only (board coordinates) when
    /// given: a frame, or a coarse look for where the live cells of a rectangle are. A
    /// shard host draws the viewport in Golly's coordinates on the unbounded plane, in
    /// the grid's own on a bounded grid.
    case frameRequest(op: UInt64, Viewport, clip: TileRect?)
    /// One tile's part of a frame.
    case frameTile(op: UInt64, FramePart)
    /// A shard's dots of a whole frame (`frameRequest`): what its tiles in view show.
    case shardFrame(op: UInt64, dots: BitGrid)
    /// Asks for the cells of `area` (board coordinates): each tile it crosses answers
    /// with its part. A few live cells on a huge board travel as what lies around them.
    case collect(op: UInt64, area: TileRect)
    /// One tile's part of the area of `collect`.
    case cells(op: UInt64, TileCells)
    /// Asks a worker for its shard's live cells.
    case readParts(op: UInt64)
    /// Some of a shard's live cells, in Golly's coordinates: the answer to `readParts`,
    /// in messages of at most `ShardAssignment.chunk` parts, the last one marked.
    case parts(op: UInt64, [Overlay], last: Bool)
    /// Asks a worker to give up `tiles` (they move): each answers with its `tileState`,
    /// and the worker drops it.
    case handOff(op: UInt64, tiles: [TileID])
    /// A tile, whole: a worker giving it up answers `handOff` with it; the coordinator
    /// sends it on to the tile's new worker, before that worker's new `assign`.
    case tileState(op: UInt64, TileState)
    /// Asks a worker to write each of its tiles' cells into `folder` (a checkpoint).
    case checkpoint(op: UInt64, folder: String)
    /// A tile's file is written, with this checksum (`TesseraPatterns.Checkpoint`).
    case checkpointed(op: UInt64, tile: TileID, checksum: UInt64)
    /// A worker was lost: the others stop the run in progress where they are (their
    /// tiles are rolled back next), and say `halted`.
    case halt(op: UInt64)
    case halted(op: UInt64)
    /// Asks a worker to keep its tiles' cells in memory at the generation the run is at,
    /// and to send a copy of each to its buddy (double in-memory checkpointing).
    case snapshot(op: UInt64, SnapshotOrder)
    /// A worker has its own snapshot and its buddy's copies.
    case snapshotted(op: UInt64)
    /// A worker asks to leave (it got SIGTERM): once its tiles moved to others, the
    /// coordinator tells it to shut down, and the run goes on without it.
    case leaving
    /// The coordinator keeps a worker that asked to leave: why (no other worker could
    /// take its tiles). The worker stays, and may ask again.
    case stays(reason: String)
    /// Liveness, both ways, with how far the sender has come.
    case heartbeat(RunProgress)
    /// A worker could not do what it was asked; the run fails.
    case failure(reason: String)
    case shutdown
    /// The run failed or was stopped; the receiver leaves.
    case abort(reason: String)
    /// The receiver is not wanted (a worker too many, a presenter where none is served).
    case refused(reason: String)

    // Between workers, on a worker's halo inbox.
    /// A strip, and the epoch of the assignment it was sent under (`Assignment.epoch`).
    case halo(HaloStrip, epoch: UInt64)
    /// A copy of one of the sender's tiles, kept for it by its buddy (`snapshot`).
    case snapshotCopy(TileParts)
    /// A shard's cells near another shard's tiles, before a stretch.
    case bands(Bands)

    // A presenter in its own process and the coordinator it drives.
    case presenterHello
    case presenterWelcome(PresenterWelcome)
    case presenterRequest(op: UInt64, PresenterRequest)
    case presenterReply(op: UInt64, PresenterReply)

    // Viewers and the presenter.
    /// The viewport a viewer wants its next frame of.
    case view(Viewport)
    /// The viewer is leaving.
    case detach
    case command(ViewerCommand)
    case frame(Frame)
}

/// Where a message travels. A socket decodes with its lane and refuses every other kind.
package enum Lane: String, Sendable, CaseIterable {
    /// The coordinator's control socket: from workers and a presenter process.
    case toCoordinator = "the coordinator's control port"
    /// A worker's or presenter's control connection: from the coordinator.
    case toWorker = "a worker's control connection"
    /// A worker's halo inbox: from other workers.
    case halo = "a worker's halo port"
    /// A presenter process's connection to the coordinator: from the coordinator.
    case toPresenter = "a presenter's coordinator connection"
    /// A presenter's viewer port: from viewers.
    case fromViewer = "a viewer port"
    /// A viewer's connection: from the presenter.
    case toViewer = "a viewer's connection"
}

/// A peer's ZeroMQ routing identity: who a message came from on a ROUTER socket.
package typealias PeerID = [UInt8]
