import FoundationEssentials
import TesseraCore
import TesseraWire

/// Drives a live run for its viewers: advances the cluster batch by batch at the speed
/// they choose, and between batches — when every tile is at the same generation —
/// answers each viewer's frame request with the board reduced to its viewport.
///
/// Latest frame wins: a viewer holds at most one request, answered once, at most 30
/// times a second, so a slow viewer skips frames and nothing queues. Every change to
/// the live state happens in this actor, and viewers' messages are applied in the
/// order they came, by one loop.
package actor Presenter {
    /// Seconds between generations, on a log scale; 0 runs as fast as the cluster goes.
    package static let delays: [Double] = [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3]
    static let frameInterval = 1.0 / 30
    /// Boards up to this many bits of cells (a bit a cell for two states, a plane a bit
    /// for more) keep value snapshots for rewind.
    static let snapshotLimit = 1 << 26
    /// Viewers kept at once; a new one beyond this replaces the one heard from least recently.
    static let maxViewers = 64
    /// Board changes waiting for the next batch; more are dropped with a note.
    static let maxActions = 64

    /// Board-changing things viewers ask for, done between batches.
    private enum Action {
        case nextPattern, toggleCell(x: Int, y: Int, state: Int), save(viewer: [UInt8]), rewind
    }

    private struct Viewer {
        var pending: Viewport?
        var lastSent = ContinuousClock.now - .seconds(1)
        var lastHeard = ContinuousClock.now
        var note = ""
    }

    private let universe: any Universe
    /// The socket viewers attach to; none where nothing may attach.
    private let viewerSocket: MessagePump?
    private let patterns: [@Sendable (TileRect) -> BitGrid]
    private let save: @Sendable (StateGrid, UInt64) throws -> String
    private var viewers: [PeerID: Viewer] = [:]
    private var actions: [Action] = []
    private var paused: Bool
    private var delayIndex: Int
    private var steps = 0
    private var batch: UInt64 = 1
    private var stopAt: UInt64?
    private var quit = false
    private var patternIndex = 0
    private var snapshots: [(generation: UInt64, board: StateGrid)] = []
    private var lastSnapshot = ContinuousClock.now - .seconds(10)
    private var rateSample = (generation: UInt64(0), time: ContinuousClock.now)
    private var generationsPerSecond = 0.0
    /// Resolved when something happens; a wake-up while the loop is busy makes its next sleep return at once.
    private var wake = Completion<Void>()
    private var started = false

    /// - Parameters:
    ///   - patterns: starting boards the `p` key cycles through.
    ///   - save: writes a board (its cells in their states) at a generation and says where.
    ///   - stopAt: the generation to stop at, if any; otherwise the run goes on until `stop()`.
    package init(universe: any Universe, viewers: MessagePump?, paused: Bool = false, delay: Double = 0,
                stopAt: UInt64? = nil, patterns: [@Sendable (TileRect) -> BitGrid] = [],
                save: @escaping @Sendable (StateGrid, UInt64) throws -> String) {
        (self.universe, viewerSocket) = (universe, viewers)
        self.paused = paused
        delayIndex = Self.delays.firstIndex { $0 >= delay } ?? Self.delays.count - 1
        self.stopAt = stopAt
        self.patterns = patterns
        self.save = save
    }

    /// Runs until `stop()` or the `stopAt` generation, reading viewers' messages in a
    /// child task meanwhile.
    package func run() async throws {
        guard !started else { throw TesseraError("the presenter is already running") }
        started = true
        let inbox = viewerSocket?.inbox ?? AsyncStream { $0.finish() }
        var services = ServiceGroup()
        services.add {
            for await incoming in inbox {
                guard let message = Wire.decodeOrLog(incoming.bytes, as: FromViewer.self, role: "presenter") else { continue }
                await self.receive(message, from: incoming.from)
            }
        }
        try await services.run { try await drive() }
    }

    private func drive() async throws {
        rateSample = (await universe.generation, .now)
        var lastAdvance = ContinuousClock.now - .seconds(10)
        while !quit {
            // A paused run steps nothing that would fail: look whether it ended (a
            // signal, a lost worker, its task cancelled) each time the loop comes round.
            try Task.checkCancellation()
            if let failure = await universe.failure { throw failure }
            try await performActions()
            let generation = await universe.generation
            if let stopAt, generation >= stopAt { break }
            let running = !paused || steps > 0
            // With a delay, a generation is due `delay` after the last one; anything that
            // wakes the loop earlier (a frame request, a key) is served without stepping.
            let due = paused || delay == 0 || ContinuousClock.now - lastAdvance >= .milliseconds(Int(delay * 1000))
            if running && due {
                var count = steps > 0 || delay > 0 ? 1 : batch
                if let stopAt { count = min(count, stopAt - generation) }
                if paused { steps -= 1 }
                let started = ContinuousClock.now
                lastAdvance = started
                try await universe.advance(count)
                let seconds = (ContinuousClock.now - started).seconds
                if delay == 0 && !paused {
                    // Batches of about one frame's time: fast runs, smooth frames.
                    batch = max(1, min(1 << 16, UInt64(Double(count) * Self.frameInterval / max(seconds, 1e-5))))
                }
                try await measureAndSnapshot()
            }
            try await serveFrames(rateLimited: running && delay < Self.frameInterval)
            if !running {
                await sleep(0.25)
            } else if delay > 0 && !paused {
                let wait = delay - (ContinuousClock.now - lastAdvance).seconds
                if wait > 0 { await sleep(wait) }
            }
        }
        try await serveFrames(rateLimited: false)
    }

    /// Ends `run()` after the batch in progress.
    package func stop() {
        quit = true
        wakeUp()
    }

    private var delay: Double { Self.delays[delayIndex] }

    private func receive(_ message: FromViewer, from identity: PeerID) {
        if message != .detach { admit(identity) }
        switch message {
        case .view(let viewport):
            viewers[identity]?.pending = viewport
        case .detach:
            viewers[identity] = nil
        case .command(let command):
            viewers[identity]?.note = ""
            switch command {
            case .togglePause:
                paused.toggle()
                steps = 0
            case .step: if paused { steps += 1 }
            case .faster: delayIndex = max(0, delayIndex - 1)
            case .slower: delayIndex = min(Self.delays.count - 1, delayIndex + 1)
            case .nextPattern, .toggleCell, .save, .rewind:
                guard universe.isEditable else {
                    viewers[identity]?.note = "editing, patterns, saving and rewind need a bounded board of dense tiles, or --workers 0 (not the unbounded plane or shards)"
                    break
                }
                switch command {
                case .nextPattern: enqueue(.nextPattern, for: identity)
                case .toggleCell(let x, let y, let state):
                    guard state < universe.stateCount else {
                        viewers[identity]?.note = "state \(state) is past this rule's \(universe.stateCount) states"
                        break
                    }
                    enqueue(.toggleCell(x: x, y: y, state: state), for: identity)
                case .save: enqueue(.save(viewer: identity), for: identity)
                default: enqueue(.rewind, for: identity)
                }
            }
        }
        wakeUp()
    }

    private func enqueue(_ action: Action, for identity: PeerID) {
        guard actions.count < Self.maxActions else {
            viewers[identity]?.note = "busy: too many changes waiting, try again"
            return
        }
        actions.append(action)
    }

    /// Keeps a record of `identity`, making room for it if there are too many viewers.
    private func admit(_ identity: PeerID) {
        if viewers[identity] == nil, viewers.count >= Self.maxViewers,
           let oldest = viewers.min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key {
            viewers[oldest] = nil
        }
        viewers[identity, default: Viewer()].lastHeard = .now
    }

    /// Sleeps until woken, or `seconds` at most.
    private func sleep(_ seconds: Double?) async {
        guard !quit else { return }
        let wake = self.wake
        if let seconds {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await wake.value() }
                group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
                await group.next()
                group.cancelAll()
            }
        } else {
            try? await wake.value()
        }
        // Whatever woke it has been seen by now: the loop looks at everything next.
        self.wake = Completion()
    }

    private func wakeUp() { wake.succeed() }

    private func measureAndSnapshot() async throws {
        let now = ContinuousClock.now, generation = await universe.generation
        let elapsed = (now - rateSample.time).seconds
        if elapsed >= 0.5 {
            generationsPerSecond = Double(generation - rateSample.generation) / elapsed
            rateSample = (generation, now)
        }
        let board = await universe.board
        // In doubles: a board's sides go up to 2^31, the unbounded plane's live cells' box to 2^63.
        let bits = Double(board.width) * Double(board.height) * Double(StateGrid.planes(for: universe.stateCount))
        if universe.isEditable, bits <= Double(Self.snapshotLimit), now - lastSnapshot >= .seconds(1) {
            snapshots.append((generation, try await universe.collectStates()))
            if snapshots.count > 5 { snapshots.removeFirst() }
            lastSnapshot = now
        }
    }

    private func performActions() async throws {
        while !actions.isEmpty {
            let action = actions.removeFirst()
            let board = await universe.board
            switch action {
            case .nextPattern:
                guard !patterns.isEmpty else { continue }
                patternIndex = (patternIndex + 1) % patterns.count
                try await universe.load(generation: 0, cells: patterns[patternIndex])
                snapshots.removeAll()
            case .toggleCell(let x, let y, let state):
                guard (0..<board.width).contains(x), (0..<board.height).contains(y) else { continue }
                var board = try await universe.collectStates()
                board[x, y] = board[x, y] == state ? 0 : state
                try await universe.load(generation: await universe.generation, states: board)
            case .save(let viewer):
                let board = try await universe.collectStates()
                let note: String
                do { note = "saved \(try save(board, await universe.generation))" } catch { note = "\(error)" }
                viewers[viewer]?.note = note
            case .rewind:
                let now = await universe.generation
                while let last = snapshots.last, last.generation >= now { snapshots.removeLast() }
                guard let snapshot = snapshots.popLast() else { continue }
                try await universe.load(generation: snapshot.generation, states: snapshot.board)
            }
            rateSample = (await universe.generation, .now)
        }
    }

    private func serveFrames(rateLimited: Bool) async throws {
        let now = ContinuousClock.now
        for (identity, viewer) in viewers {
            guard let viewport = viewer.pending else { continue }
            if rateLimited && (now - viewer.lastSent).seconds < Self.frameInterval { continue }
            let (dots, states) = try await universe.frameAndStates(viewport)
            // It may have detached while the frame was drawn.
            guard viewers[identity] != nil else { continue }
            let board = await universe.board
            var frame = Frame(
                generation: await universe.generation, population: await universe.population,
                generationsPerSecond: paused ? 0 : generationsPerSecond,
                // In doubles: groups far apart on the unbounded plane span 10^12 cells a side.
                cellUpdatesPerSecond: paused ? 0 : generationsPerSecond * Double(board.width) * Double(board.height),
                workers: universe.workerCount, tiles: await universe.tiles, paused: paused, delay: delay,
                board: board, viewport: viewport, dots: dots, note: viewers[identity]?.note ?? "")
            if let states { (frame.states, frame.stateCount) = states }
            viewerSocket?.send(.frame(frame), to: .viewer(identity))
            // A newer request may have come in while this frame was drawn: keep it.
            if viewers[identity]?.pending == viewport { viewers[identity]?.pending = nil }
            viewers[identity]?.lastSent = now
        }
    }
}
