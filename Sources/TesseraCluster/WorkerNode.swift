import Foundation
import Synchronization
import TesseraCore
import TesseraTiles
import TesseraWire

/// A worker process: hosts the tile actors the coordinator assigns it, trades halos in
/// memory between its own tiles and over ZeroMQ with other workers' tiles.
public actor WorkerNode {
    /// How a worker's life ended.
    public enum Ending: Sendable, Equatable {
        case shutdown
        case aborted(String)
        case coordinatorLost
    }

    private let pump: MessagePump
    private let progress: ProgressCounter
    private var assignment: Assignment?
    private var waitingCells: [TileID: BitGrid] = [:]
    private var tiles: [TileID: TileActor] = [:]
    private var lastHeard = ContinuousClock.now
    private var ending: CheckedContinuation<Ending, Never>?
    private var ended: Ending?

    private init(pump: MessagePump, progress: ProgressCounter) {
        self.pump = pump
        self.progress = progress
    }

    /// Connects to the coordinator, serves until told to stop, and says why it stopped.
    /// - Parameters:
    ///   - listen: where to bind the halo inbox (`tcp://ADDRESS:*` picks a free port).
    ///   - advertise: the host peers use to reach the inbox.
    ///   - silence: how long the coordinator may stay silent before this worker leaves.
    public static func serve(coordinator: String, listen: String, advertise: String,
                             silence: Duration = .seconds(5)) async throws -> Ending {
        let progress = ProgressCounter()
        let pump = try await MessagePump.start(.worker(coordinator: coordinator, listen: listen)) {
            Wire.encode(.heartbeat(generation: progress.value.load(ordering: .relaxed)))
        }
        let port = try Endpoint.split(pump.boundEndpoint).port
        let node = WorkerNode(pump: pump, progress: progress)
        pump.send(Wire.encode(.hello(Hello(pid: UInt32(getpid()), endpoint: "tcp://\(advertise):\(port)",
                                           host: ProcessInfo.processInfo.hostName))), to: .coordinator)
        return await node.serve(silence: silence)
    }

    private func serve(silence: Duration) async -> Ending {
        let events = pump.events
        let feed = Task {
            for await event in events { self.handle(event.bytes) }
            self.end(.coordinatorLost)
        }
        let watchdog = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                self.checkCoordinator(silence: silence)
            }
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
            if let ended { continuation.resume(returning: ended) } else { ending = continuation }
        }
        watchdog.cancel()
        feed.cancel()
        pump.stop()
        return result
    }

    private func end(_ why: Ending) {
        guard ended == nil else { return }
        ended = why
        ending?.resume(returning: why)
        ending = nil
    }

    private func checkCoordinator(silence: Duration) {
        let heard = max(lastHeard, pump.lastHeard() ?? lastHeard)
        if ContinuousClock.now - heard > silence { end(.coordinatorLost) }
    }

    private func report(_ problem: String) {
        pump.send(Wire.encode(.failure(reason: problem)), to: .coordinator)
    }

    private func handle(_ bytes: [UInt8]) {
        guard let message = Wire.decodeOrLog(bytes, role: "worker") else { return }
        switch message {
        case .heartbeat:
            lastHeard = .now
        case .assign(let assignment):
            lastHeard = .now
            accept(assignment)
        case .tileCells(let tile, let generation, let cells):
            if let actor = tiles[tile] {
                // A new board for a built tile: a pattern change, an edit or a rewind.
                Task {
                    await actor.load(cells, generation: generation)
                    self.pump.send(Wire.encode(.ready), to: .coordinator)
                }
            } else {
                waitingCells[tile] = cells
                buildTilesIfReady()
            }
        case .frameRequest(let viewport):
            let tiles = self.tiles
            Task {
                for (id, tile) in tiles {
                    let part = await tile.dots(in: viewport) ?? (0, 0, BitGrid(width: 0, height: 0))
                    self.pump.send(Wire.encode(.frameTile(tile: id, x: part.x, y: part.y, dots: part.dots)),
                                   to: .coordinator)
                }
            }
        case .start(let generations):
            Task { await self.run(generations: generations) }
        case .halo(let strip):
            guard let tile = tiles[strip.tile] else {
                report("got a halo strip for tile \(strip.tile), which this worker does not host")
                return
            }
            Task {
                do { try await tile.receive(strip) } catch { self.report("\(error)") }
            }
        case .collect(let rows):
            Task { await self.sendCells(rows: rows) }
        case .shutdown:
            end(.shutdown)
        case .abort(let reason):
            for tile in tiles.values { Task { await tile.fail(TesseraError("run aborted: \(reason)")) } }
            end(.aborted(reason))
        case .hello, .ready, .done, .failure, .frameTile, .view, .command, .frame, .presenterHello:
            report("worker got a message meant for a coordinator or a viewer")
        }
    }

    private func accept(_ assignment: Assignment) {
        do {
            try assignment.tiling.validate(halo: assignment.halo)
            try TileCluster.checkMemory(assignment.myTiles, of: assignment.tiling, halo: assignment.halo)
        } catch {
            report("\(error)")
            return
        }
        self.assignment = assignment
        if assignment.cellsMadeByWorkers {
            for tile in assignment.myTiles { waitingCells[tile] = assignment.cells(of: tile) }
        }
        buildTilesIfReady()
    }

    private func buildTilesIfReady() {
        guard let assignment, tiles.isEmpty else { return }
        let mine = assignment.myTiles
        guard mine.allSatisfy({ waitingCells[$0] != nil }) else { return }
        let tiling = assignment.tiling
        for tile in mine {
            let rect = tiling.rect(of: tile)
            let cells = waitingCells.removeValue(forKey: tile)!
            guard cells.width == rect.width, cells.height == rect.height else {
                report("cells for tile \(tile) are \(cells.width)x\(cells.height), expected \(rect.width)x\(rect.height)")
                return
            }
            tiles[tile] = TileActor(id: tile, rect: rect, depth: assignment.halo, rule: assignment.rule,
                                    deadSides: TileCluster.deadSides(of: tile, in: tiling), cells: cells,
                                    generation: assignment.generation)
        }
        let tiles = self.tiles
        Task {
            for (tile, actor) in tiles {
                var links: [Direction: any HaloLink] = [:]
                for side in Direction.allCases {
                    guard let other = tiling.neighbour(of: tile, side) else { continue }
                    let owner = assignment.owner(of: other)
                    links[side] = owner == assignment.worker
                        ? LocalHaloLink(target: tiles[other]!)
                        : RemoteHaloLink(tile: other, pump: pump, endpoint: assignment.endpoints[owner])
                }
                await actor.connect(links)
            }
            pump.send(Wire.encode(.ready), to: .coordinator)
        }
    }

    private func run(generations: UInt64) async {
        let progress = self.progress
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for tile in tiles.values {
                    group.addTask {
                        try await tile.run(generations: generations)
                        progress.value.store(await tile.generation, ordering: .relaxed)
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            report("\(error)")
            return
        }
        var summary = WorkerReport(bytesSent: UInt64(pump.bytesSent))
        for (id, tile) in tiles {
            summary.computeSeconds += await tile.computeSeconds
            summary.waitSeconds += await tile.waitSeconds
            summary.populations[id] = await tile.population
        }
        pump.send(Wire.encode(.done(summary)), to: .coordinator)
    }

    /// Each hosted tile's part of board rows `rows`, tiles outside them saying nothing.
    private func sendCells(rows: Range<Int>) async {
        for (id, tile) in tiles.sorted(by: { $0.key < $1.key }) {
            guard let part = tile.rect.rows(overlapping: rows) else { continue }
            pump.send(Wire.encode(.tileCells(tile: id, generation: await tile.generation, cells: await tile.cells(rows: part))),
                      to: .coordinator)
        }
    }
}

/// The generation a worker last reached, read by its pump's heartbeat thread.
final class ProgressCounter: Sendable {
    let value = Atomic<UInt64>(0)
}
