import TesseraCore
import TesseraWire

/// The passing of time and the ends of things: silent, stuck or late workers, lost
/// ones, and a run that fails, is cancelled or is shut down.
extension CoordinatorState {
    // MARK: Time and events

    /// What the passing of time decides: workers that never came, peers gone silent.
    /// `lastHeard` is when the pump thread last heard a peer (it stamps every message
    /// as it arrives, so a backlog here never makes a live peer look silent).
    package mutating func tick(now: ContinuousClock.Instant, lastHeard: (PeerID) -> ContinuousClock.Instant?) -> [Effect] {
        func silent(_ peer: PeerID, since known: ContinuousClock.Instant) -> Bool {
            now - max(known, lastHeard(peer) ?? known) > settings.silence
        }
        var effects: [Effect] = []
        switch phase {
        case .finished:
            return []
        case .gathering:
            // A peer that said hello and went quiet gives its place back.
            let quiet = members.filter { silent($0.peer, since: $0.lastHeard) }
            for member in quiet {
                effects.append(.log("dropped worker pid \(member.hello.pid) on \(member.hello.host): it went silent before the run started"))
            }
            members.removeAll { member in quiet.contains { $0.peer == member.peer } }
            if now > settings.connectDeadline {
                let proven = members.filter(\.proven).count, missing = awaitedWorkers - proven
                return effects + fail("only \(proven) of \(awaitedWorkers) workers connected in time (\(missing) missing): start them with 'tessera worker --coordinator ENDPOINT', or check the network")
            }
        case .preparing, .idle, .busy:
            if let operation, case .snapshot(let taking) = operation.kind, waited(operation.op, now: now) > Self.snapshotLimit {
                // Every worker still beats, but some copy never came: the run goes on,
                // and the last whole snapshot stays the one to roll back to.
                let late = operation.members.sorted().map(describe).joined(separator: ", ")
                effects.append(.log("the in-memory snapshot of generation \(taking.generation) was not whole after \(Format.duration(Self.snapshotLimit.seconds)) (still waiting for \(late)): going on without it"))
                effects += complete(.snapshotted)
            }
            // Building huge tiles takes as long as it takes; a worker fails the run only
            // when it stops answering (its heartbeats come from its pump thread).
            // One that holds no tile (it joined, or handed its tiles off) just goes.
            for index in members.indices where !holdsBoard(index) && !members[index].gone
                && silent(members[index].peer, since: members[index].lastHeard) {
                effects.append(.log("\(describe(index)) went silent holding no tile: it is out of the run"))
                effects += forget(index)
            }
            if let lost = members.indices.first(where: { !members[$0].gone && silent(members[$0].peer, since: members[$0].lastHeard) }) {
                return effects + lose(lost, "\(describe(lost)) stopped answering (no heartbeat for \(Format.duration(settings.silence.seconds))): it died or the network is down")
            }
            if let stuck = stuckWorker(now: now) {
                let why = "\(describe(stuck)) answered but came no further than generation \(members[stuck].progress.generation) for \(Format.duration(Self.stallLimit.seconds)): a tile of it is stuck"
                // Told to go, so that it leaves no process behind.
                return effects + [.send(.abort(reason: why), to: members[stuck].peer)] + lose(stuck, why)
            }
            if let late = lateWorker(now: now) {
                let why = "\(describe(late.index)) answered but did not finish its part of the \(late.what) in \(Format.duration(late.limit.seconds)): its disk or a tile of it is stuck"
                return effects + [.send(.abort(reason: why), to: members[late.index].peer)] + lose(late.index, why)
            }
        }
        if let presenter, silent(presenter.peer, since: presenter.lastHeard) {
            return effects + fail("the presenter stopped answering (no heartbeat for \(Format.duration(settings.silence.seconds)))")
        }
        let beat = Message.heartbeat(RunProgress(generation: generation))
        effects += members.map { .send(beat, to: $0.peer) }
        if let presenter { effects.append(.send(beat, to: presenter.peer)) }
        return effects
    }

    /// The worker of the advance in flight that has been the slowest, at the same
    /// generation, for longer than `stallLimit`; nil while the advance moves.
    mutating func stuckWorker(now: ContinuousClock.Instant) -> Int? {
        guard case .advance? = operation?.kind,
              let slowest = operation?.members.filter({ !members[$0].gone }).min(by: { members[$0].progress.generation < members[$1].progress.generation })
        else {
            stall = nil
            return nil
        }
        let reached = members[slowest].progress.generation
        guard let stall, stall.generation == reached else {
            stall = (reached, now)
            return nil
        }
        guard now - stall.since > Self.stallLimit else { return nil }
        self.stall = nil
        return slowest
    }

    /// A worker that still owes its part of the checkpoint, frame, read, load or hand-off
    /// in flight after that operation's limit; nil while it is within it.
    mutating func lateWorker(now: ContinuousClock.Instant) -> (index: Int, what: String, limit: Duration)? {
        guard let operation else { return nil }
        let owed: (what: String, limit: Duration)
        switch operation.kind {
        case .checkpoint: owed = ("checkpoint", Self.bulkLimit)
        case .frame: owed = ("frame", Self.stallLimit)
        case .collect, .readParts: owed = ("read of cells", Self.stallLimit)
        case .load: owed = ("load", Self.bulkLimit)
        case .handOff: owed = ("hand-off", Self.stallLimit)
        case .prepare, .advance, .snapshot, .halt: return nil
        }
        guard waited(operation.op, now: now) > owed.limit,
              let late = members.indices.first(where: {
                  !members[$0].gone && (operation.members.contains($0) || !operation.tiles.isDisjoint(with: members[$0].tiles))
              })
        else { return nil }
        return (late, owed.what, owed.limit)
    }

    /// How long operation `op` has waited: since the first tick that saw it (zero at
    /// that tick). Operations are numbered afresh, so a new one starts from zero.
    mutating func waited(_ op: UInt64, now: ContinuousClock.Instant) -> Duration {
        guard let waitingSince, waitingSince.op == op else {
            waitingSince = (op, now)
            return .zero
        }
        return now - waitingSince.since
    }

    /// A worker process this coordinator started ended: `pid` is the worker's own, or
    /// the launch command's when it runs on `host`.
    package mutating func workerExited(pid: Int32, host: String?, how: String) -> [Effect] {
        guard phase != .finished else { return [] }
        if let host { return fail("the worker launched on \(host) (launch command pid \(pid)) \(how)") }
        if departed.contains(UInt32(bitPattern: pid)) { return [] }
        if phase == .gathering { return lostBeforeDealing(pid: UInt32(bitPattern: pid), how: how) }
        if let index = members.firstIndex(where: { $0.hello.pid == UInt32(bitPattern: pid) }) {
            guard !members[index].gone else { return [] }
            guard holdsBoard(index) else {
                return [.log("\(describe(index)), holding no tile, \(how)")] + forget(index)
            }
            return lose(index, "\(describe(index)) \(how)")
        }
        return fail("worker process \(pid) \(how) before it connected")
    }

    /// A message from `peer` could not be read (the refusal was logged): a worker that
    /// sends one is broken, or of another build, and counts as lost at once, rather than
    /// once the run has waited `stallLimit` for what it never sent readably. A
    /// stranger's message is only refused.
    package mutating func unreadable(from peer: PeerID) -> [Effect] {
        guard phase != .finished, let index = members.firstIndex(where: { $0.peer == peer }), !members[index].gone else { return [] }
        let how = "sent a message that could not be read (the line above says why)"
        if phase == .gathering { return lostBeforeDealing(pid: members[index].hello.pid, how: how) }
        guard holdsBoard(index) else { return [.log("\(describe(index)), holding no tile, \(how)")] + forget(index) }
        return lose(index, "\(describe(index)) \(how)")
    }

    /// A worker process started for the run ended before the tiles were dealt (before
    /// or after its hello): with a restart left and another worker to go on with, the
    /// run gathers one worker fewer and deals the tiles to those, made from the plan as
    /// they would have been; else the run fails.
    mutating func lostBeforeDealing(pid: UInt32, how: String) -> [Effect] {
        let index = members.firstIndex { $0.hello.pid == pid }
        let who = index.map { "worker pid \(pid) on \(members[$0].hello.host)" } ?? "worker process \(pid)"
        guard restartsLeft > 0, awaitedWorkers > 1 else {
            return fail("\(who) \(how) \(index == nil ? "before it connected" : "before the run started")")
        }
        restartsLeft -= 1
        awaitedWorkers -= 1
        if let index { members.remove(at: index) }
        let line = Effect.log("\(who) \(how) before the run started: it starts with \(awaitedWorkers) worker\(awaitedWorkers == 1 ? "" : "s") (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
        return [line] + assignIfGathered()
    }

    /// Worker `index` is lost (`why` says how). With restarts left, it is fenced (out of
    /// the run: its messages, and its strips to the others, are refused from now on),
    /// the others stop where they are, and the request in flight answers
    /// `interrupted`, so that the tiles roll back to a snapshot; without, the run fails.
    mutating func lose(_ index: Int, _ why: String) -> [Effect] {
        guard restartsLeft > 0 else { return fail(why) }
        restartsLeft -= 1
        members[index].gone = true
        let line = Effect.log("\(why): rolling back to the last snapshot (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
        switch operation?.kind {
        case .advance?:
            let op = operation!.op
            let others = Set(members.indices.filter { !members[$0].gone && holdsBoard($0) })
            operation = Operation(op: op, kind: .halt(why: why), members: others)
            guard !others.isEmpty else { return [line] + complete(.interrupted(why)) }
            return [line] + others.sorted().map { .send(.halt(op: op), to: members[$0].peer) }
        case .halt(let first)?:
            operation!.members.remove(index)
            return [line] + (operation!.isGathered ? complete(.interrupted(first)) : [])
        case .checkpoint?, .snapshot?:
            // Its folder never gets a manifest, or the snapshot never becomes the
            // newest whole one: it never counts.
            return [line] + complete(.interrupted(why))
        case .collect?, .frame?, .load?, .readParts?:
            // Reads, and a load of every tile: done again once the tiles are back where they were.
            return [line] + complete(.interrupted(why))
        case .handOff?:
            // Every tile is rebuilt from the snapshot anyway: the move is moot.
            lostWhileIdle = lostWhileIdle ?? why
            return [line] + complete(.interrupted(why))
        case .prepare?:
            // The others finish building (their `ready` would be taken for one to a new
            // assignment); then the tiles are dealt again to the workers left, made
            // afresh from the plan, a snapshot or a checkpoint (see `Coordinator.recover`).
            lostWhileIdle = lostWhileIdle ?? why
            let building = Effect.log("\(why) while the tiles were being built: the others finish theirs, then the tiles are dealt again to the workers left (\(restartsLeft) more restart\(restartsLeft == 1 ? "" : "s") allowed)")
            return [building] + forget(index)
        case nil:
            lostWhileIdle = lostWhileIdle ?? why
            return [line]
        }
    }

    /// Worker `index` stopped after a halt.
    mutating func stopped(_ index: Int) -> [Effect] {
        guard case .halt(let why)? = operation?.kind, operation?.members.remove(index) != nil else { return [] }
        guard operation!.isGathered else { return [] }
        return complete(.interrupted(why))
    }

    /// The run rolled back after `lostWhileIdle`.
    package mutating func recovered() { lostWhileIdle = nil }

    /// Stops the run (Ctrl-C, say): workers are told to abort.
    package mutating func cancel(_ reason: String) -> [Effect] { fail(reason) }

    /// Ends the run: workers are told to leave; a request in flight fails.
    package mutating func shutdown() -> [Effect] {
        guard phase != .finished else { return [] }
        let pending = operation != nil
        phase = .finished
        operation = nil
        let error = TesseraError("the run was shut down")
        failure = error
        return members.map { .send(.shutdown, to: $0.peer) } + (pending ? [.failed(error)] : [])
    }

    mutating func fail(_ problem: String) -> [Effect] {
        guard phase != .finished else { return [] }
        phase = .finished
        operation = nil
        let error = TesseraError(problem)
        failure = error
        var effects: [Effect] = members.map { .send(.abort(reason: problem), to: $0.peer) }
        if let presenter { effects.append(.send(.abort(reason: problem), to: presenter.peer)) }
        return effects + [.failed(error)]
    }
}
