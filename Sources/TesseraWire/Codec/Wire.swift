import FoundationEssentials
import TesseraCore

/// The binary format: a 12-byte little-endian header, then the kind's payload.
///
/// | bytes | field |
/// |---|---|
/// | 0–3 | magic `TSRA` |
/// | 4–5 | protocol version |
/// | 6–7 | message kind |
/// | 8–11 | payload length |
package enum Wire {
    package static let magic: [UInt8] = Array("TSRA".utf8)
    /// 2: operation numbers in every request and answer, lanes, the presenter's own messages.
    /// 3: the unbounded plane's windows. 4: tiles that move, and each tile's compute time.
    /// 5: in-memory snapshots kept by buddies. 6: large patterns as tiles' parts.
    /// 7: halo strips name the assignment they were sent under; `collect` asks for a
    /// rectangle; snapshot copies are a tile's live parts. 8: assignments carry the run's
    /// halo token (`HaloToken`), which every halo connection presents. 9: `stays`, the
    /// answer to a worker that asked to leave and cannot. 10: frames carry their dots'
    /// states. 11: a viewer's `toggleCell` carries the state it sets. 12: an assignment
    /// says how its tiles start in one field (`Assignment.Start`). 13: `bands` between the
    /// shards of a sparse plane. 14: shards on workers (`shard`, `shardCells`, `readParts`, `parts`, a
    /// shard's figures in `done`, bands under an epoch). 15: `shardFrame`, a shard's dots of a frame.
    /// 16: halo pieces and moved tiles as layers of cells; overlays and collected cells
    /// with their states; a rule file's rule as its tree.
    package static let version: UInt16 = 17
    package static let headerSize = 12
    /// The largest payload accepted: a 2^15 × 2^15-cell tile and then some.
    package static let maxPayload = 1 << 30

    package enum Kind: UInt16, CaseIterable, Sendable {
        case hello = 1, assign, load, ready, loaded, start, done, frameRequest, frameTile, collect, cells
        case heartbeat, failure, shutdown, abort, refused
        case halo
        case presenterHello, presenterWelcome, presenterRequest, presenterReply
        case view, detach, command, frame
        case handOff, tileState, leaving, checkpoint, checkpointed, halt, halted
        case snapshot, snapshotted, snapshotCopy
        case stays
        case bands
        case shard, readParts, parts, shardCells, shardFrame

        /// The lanes this kind may travel on.
        package var lanes: Set<Lane> {
            switch self {
            case .hello, .ready, .loaded, .done, .frameTile, .cells, .failure, .leaving, .checkpointed, .halted, .snapshotted,
                 .parts, .shardFrame:
                [.toCoordinator]
            case .assign, .load, .start, .frameRequest, .collect, .shutdown, .handOff, .checkpoint, .halt, .snapshot, .stays,
                 .shard, .readParts, .shardCells:
                [.toWorker]
            case .tileState: [.toWorker, .toCoordinator]
            case .heartbeat: [.toCoordinator, .toWorker, .toPresenter]
            case .abort, .refused: [.toWorker, .toPresenter]
            case .halo, .snapshotCopy, .bands: [.halo]
            case .presenterHello, .presenterRequest: [.toCoordinator]
            case .presenterWelcome, .presenterReply: [.toPresenter]
            case .view, .detach, .command: [.fromViewer]
            case .frame: [.toViewer]
            }
        }
    }

    package static func encode(_ message: Message) -> [UInt8] {
        // The header first, its length patched in at the end: a tile's megabytes are
        // copied once, not again behind a header.
        var w = WireWriter()
        w.bytes.append(contentsOf: magic)
        w.u16(version)
        w.u16(message.kind.rawValue)
        w.u32(0)
        switch message {
        case .hello(let hello): hello.encode(to: &w)
        case .assign(let assignment): assignment.encode(to: &w)
        case .shard(let assignment): assignment.encode(to: &w)
        case .readParts(let op): w.u64(op)
        case .shardCells(let parts): w.parts(parts)
        case .parts(let op, let parts, let last):
            w.u64(op)
            w.parts(parts)
            w.bool(last)
        case .load(let op, let cells), .cells(let op, let cells):
            w.u64(op)
            cells.encode(to: &w)
        case .ready, .shutdown, .presenterHello, .detach, .leaving: break
        case .loaded(let op, let tile):
            w.u64(op)
            tile.encode(to: &w)
        case .start(let op, let generations):
            w.u64(op)
            w.u64(generations)
        case .done(let op, let report):
            w.u64(op)
            report.encode(to: &w)
        case .frameRequest(let op, let viewport, let clip):
            w.u64(op)
            viewport.encode(to: &w)
            w.bool(clip != nil)
            if let clip { for value in [clip.x, clip.y, clip.width, clip.height] { w.int(value) } }
        case .frameTile(let op, let part):
            w.u64(op)
            part.encode(to: &w)
        case .shardFrame(let op, let dots):
            w.u64(op)
            w.grid(dots)
        case .collect(let op, let area):
            w.u64(op)
            for value in [area.x, area.y, area.width, area.height] { w.int(value) }
        case .handOff(let op, let tiles):
            w.u64(op)
            w.tiles(tiles)
        case .tileState(let op, let state):
            w.u64(op)
            state.encode(to: &w)
        case .checkpoint(let op, let folder):
            w.u64(op)
            w.string(folder)
        case .halt(let op), .halted(let op), .snapshotted(let op):
            w.u64(op)
        case .snapshot(let op, let order):
            w.u64(op)
            order.encode(to: &w)
        case .snapshotCopy(let cells): cells.encode(to: &w)
        case .bands(let bands): bands.encode(to: &w)
        case .checkpointed(let op, let tile, let checksum):
            w.u64(op)
            tile.encode(to: &w)
            w.u64(checksum)
        case .heartbeat(let progress): progress.encode(to: &w)
        case .failure(let reason), .abort(let reason), .refused(let reason), .stays(let reason):
            w.string(String(decoding: reason.utf8.prefix(4096), as: UTF8.self))
        case .halo(let strip, let epoch):
            w.u64(epoch)
            strip.encode(to: &w)
        case .presenterWelcome(let welcome): welcome.encode(to: &w)
        case .presenterRequest(let op, let request):
            w.u64(op)
            request.encode(to: &w)
        case .presenterReply(let op, let reply):
            w.u64(op)
            reply.encode(to: &w)
        case .view(let viewport): viewport.encode(to: &w)
        case .command(let command): command.encode(to: &w)
        case .frame(let frame): frame.encode(to: &w)
        }
        withUnsafeBytes(of: UInt32(w.bytes.count - headerSize).littleEndian) { w.bytes.replaceSubrange(8..<12, with: $0) }
        return w.bytes
    }

    /// Decodes one message that arrived on `lane`, refusing anything malformed, and any
    /// kind that does not belong there, with a `TesseraError` that says what.
    package static func decode(_ bytes: [UInt8], on lane: Lane) throws -> Message {
        guard bytes.count >= headerSize else {
            throw TesseraError("truncated message: \(bytes.count) bytes, shorter than the \(headerSize)-byte header")
        }
        guard Array(bytes[0..<4]) == magic else { throw TesseraError("not a Tessera message (bad magic)") }
        var header = WireReader(bytes, from: 4)
        let peerVersion = try header.u16()
        guard peerVersion == version else {
            throw TesseraError(
                "peer speaks protocol version \(peerVersion), this tessera speaks \(version)",
                fix: "run the same tessera build on every machine")
        }
        let rawKind = try header.u16()
        guard let kind = Kind(rawValue: rawKind) else { throw TesseraError("unknown message kind \(rawKind)") }
        guard kind.lanes.contains(lane) else {
            throw TesseraError("a \(kind) message does not belong on \(lane.rawValue)")
        }
        let length = Int(try header.u32())
        guard length <= maxPayload else { throw TesseraError("oversized message: payload of \(length) bytes") }
        guard bytes.count == headerSize + length else {
            throw TesseraError("truncated or oversized message: header says \(length) payload bytes, got \(bytes.count - headerSize)")
        }
        var r = WireReader(bytes, from: headerSize)
        let message: Message
        switch kind {
        case .hello: message = .hello(try Hello(from: &r))
        case .assign: message = .assign(try Assignment(from: &r))
        case .shard: message = .shard(try ShardAssignment(from: &r))
        case .readParts: message = .readParts(op: try r.u64())
        case .shardCells: message = .shardCells(try r.parts(at: -(1 << 62)...(1 << 62), "part"))
        case .parts: message = .parts(op: try r.u64(), try r.parts(at: -(1 << 62)...(1 << 62), "part"), last: try r.bool())
        case .load: message = .load(op: try r.u64(), try TileCells(from: &r))
        case .ready: message = .ready
        case .loaded: message = .loaded(op: try r.u64(), tile: try TileID(from: &r))
        case .start: message = .start(op: try r.u64(), generations: try r.u64())
        case .done: message = .done(op: try r.u64(), try WorkerReport(from: &r))
        case .frameRequest:
            let (op, viewport) = (try r.u64(), try Viewport(from: &r))
            let side = BoardShape.maxSide
            let clip = try r.bool()
                ? TileRect(x: try r.int(in: 0...side, "clip left"), y: try r.int(in: 0...side, "clip top"),
                           width: try r.int(in: 0...side, "clip width"), height: try r.int(in: 0...side, "clip height"))
                : nil
            message = .frameRequest(op: op, viewport, clip: clip)
        case .frameTile: message = .frameTile(op: try r.u64(), try FramePart(from: &r))
        case .shardFrame:
            let (op, dots) = (try r.u64(), try r.grid())
            guard dots.width <= Viewport.maxDots, dots.height <= Viewport.maxDots else {
                throw TesseraError("implausible \(dots.width)x\(dots.height) frame of a shard in message")
            }
            message = .shardFrame(op: op, dots: dots)
        case .collect: message = .collect(op: try r.u64(), area: try r.area())
        case .cells: message = .cells(op: try r.u64(), try TileCells(from: &r))
        case .handOff:
            let op = try r.u64()
            message = .handOff(op: op, tiles: try r.tiles())
        case .tileState: message = .tileState(op: try r.u64(), try TileState(from: &r))
        case .leaving: message = .leaving
        case .halt: message = .halt(op: try r.u64())
        case .halted: message = .halted(op: try r.u64())
        case .snapshot: message = .snapshot(op: try r.u64(), try SnapshotOrder(from: &r))
        case .snapshotted: message = .snapshotted(op: try r.u64())
        case .snapshotCopy: message = .snapshotCopy(try TileParts(from: &r))
        case .bands: message = .bands(try Bands(from: &r))
        case .checkpoint: message = .checkpoint(op: try r.u64(), folder: try r.string(upTo: 4096))
        case .checkpointed: message = .checkpointed(op: try r.u64(), tile: try TileID(from: &r), checksum: try r.u64())
        case .heartbeat: message = .heartbeat(try RunProgress(from: &r))
        case .failure: message = .failure(reason: try r.string())
        case .shutdown: message = .shutdown
        case .abort: message = .abort(reason: try r.string())
        case .refused: message = .refused(reason: try r.string())
        case .stays: message = .stays(reason: try r.string())
        case .halo:
            let epoch = try r.u64()
            message = .halo(try HaloStrip(from: &r), epoch: epoch)
        case .presenterHello: message = .presenterHello
        case .presenterWelcome: message = .presenterWelcome(try PresenterWelcome(from: &r))
        case .presenterRequest: message = .presenterRequest(op: try r.u64(), try PresenterRequest(from: &r))
        case .presenterReply: message = .presenterReply(op: try r.u64(), try PresenterReply(from: &r))
        case .view: message = .view(try Viewport(from: &r))
        case .detach: message = .detach
        case .command: message = .command(try ViewerCommand(from: &r))
        case .frame: message = .frame(try Frame(from: &r))
        }
        guard r.remaining == 0 else { throw TesseraError("\(kind) message has \(r.remaining) unexpected trailing bytes") }
        return message
    }

    /// Decodes one message of `T`'s lane, refusing as `decode(_:on:)` does.
    package static func decode<T: LaneMessage>(_ bytes: [UInt8], as type: T.Type) throws -> T {
        let message = try decode(bytes, on: T.lane)
        // `Kind.lanes` and the lane types agree (a test holds them to it): never nil.
        guard let typed = T(message) else { throw TesseraError("a \(message.kind) message does not belong on \(T.lane.rawValue)") }
        return typed
    }

    /// Decodes a message from a peer, or logs why it was refused (a stranger or a broken
    /// peer must never bring `role` down; a flood of them is counted: `logRefusal`) and
    /// returns nil.
    package static func decodeOrLog<T: LaneMessage>(_ bytes: [UInt8], as type: T.Type, role: String) -> T? {
        do {
            return try decode(bytes, as: type)
        } catch {
            logRefusal("refused a message: \(error)", at: T.lane.rawValue, as: role)
            return nil
        }
    }

    /// One line on stderr, `tessera ROLE: …`: what a process says about its peers.
    package static func log(_ role: String, _ line: String) {
        Files.writeToStandardError("tessera \(role): \(line)\n")
    }
}

extension Message {
    package var kind: Wire.Kind {
        switch self {
        case .hello: .hello
        case .assign: .assign
        case .load: .load
        case .ready: .ready
        case .loaded: .loaded
        case .start: .start
        case .done: .done
        case .frameRequest: .frameRequest
        case .frameTile: .frameTile
        case .collect: .collect
        case .cells: .cells
        case .heartbeat: .heartbeat
        case .failure: .failure
        case .shutdown: .shutdown
        case .abort: .abort
        case .refused: .refused
        case .halo: .halo
        case .presenterHello: .presenterHello
        case .presenterWelcome: .presenterWelcome
        case .presenterRequest: .presenterRequest
        case .presenterReply: .presenterReply
        case .view: .view
        case .detach: .detach
        case .command: .command
        case .frame: .frame
        case .handOff: .handOff
        case .tileState: .tileState
        case .leaving: .leaving
        case .halt: .halt
        case .halted: .halted
        case .checkpoint: .checkpoint
        case .checkpointed: .checkpointed
        case .snapshot: .snapshot
        case .snapshotted: .snapshotted
        case .snapshotCopy: .snapshotCopy
        case .bands: .bands
        case .stays: .stays
        case .shard: .shard
        case .readParts: .readParts
        case .parts: .parts
        case .shardCells: .shardCells
        case .shardFrame: .shardFrame
        }
    }
}
