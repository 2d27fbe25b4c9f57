import TesseraCore

/// The messages of one lane as a type of their own: a handler switches over exactly the
/// kinds that can reach it, and the compiler checks that it handles every one. On the
/// wire each is a `Message`; `Wire.decode(_:as:)` refuses a kind that is not the lane's.
package protocol LaneMessage: Sendable, Equatable {
    static var lane: Lane { get }
    /// `message` as this lane's, or nil where it does not travel on this lane.
    init?(_ message: Message)
    var message: Message { get }
}

extension LaneMessage {
    package var kind: Wire.Kind { message.kind }
}

/// What the coordinator sends a worker, on its control connection.
package enum ToWorker: LaneMessage {
    case assign(Assignment)
    case shard(ShardAssignment)
    case shardCells([Overlay])
    case load(op: UInt64, TileCells)
    case start(op: UInt64, generations: UInt64)
    case handOff(op: UInt64, tiles: [TileID])
    case tileState(op: UInt64, TileState)
    case checkpoint(op: UInt64, folder: String)
    case snapshot(op: UInt64, SnapshotOrder)
    case halt(op: UInt64)
    case frameRequest(op: UInt64, Viewport, clip: TileRect?)
    case collect(op: UInt64, area: TileRect)
    case readParts(op: UInt64)
    case stays(reason: String)
    case heartbeat(RunProgress)
    case shutdown
    case abort(reason: String)
    case refused(reason: String)

    package static var lane: Lane { .toWorker }

    package init?(_ message: Message) {
        switch message {
        case .assign(let assignment): self = .assign(assignment)
        case .shard(let assignment): self = .shard(assignment)
        case .shardCells(let parts): self = .shardCells(parts)
        case .load(let op, let cells): self = .load(op: op, cells)
        case .start(let op, let generations): self = .start(op: op, generations: generations)
        case .handOff(let op, let tiles): self = .handOff(op: op, tiles: tiles)
        case .tileState(let op, let state): self = .tileState(op: op, state)
        case .checkpoint(let op, let folder): self = .checkpoint(op: op, folder: folder)
        case .snapshot(let op, let order): self = .snapshot(op: op, order)
        case .halt(let op): self = .halt(op: op)
        case .frameRequest(let op, let viewport, let clip): self = .frameRequest(op: op, viewport, clip: clip)
        case .collect(let op, let area): self = .collect(op: op, area: area)
        case .readParts(let op): self = .readParts(op: op)
        case .stays(let reason): self = .stays(reason: reason)
        case .heartbeat(let progress): self = .heartbeat(progress)
        case .shutdown: self = .shutdown
        case .abort(let reason): self = .abort(reason: reason)
        case .refused(let reason): self = .refused(reason: reason)
        default: return nil
        }
    }

    package var message: Message {
        switch self {
        case .assign(let assignment): .assign(assignment)
        case .shard(let assignment): .shard(assignment)
        case .shardCells(let parts): .shardCells(parts)
        case .load(let op, let cells): .load(op: op, cells)
        case .start(let op, let generations): .start(op: op, generations: generations)
        case .handOff(let op, let tiles): .handOff(op: op, tiles: tiles)
        case .tileState(let op, let state): .tileState(op: op, state)
        case .checkpoint(let op, let folder): .checkpoint(op: op, folder: folder)
        case .snapshot(let op, let order): .snapshot(op: op, order)
        case .halt(let op): .halt(op: op)
        case .frameRequest(let op, let viewport, let clip): .frameRequest(op: op, viewport, clip: clip)
        case .collect(let op, let area): .collect(op: op, area: area)
        case .readParts(let op): .readParts(op: op)
        case .stays(let reason): .stays(reason: reason)
        case .heartbeat(let progress): .heartbeat(progress)
        case .shutdown: .shutdown
        case .abort(let reason): .abort(reason: reason)
        case .refused(let reason): .refused(reason: reason)
        }
    }
}

/// What workers and a presenter process send the coordinator, on its control port.
package enum ToCoordinator: LaneMessage {
    case hello(Hello)
    case ready
    case loaded(op: UInt64, tile: TileID)
    case done(op: UInt64, WorkerReport)
    case frameTile(op: UInt64, FramePart)
    case shardFrame(op: UInt64, dots: BitGrid)
    case cells(op: UInt64, TileCells)
    case parts(op: UInt64, [Overlay], last: Bool)
    case tileState(op: UInt64, TileState)
    case checkpointed(op: UInt64, tile: TileID, checksum: UInt64)
    case halted(op: UInt64)
    case snapshotted(op: UInt64)
    case leaving
    case heartbeat(RunProgress)
    case failure(reason: String)
    case presenterHello
    case presenterRequest(op: UInt64, PresenterRequest)

    package static var lane: Lane { .toCoordinator }

    package init?(_ message: Message) {
        switch message {
        case .hello(let hello): self = .hello(hello)
        case .ready: self = .ready
        case .loaded(let op, let tile): self = .loaded(op: op, tile: tile)
        case .done(let op, let report): self = .done(op: op, report)
        case .frameTile(let op, let part): self = .frameTile(op: op, part)
        case .shardFrame(let op, let dots): self = .shardFrame(op: op, dots: dots)
        case .cells(let op, let cells): self = .cells(op: op, cells)
        case .parts(let op, let parts, let last): self = .parts(op: op, parts, last: last)
        case .tileState(let op, let state): self = .tileState(op: op, state)
        case .checkpointed(let op, let tile, let checksum): self = .checkpointed(op: op, tile: tile, checksum: checksum)
        case .halted(let op): self = .halted(op: op)
        case .snapshotted(let op): self = .snapshotted(op: op)
        case .leaving: self = .leaving
        case .heartbeat(let progress): self = .heartbeat(progress)
        case .failure(let reason): self = .failure(reason: reason)
        case .presenterHello: self = .presenterHello
        case .presenterRequest(let op, let request): self = .presenterRequest(op: op, request)
        default: return nil
        }
    }

    package var message: Message {
        switch self {
        case .hello(let hello): .hello(hello)
        case .ready: .ready
        case .loaded(let op, let tile): .loaded(op: op, tile: tile)
        case .done(let op, let report): .done(op: op, report)
        case .frameTile(let op, let part): .frameTile(op: op, part)
        case .shardFrame(let op, let dots): .shardFrame(op: op, dots: dots)
        case .cells(let op, let cells): .cells(op: op, cells)
        case .parts(let op, let parts, let last): .parts(op: op, parts, last: last)
        case .tileState(let op, let state): .tileState(op: op, state)
        case .checkpointed(let op, let tile, let checksum): .checkpointed(op: op, tile: tile, checksum: checksum)
        case .halted(let op): .halted(op: op)
        case .snapshotted(let op): .snapshotted(op: op)
        case .leaving: .leaving
        case .heartbeat(let progress): .heartbeat(progress)
        case .failure(let reason): .failure(reason: reason)
        case .presenterHello: .presenterHello
        case .presenterRequest(let op, let request): .presenterRequest(op: op, request)
        }
    }
}

/// What workers send each other, on a worker's halo port.
package enum HaloMessage: LaneMessage {
    /// A strip, and the epoch of the assignment it was sent under (`Assignment.epoch`).
    case halo(HaloStrip, epoch: UInt64)
    /// A copy of one of the sender's tiles, kept for it by its buddy.
    case snapshotCopy(TileParts)
    /// A shard's cells near this worker's shard, before a stretch.
    case bands(Bands)

    package static var lane: Lane { .halo }

    package init?(_ message: Message) {
        switch message {
        case .halo(let strip, let epoch): self = .halo(strip, epoch: epoch)
        case .snapshotCopy(let copy): self = .snapshotCopy(copy)
        case .bands(let bands): self = .bands(bands)
        default: return nil
        }
    }

    package var message: Message {
        switch self {
        case .halo(let strip, let epoch): .halo(strip, epoch: epoch)
        case .snapshotCopy(let copy): .snapshotCopy(copy)
        case .bands(let bands): .bands(bands)
        }
    }
}

/// What the coordinator sends a presenter process it serves.
package enum ToPresenter: LaneMessage {
    case presenterWelcome(PresenterWelcome)
    case presenterReply(op: UInt64, PresenterReply)
    case heartbeat(RunProgress)
    case abort(reason: String)
    case refused(reason: String)

    package static var lane: Lane { .toPresenter }

    package init?(_ message: Message) {
        switch message {
        case .presenterWelcome(let welcome): self = .presenterWelcome(welcome)
        case .presenterReply(let op, let reply): self = .presenterReply(op: op, reply)
        case .heartbeat(let progress): self = .heartbeat(progress)
        case .abort(let reason): self = .abort(reason: reason)
        case .refused(let reason): self = .refused(reason: reason)
        default: return nil
        }
    }

    package var message: Message {
        switch self {
        case .presenterWelcome(let welcome): .presenterWelcome(welcome)
        case .presenterReply(let op, let reply): .presenterReply(op: op, reply)
        case .heartbeat(let progress): .heartbeat(progress)
        case .abort(let reason): .abort(reason: reason)
        case .refused(let reason): .refused(reason: reason)
        }
    }
}

/// What viewers send the process that serves them.
package enum FromViewer: LaneMessage {
    /// The viewport a viewer wants its next frame of.
    case view(Viewport)
    /// The viewer is leaving.
    case detach
    case command(ViewerCommand)

    package static var lane: Lane { .fromViewer }

    package init?(_ message: Message) {
        switch message {
        case .view(let viewport): self = .view(viewport)
        case .detach: self = .detach
        case .command(let command): self = .command(command)
        default: return nil
        }
    }

    package var message: Message {
        switch self {
        case .view(let viewport): .view(viewport)
        case .detach: .detach
        case .command(let command): .command(command)
        }
    }
}

/// What a viewer hears: frames.
package enum ToViewer: LaneMessage {
    case frame(Frame)

    package static var lane: Lane { .toViewer }

    package init?(_ message: Message) {
        guard case .frame(let frame) = message else { return nil }
        self = .frame(frame)
    }

    package var message: Message {
        switch self {
        case .frame(let frame): .frame(frame)
        }
    }
}
