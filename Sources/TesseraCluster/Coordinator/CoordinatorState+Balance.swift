import TesseraCore

/// What a long advance does between stretches, decided from the state alone: which tiles
/// move, and whether the board is cut again for workers that joined. The actor measures
/// and carries out; these are tested without processes (`AdvanceScheduleTests`).
extension CoordinatorState {
    /// The tiles to move between stretches: the tiles of workers that asked to leave, and
    /// what `balancing` makes of each tile's `loads` since the last look (measured over
    /// `seconds`; `staying`: tiles that moved lately). Moves that cannot be (a policy's
    /// slip) are dropped: balancing never fails a run.
    package func moves(_ balancing: Balancing, loads: [TileID: Double], seconds: Double, staying: Set<TileID>,
                       random generator: inout SplitMix64) -> [TileID: Int] {
        let owners = Dictionary(uniqueKeysWithValues: plan.tiling.tiles.map { ($0, owner(of: $0)) })
        let takers = members.indices.filter(isActive)
        var moves: [TileID: Int] = [:]
        switch balancing {
        case .off:
            break
        case .greedyRefine(let policy):
            // Loads measured over a few milliseconds are mostly noise, unless a worker
            // that joined waits for tiles.
            guard seconds >= 0.05 || takers.contains(where: { members[$0].tiles.isEmpty }) else { break }
            let tiling = plan.tiling
            moves = policy.moves(loads: loads, owners: owners, workers: takers, staying: staying) { tile in
                Direction.allCases.compactMap { tiling.neighbour(of: tile, $0) }
            }
        case .random:
            moves = Self.randomMoves(owners: owners, workers: takers, using: &generator)
        }
        moves.merge(departures) { $1 }
        return canMove(moves) ? moves : departures
    }

    /// One to three tiles, each to another of `workers`, every worker keeping one.
    static func randomMoves(owners: [TileID: Int], workers: [Int], using generator: inout SplitMix64) -> [TileID: Int] {
        var owner = owners, moves: [TileID: Int] = [:]
        guard workers.count > 1 else { return [:] }
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            var counts: [Int: Int] = [:]
            for w in owner.values { counts[w, default: 0] += 1 }
            let movable = owner.keys.filter { counts[owner[$0]!]! > 1 && moves[$0] == nil }.sorted()
            guard let tile = movable.randomElement(using: &generator) else { break }
            let to = workers.filter { $0 != owner[tile]! }.randomElement(using: &generator)!
            owner[tile] = to
            moves[tile] = to
        }
        return moves.filter { owners[$0.key] != $0.value }
    }

    /// Whether the board is cut again for workers that joined.
    package enum Recut: Equatable {
        /// Tiles for everyone by moves, or nobody waits.
        case none
        /// One tile per active worker (`idle` of them had none).
        case cut(Tiling, idle: Int)
        /// Joiners wait idle: why, as one line.
        case refused(String)
    }

    /// The largest board cut again for joiners (its cells, gathered in the coordinator).
    package static let largestRecut = 256 << 20

    /// Tiles move whole: once every tile has a worker of its own, one that joins could get
    /// none by moves. Then the board is cut again, one tile per active worker, from its
    /// cells at this generation (gathered in the coordinator, so only boards up to
    /// `largestRecut`).
    package func recutForJoiners() -> Recut {
        let active = members.indices.filter(isActive)
        let idle = active.filter { members[$0].tiles.isEmpty }
        let shape = plan.tiling.shape
        guard !idle.isEmpty, plan.tiling.tiles.count <= active.count - idle.count else { return .none }
        let (columns, rows) = RunPlan.defaultTiles(count: active.count, shape: shape)
        let tiling = columns * rows == active.count ? try? Tiling(shape: shape, columns: columns, rows: rows) : nil
        let unfit: String
        if plan.rule.steppedAsStates {
            unfit = "the cells of \(plan.rule) are not gathered and cut again (they have more than two states)"
        } else if let tiling, (try? tiling.validate(halo: plan.halo, reach: plan.rule.reach)) != nil {
            guard CellBuffer.byteCount(width: shape.width, height: shape.height) > Self.largestRecut else {
                return .cut(tiling, idle: idle.count)
            }
            unfit = "the \(shape.width)x\(shape.height) board is too large to gather here and cut again"
        } else {
            unfit = "the \(shape.width)x\(shape.height) board does not cut into \(active.count) tiles of halo \(plan.halo)"
        }
        let who = idle.count == 1 ? "the worker that joined stays" : "\(idle.count) workers that joined stay"
        return .refused("\(who) idle: \(unfit); start the coordinator with --tiles giving more tiles than workers, so that joiners get some")
    }
}

extension CoordinatorState {
    /// The shard hosts' running compute seconds, by member: what `unevenShards` measures
    /// a stretch by.
    package var shardSeconds: [Int: Double] {
        Dictionary(uniqueKeysWithValues: shardHosts.map { ($0, members[$0].report.computeSeconds) })
    }

    /// Whether the shards' compute since `before` (`shardSeconds`) was uneven enough to
    /// deal them again by measured cost: among the shards that hold tiles (a pattern
    /// too small to cut leaves the others empty, and cutting it would not help), the
    /// busiest took over 1.25 times the mean (the others waited a fifth of the stretch
    /// for it), and at least `least` seconds. Then why, and
    /// each shard's cost a tile over the stretch. Nil when a host's seconds went back (a
    /// rollback made it afresh): the stretch was not measured whole.
    package func unevenShards(since before: [Int: Double], least: Double = 0.25) -> (why: String, costs: [Int: Double])? {
        var spent: [(shard: Int, seconds: Double, tiles: Int)] = []
        for (index, seconds) in shardSeconds {
            guard let shard = members[index].shard, let was = before[index], seconds >= was else { return nil }
            let tiles = members[index].report.shard?.tiles ?? 0
            if tiles > 0 { spent.append((shard, seconds - was, tiles)) }
        }
        guard spent.count > 1 else { return nil }
        let mean = spent.reduce(0) { $0 + $1.seconds } / Double(spent.count)
        guard let busiest = spent.max(by: { $0.seconds < $1.seconds }), busiest.seconds > 1.25 * mean, busiest.seconds >= least else {
            return nil
        }
        let loads = spent.sorted { $0.shard < $1.shard }.map { String(cFormat: "%.2f", $0.seconds) }.joined(separator: ", ")
        return ("the shards' loads were uneven (\(loads) s over the last stretch)",
                Dictionary(uniqueKeysWithValues: spent.map { ($0.shard, $0.seconds / Double($0.tiles)) }))
    }
}
