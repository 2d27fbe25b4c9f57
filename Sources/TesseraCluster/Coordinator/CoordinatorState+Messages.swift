import TesseraCore
import TesseraWire

/// What the coordinator does with each message, by who sent it: a stranger (a hello, a
/// presenter), a worker (answers to the operation in flight, liveness, leaving) or the
/// presenter process.
extension CoordinatorState {
    // MARK: Messages

    /// Takes a message from `peer`, which arrived at `now`.
    package mutating func receive(_ message: ToCoordinator, from peer: PeerID, now: ContinuousClock.Instant) -> [Effect] {
        guard phase != .finished else { return [] }
        if let index = members.firstIndex(where: { $0.peer == peer }) {
            members[index].lastHeard = now
            return fromMember(index, message)
        }
        if let presenter, presenter.peer == peer {
            self.presenter!.lastHeard = now
            return fromPresenter(message)
        }
        return fromStranger(message, peer: peer, now: now)
    }

    mutating func fromStranger(_ message: ToCoordinator, peer: PeerID, now: ContinuousClock.Instant) -> [Effect] {
        switch message {
        case .hello(let hello):
            guard phase != .finished else { return [] }
            guard members.filter({ !$0.proven }).count < Self.maxUnproven, members.count < maxWorkers else {
                return [.refused("refused a hello from pid \(hello.pid) on \(hello.host): too many unproven workers")]
            }
            guard !members.contains(where: { $0.hello.endpoint == hello.endpoint }) else {
                return [.send(.refused(reason: "another worker already has the endpoint \(hello.endpoint)"), to: peer),
                        .refused("refused worker pid \(hello.pid) on \(hello.host): another worker already has \(hello.endpoint)")]
            }
            let holders = members.indices.filter(isActive).count
            members.append(Member(peer: peer, hello: hello, lastHeard: now))
            guard phase != .gathering else { return [] }
            if plan.shards != nil {
                return [.log("worker pid \(hello.pid) on \(hello.host) joins the run: it gets a shard when the shards are next dealt (with --no-balance it stays idle)")]
            }
            // Tiles move whole: with one each already, a newcomer has none to take until
            // the coordinator cuts the board again (`Coordinator.cutTilesForJoiners`).
            guard plan.tiling.tiles.count > holders else {
                return [.log("worker pid \(hello.pid) on \(hello.host) joins the run: its \(plan.tiling.tiles.count) tiles are one per worker already, so the board is cut again for it after this stretch (with --no-balance it stays idle)")]
            }
            return [.log("worker pid \(hello.pid) on \(hello.host) joins the run: it gets tiles when tiles next move")]
        case .presenterHello:
            guard settings.servesPresenter else {
                return [.send(.refused(reason: "this coordinator serves no presenter: start it with --external-presenter"), to: peer),
                        .refused("refused a presenter: this run was not started with --external-presenter")]
            }
            guard presenter == nil else {
                return [.send(.refused(reason: "another presenter already drives this run"), to: peer),
                        .refused("refused a second presenter")]
            }
            presenter = (peer, now, false)
            return phase == .gathering || phase == .preparing ? [] : welcomePresenter()
        case .heartbeat:
            // A worker's pump starts beating before its hello arrives: not worth a line.
            return []
        default:
            return [.refused("refused a \(message.kind) message from an unknown peer")]
        }
    }

    mutating func fromMember(_ index: Int, _ message: ToCoordinator) -> [Effect] {
        switch message {
        case .heartbeat(let progress):
            members[index].progress = progress
            guard !members[index].proven else { return [] }
            members[index].proven = true
            return phase == .gathering ? assignIfGathered() : []
        case .ready:
            return prepared(by: index) ?? [.log("ignored an unexpected 'ready' from \(describe(index))")]
        case .done(let op, _) where { if case .halt? = operation?.kind, operation?.op == op { true } else { false } }():
            // It finished before the halt reached it: as good as stopped.
            return stopped(index)
        case .halted(let op):
            guard case .halt? = operation?.kind, operation?.op == op else { return stray(message, from: index) }
            return stopped(index)
        case .done(let op, let report):
            return advanced(by: index, op: op, report)
        case .frameTile(let op, let part):
            return framePart(from: index, op: op, part)
        case .shardFrame(let op, let dots):
            return shardFrame(from: index, op: op, dots)
        case .cells(let op, let part):
            return cellsPart(from: index, op: op, part)
        case .parts(let op, let parts, let last):
            guard case .readParts? = operation?.kind, operation?.op == op, operation?.members.contains(index) == true else {
                return stray(message, from: index)
            }
            operation!.parts += parts
            guard last else { return [] }
            _ = operation!.take(member: index, op: op)
            guard operation!.isGathered else { return [] }
            return complete(.parts(operation!.parts))
        case .loaded(let op, let tile):
            guard case .load(let at)? = operation?.kind, members[index].tiles.contains(tile),
                  operation?.take(tile: tile, op: op) == true else {
                return stray(message, from: index)
            }
            guard operation!.isGathered else { return [] }
            generation = at
            return complete(.loaded)
        case .tileState(let op, let state):
            return handedOff(by: index, op: op, state)
        case .checkpointed(let op, let tile, let checksum):
            guard case .checkpoint? = operation?.kind, members[index].tiles.contains(tile),
                  operation?.take(tile: tile, op: op) == true else {
                return stray(message, from: index)
            }
            operation!.sums[tile] = checksum
            guard operation!.isGathered else { return [] }
            return complete(.checkpointed(operation!.sums))
        case .snapshotted(let op):
            guard case .snapshot(let taking)? = operation?.kind, operation?.take(member: index, op: op) == true else {
                return stray(message, from: index)
            }
            guard operation!.isGathered else { return [] }
            memorySnapshot = taking
            return complete(.snapshotted)
        case .leaving:
            return leaving(index)
        case .failure(let reason):
            return fail("\(describe(index)): \(reason)")
        case .hello, .presenterHello, .presenterRequest:
            return [.refused("refused a \(message.kind) message from \(describe(index))")]
        }
    }

    /// A worker's tiles ran the advance in flight.
    private mutating func advanced(by index: Int, op: UInt64, _ report: WorkerReport) -> [Effect] {
        guard case .advance(let generations)? = operation?.kind, operation?.take(member: index, op: op) == true else {
            return stray(.done(op: op, report), from: index)
        }
        members[index].report = report
        guard operation!.isGathered else { return [] }
        generation += generations
        return complete(.advanced)
    }

    /// One tile's dots of the frame in flight, drawn into it in place.
    private mutating func framePart(from index: Int, op: UInt64, _ part: FramePart) -> [Effect] {
        guard case .frame(let viewport)? = operation?.kind, members[index].tiles.contains(part.tile),
              operation?.take(tile: part.tile, op: op) == true else {
            return stray(.frameTile(op: op, part), from: index)
        }
        guard part.x + part.dots.width <= viewport.width, part.y + part.dots.height <= viewport.height else {
            return fail("\(describe(index)) sent \(part.dots.width)x\(part.dots.height) dots at (\(part.x),\(part.y)) for a \(viewport.width)x\(viewport.height) frame")
        }
        operation!.grid!.formUnion(part.dots, atX: part.x, y: part.y)
        if operation!.frameStates != nil, !part.states.isEmpty {
            // Tiles meet under a dot: its lowest state but 0 of theirs.
            let width = viewport.width
            for row in 0..<part.dots.height {
                for column in 0..<part.dots.width {
                    let state = part.states[row * part.dots.width + column], at = (part.y + row) * width + part.x + column
                    if state != 0, operation!.frameStates![at] == 0 || state < operation!.frameStates![at] {
                        operation!.frameStates![at] = state
                    }
                }
            }
        }
        guard operation!.isGathered else { return [] }
        return complete(.frame(operation!.grid!, states: operation!.frameStates))
    }

    /// A shard's dots of the frame in flight, drawn into it in place.
    private mutating func shardFrame(from index: Int, op: UInt64, _ dots: BitGrid) -> [Effect] {
        guard case .frame(let viewport)? = operation?.kind, operation?.take(member: index, op: op) == true else {
            return stray(.shardFrame(op: op, dots: dots), from: index)
        }
        guard dots.width == viewport.width, dots.height == viewport.height else {
            return fail("\(describe(index)) sent \(dots.width)x\(dots.height) dots for a \(viewport.width)x\(viewport.height) frame")
        }
        operation!.grid!.formUnion(dots, atX: 0, y: 0)
        guard operation!.isGathered else { return [] }
        return complete(.frame(operation!.grid!, states: nil))
    }

    /// One tile's part of the read in flight, copied into it in place.
    private mutating func cellsPart(from index: Int, op: UInt64, _ part: TileCells) -> [Effect] {
        guard case .collect(let area)? = operation?.kind, members[index].tiles.contains(part.tile),
              operation?.take(tile: part.tile, op: op) == true else {
            return stray(.cells(op: op, part), from: index)
        }
        guard let inside = plan.tiling.rect(of: part.tile).intersection(area),
              part.cells.width == inside.width, part.cells.height == inside.height else {
            return fail("\(describe(index)) sent cells of tile \(part.tile) that do not fit \(area.width)x\(area.height) cells at (\(area.x),\(area.y))")
        }
        part.cells.copy(into: &operation!.grid!, atX: inside.x - area.x, y: inside.y - area.y)
        if operation!.cellStates != nil {
            guard let states = part.states, states.width == inside.width, states.height == inside.height,
                  states.planes.count <= operation!.cellStates!.planes.count else {
                return fail("\(describe(index)) sent cells of tile \(part.tile) without the states of \(plan.rule)")
            }
            operation!.cellStates!.replace(with: states, atX: inside.x - area.x, y: inside.y - area.y)
        }
        guard operation!.isGathered else { return [] }
        return complete(.cells(operation!.grid!, states: operation!.cellStates))
    }

    /// A moving tile, whole, from the worker that gives it up.
    private mutating func handedOff(by index: Int, op: UInt64, _ state: TileState) -> [Effect] {
        guard case .handOff(let moves)? = operation?.kind, owner(of: state.tile) == index,
              operation?.take(tile: state.tile, op: op) == true else {
            return stray(.tileState(op: op, state), from: index)
        }
        let rect = plan.tiling.rect(of: state.tile)
        guard state.cells.width == rect.width, state.cells.height == rect.height, state.generation == generation else {
            return fail("\(describe(index)) handed off tile \(state.tile) as \(state.cells.width)x\(state.cells.height) cells at generation \(state.generation), expected \(rect.width)x\(rect.height) at \(generation)")
        }
        operation!.states[state.tile] = state
        guard operation!.isGathered else { return [] }
        return rehome(moves, operation!.states)
    }

    /// A worker asked to leave (SIGTERM): at once if it holds no tiles, once they moved
    /// otherwise, and never where no other worker could take them.
    private mutating func leaving(_ index: Int) -> [Effect] {
        guard !members[index].leaving, !members[index].gone else { return [] }
        if phase == .gathering {
            let gone = members.remove(at: index)
            return [.send(.shutdown, to: gone.peer), .log("worker pid \(gone.hello.pid) on \(gone.hello.host) left before the run started")]
        }
        guard !holdsBoard(index) else {
            guard members.indices.contains(where: { $0 != index && isActive($0) }) else {
                return [.send(.stays(reason: "no other worker could take its tiles"), to: members[index].peer),
                        .log("\(describe(index)) asked to leave, but no other worker could take its tiles: it stays")]
            }
            members[index].leaving = true
            let what = members[index].shard == nil ? "its tiles move" : "its shard's cells go"
            return [.log("\(describe(index)) asked to leave: \(what) to the others when the workers next stop")]
        }
        return [.send(.shutdown, to: members[index].peer), .log("\(describe(index)) left")] + forget(index)
    }

    /// An answer for no operation in flight, a tile its sender does not own, or one
    /// already counted.
    func stray(_ message: ToCoordinator, from index: Int) -> [Effect] {
        [.log("ignored a stray \(message.kind) answer from \(describe(index)) (not for the operation in flight, or already counted)")]
    }

    mutating func fromPresenter(_ message: ToCoordinator) -> [Effect] {
        switch message {
        case .heartbeat, .presenterHello:
            return []
        case .presenterRequest(let op, let request):
            guard presenter?.welcomed == true else {
                return [.refused("refused a presenter request before the run was ready")]
            }
            let shape = plan.tiling.shape
            if case .load(_, let board) = request, board.width != shape.width || board.height != shape.height {
                return fail("the presenter sent a \(board.width)x\(board.height) board for the \(shape.width)x\(shape.height) board")
            }
            return [.presenter(op: op, request)]
        default:
            return [.refused("refused a \(message.kind) message from the presenter")]
        }
    }

    mutating func welcomePresenter() -> [Effect] {
        guard let presenter else { return [] }
        self.presenter!.welcomed = true
        let welcome = PresenterWelcome(tiling: plan.tiling, rule: plan.rule, generation: generation,
                                       population: population, workers: members.count)
        return [.send(.presenterWelcome(welcome), to: presenter.peer)]
    }

    /// Once enough workers proved themselves: gives each its tiles.
    mutating func assignIfGathered() -> [Effect] {
        guard members.filter(\.proven).count == awaitedWorkers else { return [] }
        var effects: [Effect] = []
        // Those still unproven are not needed.
        for stray in members where !stray.proven {
            effects.append(.send(.refused(reason: "this run already has its \(awaitedWorkers) workers"), to: stray.peer))
        }
        members.removeAll { !$0.proven }
        phase = .preparing
        return effects + assign(answer: nil)
    }
}
