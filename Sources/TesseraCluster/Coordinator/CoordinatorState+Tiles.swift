import TesseraCore
import TesseraWire

/// Where tiles live and how they get there: dealing, moving, snapshots and rollbacks,
/// and the assignments that tell each worker.
extension CoordinatorState {
    /// Whether worker `index` may be given tiles: proven, staying, and not gone.
    package func isActive(_ index: Int) -> Bool {
        members[index].proven && !members[index].leaving && !members[index].gone
    }

    /// Whether `moves` may be made (see `checkMoves`).
    package func canMove(_ moves: [TileID: Int]) -> Bool { (try? checkMoves(moves)) != nil }

    /// Refuses moves of tiles that do not exist, to workers that may not take them, or
    /// that would leave a staying worker without a tile it had.
    func checkMoves(_ moves: [TileID: Int]) throws {
        var counts = members.map { _ in 0 }
        for owner in owners { counts[owner] += 1 }
        for (tile, to) in moves {
            guard plan.tiling.tiles.contains(tile) else { throw TesseraError("there is no tile \(tile) to move") }
            guard members.indices.contains(to), isActive(to) else { throw TesseraError("worker \(to) cannot take tile \(tile)") }
            counts[owner(of: tile)] -= 1
            counts[to] += 1
        }
        if let idle = counts.indices.first(where: { counts[$0] == 0 && !members[$0].tiles.isEmpty && !members[$0].leaving }) {
            throw TesseraError("moving those tiles would leave \(describe(idle)) without one")
        }
    }

    /// Worker `index`, holding no tile, is out of the run: nothing waits for it any more.
    mutating func forget(_ index: Int) -> [Effect] {
        members[index].gone = true
        return prepared(by: index) ?? []
    }

    /// Worker `index` needs no more waiting for while tiles are built (it is ready, or
    /// out of the run); nil when nothing waited for it. Once none is left, the request
    /// completes, or the run can start.
    mutating func prepared(by index: Int) -> [Effect]? {
        guard case .prepare(let answer)? = operation?.kind, operation?.take(member: index, op: 0) == true else { return nil }
        guard operation!.isGathered else { return [] }
        if let answer { return complete(answer) }
        operation = nil
        phase = .idle
        return [.prepared] + (presenter.map { $0.welcomed } == false ? welcomePresenter() : [])
    }

    /// Drops the workers that are gone, and tells those that asked to leave and hold no
    /// tile any more to go: worker numbers close up. Only between operations.
    mutating func compact() -> [Effect] {
        var effects: [Effect] = []
        // A leaving shard host's cells were read before its shard was dealt again.
        for index in members.indices where members[index].leaving && members[index].tiles.isEmpty {
            let what = members[index].shard == nil ? "handed off its tiles" : "gave its shard's cells to the others"
            effects += [.send(.shutdown, to: members[index].peer), .log("\(describe(index)) \(what) and left")]
            members[index].gone = true
        }
        let kept = members.indices.filter { !members[$0].gone }
        guard kept.count < members.count else { return effects }
        for member in members where member.gone { departed.insert(member.hello.pid) }
        var number = Array(repeating: -1, count: members.count)
        for (new, old) in kept.enumerated() { number[old] = new }
        owners = owners.map { number[$0] }
        members = kept.map { members[$0] }
        return effects
    }

    /// The tiles of workers that asked to leave, each to the staying worker with the
    /// fewest tiles so far: what must move before anything else.
    package var departures: [TileID: Int] {
        var counts = members.map(\.tiles.count), moves: [TileID: Int] = [:]
        let staying = members.indices.filter(isActive)
        guard !staying.isEmpty else { return [:] }
        for index in members.indices where members[index].leaving {
            for tile in members[index].tiles {
                let to = staying.min { counts[$0] < counts[$1] }!
                moves[tile] = to
                counts[to] += 1
            }
        }
        return moves
    }

    /// Every moving tile is in hand: each worker learns the new hosts, and each new host
    /// gets its tiles. The run goes on once every worker linked its tiles again.
    mutating func rehome(_ moves: [TileID: Int], _ states: [TileID: TileState]) -> [Effect] {
        for (tile, to) in moves {
            let from = owner(of: tile)
            owners[tile.row * plan.tiling.columns + tile.column] = to
            members[from].tiles.removeAll { $0 == tile }
            members[to].tiles.append(tile)
            members[to].tiles.sort()
            members[to].report.populations[tile] = members[from].report.populations.removeValue(forKey: tile)
            members[from].report.tileSeconds[tile] = nil
        }
        var effects = compact()
        let told = members.indices.filter { members[$0].proven }
        operation = Operation(op: 0, kind: .prepare(answer: .moved), members: Set(told))
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for index in told {
            effects.append(.send(.assign(assignment(of: index, start: .goesOn, endpoints: endpoints)), to: members[index].peer))
        }
        // By tile owner, not by the moves' worker numbers: those may have closed up.
        for tile in moves.keys.sorted() {
            effects.append(.send(.tileState(op: 0, states[tile]!), to: members[owner(of: tile)].peer))
        }
        return effects
    }

    /// Asks every worker that hosts tiles to snapshot them, and to send copies to the
    /// next such worker in a ring (its buddy). With fewer than two hosts there is nobody
    /// to keep a copy, and nothing is taken.
    mutating func takeSnapshot(op: UInt64) -> [Effect] {
        let hosts = members.indices.filter { !members[$0].tiles.isEmpty && !members[$0].gone }
        guard hosts.count >= 2 else { return [.completed(.snapshotted)] }
        let endpoints = members.map(\.hello.endpoint)
        let endpoint = { (index: Int) in endpoints[index] }
        var holders: [TileID: String] = [:], buddies: [String: String] = [:]
        var effects: [Effect] = []
        for (position, index) in hosts.enumerated() {
            let buddy = hosts[(position + 1) % hosts.count], before = hosts[(position + hosts.count - 1) % hosts.count]
            for tile in members[index].tiles { holders[tile] = endpoint(index) }
            buddies[endpoint(index)] = endpoint(buddy)
            let order = SnapshotOrder(generation: generation, buddy: endpoint(buddy), keepsFor: endpoint(before),
                                      keeps: members[before].tiles, retains: memorySnapshot?.generation)
            effects.append(.send(.snapshot(op: op, order), to: members[index].peer))
        }
        operation = Operation(op: op, kind: .snapshot(taking: MemorySnapshot(generation: generation, holders: holders, buddies: buddies)),
                              members: Set(hosts))
        phase = .busy
        return effects
    }

    /// Where a run that lost a worker rolls back to, best first.
    package enum RollBack: Sendable, Equatable {
        /// The in-memory snapshot, which every tile's holder or its buddy still has.
        case memorySnapshot(generation: UInt64)
        /// The present plan's start: the tiles are not the run's first any more, so
        /// neither the run's start nor a checkpoint of the first tiles stands in for them.
        case presentPlan
        /// The newest complete checkpoint on disk (`checkpoints`: the run writes them),
        /// else the run's start, which is as exact.
        case checkpointElseStart
        case runStart
    }

    /// Where a run that lost a worker now rolls back to.
    package func rollBack(checkpoints: Bool) -> RollBack {
        if let snapshot = memorySnapshot, restorePlan() != nil { return .memorySnapshot(generation: snapshot.generation) }
        if replanned { return .presentPlan }
        return checkpoints ? .checkpointElseStart : .runStart
    }

    /// Where each tile of the last snapshot can be rebuilt: on the worker that took it,
    /// or on its buddy if that one is gone; nil if both are.
    package func restorePlan() -> [TileID: String]? {
        guard let snapshot = memorySnapshot else { return nil }
        let present = Set(members.filter { !$0.gone && $0.proven }.map(\.hello.endpoint))
        var hosts: [TileID: String] = [:]
        for (tile, holder) in snapshot.holders {
            if present.contains(holder) {
                hosts[tile] = holder
            } else if let buddy = snapshot.buddies[holder], present.contains(buddy) {
                hosts[tile] = buddy
            } else {
                return nil
            }
        }
        return hosts
    }

    /// Rolls every tile back to the last snapshot where `restorePlan` says it can be
    /// rebuilt: each worker builds its tiles from memory, with no cells on the wire.
    mutating func restore() throws -> [Effect] {
        guard let snapshot = memorySnapshot, let hosts = restorePlan() else {
            throw TesseraError("no in-memory snapshot survives the workers lost")
        }
        var effects = compact()
        let index = Dictionary(members.indices.map { (members[$0].hello.endpoint, $0) }, uniquingKeysWith: { a, _ in a })
        deal(plan.tiling.tiles.map { index[hosts[$0]!]! })
        generation = snapshot.generation
        let told = members.indices.filter { members[$0].proven && !members[$0].gone }
        operation = Operation(op: 0, kind: .prepare(answer: .replanned), members: Set(told))
        phase = .busy
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for member in told {
            effects.append(.send(.assign(assignment(of: member, start: .restored, endpoints: endpoints)), to: members[member].peer))
        }
        return effects
    }

    /// Makes `owners` (worker per tile, in `plan.tiling.tiles` order) the hosts, with
    /// every member's tiles and reports started afresh: what they reported was of the
    /// tiles before.
    mutating func deal(_ owners: [Int]) {
        dealNothing()
        self.owners = owners
        for (i, tile) in plan.tiling.tiles.enumerated() { members[owners[i]].tiles.append(tile) }
    }

    /// No worker holds anything, and what they reported is forgotten.
    private mutating func dealNothing() {
        owners = []
        for index in members.indices {
            members[index].tiles = []
            members[index].shard = nil
            members[index].report.shard = nil
            members[index].report.populations = [:]
            members[index].report.tileSeconds = [:]
        }
    }

    /// Gives each worker its tiles of `plan`, and their cells when the plan cuts them.
    mutating func assign(answer: Answer?) -> [Effect] {
        if let shards = plan.shards { return dealShards(shards, answer: answer) }
        var effects: [Effect] = []
        let active = members.indices.filter(isActive)
        operation = Operation(op: 0, kind: .prepare(answer: answer), members: Set(active))
        deal(plan.owners(workers: active.count).map { active[$0] })
        let endpoints = members.map(\.hello.endpoint)
        epoch += 1
        for index in active {
            let rects = members[index].tiles.map(plan.tiling.rect(of:))
            // Each worker gets the pattern parts on its own tiles, and paints them.
            let overlays = plan.overlays.filter { o in rects.contains { !o.isEmpty(in: $0) } }
            let start = plan.cells == nil ? Assignment.Start.painted(soup: plan.soup, overlays: overlays) : .loaded
            effects.append(.send(.assign(assignment(of: index, start: start, endpoints: endpoints)), to: members[index].peer))
            for tile in members[index].tiles {
                let rect = plan.tiling.rect(of: tile)
                if let cells = plan.cells {
                    let grid = TileCells(tile: tile, generation: plan.generation, cells: cells(rect), states: plan.states?(rect))
                    members[index].report.populations[tile] = grid.cells.population
                    effects.append(.send(.load(op: 0, grid), to: members[index].peer))
                } else if plan.soup == nil {
                    // Known now, from the pattern alone; the workers report after each advance.
                    members[index].report.populations[tile] = overlays.reduce(0) { $0 + $1.population(in: rect) }
                }
            }
        }
        return effects
    }

    /// Why the shards should be dealt again before the next stretch: a shard host asked
    /// to leave, or a worker joined (it takes a share, unless `balancing` is off); nil
    /// while they stay as they are.
    package func shardsToDealAgain(balancing: Bool) -> String? {
        guard plan.shards != nil, phase == .idle, lostWhileIdle == nil else { return nil }
        if let leaver = members.indices.first(where: { members[$0].leaving && members[$0].shard != nil && !members[$0].gone }) {
            return "\(describe(leaver)) asked to leave"
        }
        guard balancing, let joiner = members.indices.first(where: { isActive($0) && members[$0].shard == nil }) else { return nil }
        return "\(describe(joiner)) joined"
    }

    /// Gives each active worker a shard of the sparse plane `shards`: a range of the
    /// Morton order of its live tiles (`ShardMap.splitting`), with the cells on them.
    mutating func dealShards(_ shards: ShardPlan, answer: Answer?) -> [Effect] {
        let active = members.indices.filter(isActive)
        operation = Operation(op: 0, kind: .prepare(answer: answer), members: Set(active))
        dealNothing()
        let (map, tiles) = shards.split(into: active.count)
        shardMap = map
        let endpoints = active.map { members[$0].hello.endpoint }
        epoch += 1
        return active.enumerated().flatMap { shard, index in
            members[index].shard = shard
            // In chunks, the first with the assignment: the heartbeats behind each are heard in time.
            let chunks = ShardAssignment.chunks(of: tiles[shard])
            let given = ShardAssignment(shard: shard, map: map, rule: plan.rule, board: shards.board, depth: shards.depth,
                                        generation: generation, endpoints: endpoints, epoch: epoch, haloToken: haloToken,
                                        parts: Array(chunks[0]), partCount: tiles[shard].count)
            let rest = chunks.dropFirst().map { Effect.send(.shardCells(Array($0)), to: members[index].peer) }
            return [Effect.send(.shard(given), to: members[index].peer)] + rest
        }
    }

    /// Worker `index`'s part of the plan in force, at the generation the run is at, under
    /// the present epoch.
    func assignment(of index: Int, start: Assignment.Start, endpoints: [String]) -> Assignment {
        Assignment(worker: index, tiling: plan.tiling, rule: plan.rule, halo: plan.halo, generation: generation, start: start,
                   endpoints: endpoints, owners: owners, epoch: epoch, haloToken: haloToken)
    }

    mutating func complete(_ answer: Answer) -> [Effect] {
        operation = nil
        phase = .idle
        return [.completed(answer)]
    }
}
