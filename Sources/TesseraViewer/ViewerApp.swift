import FoundationEssentials
import Glibc
import TesseraCore
import TesseraWire

/// `tessera view`: shows a presenter's frames in the terminal and sends the user's keys
/// back as commands. One frame request is out at a time, sent after each frame is
/// drawn, so a slow terminal simply sees fewer frames.
package struct ViewerApp {
    private enum Event { case key(Key), frame(Frame), tick }

    private let pump: MessagePump
    private var viewport: Viewport?
    private var frame: Frame?
    private var cursor: (x: Int, y: Int)? = nil
    /// The state `x` sets in edit mode, where the rule has more than two.
    private var pen = 1
    private var showHelp = false
    private var lastFrameAt = ContinuousClock.now
    private var requestedAt: ContinuousClock.Instant? = nil
    private var note = ""

    private init(pump: MessagePump) { self.pump = pump }

    /// Connects to the presenter at `endpoint` and runs until the user quits, the
    /// terminal goes away, or (with `stopsOnSignals`, when nothing else handles them)
    /// SIGINT, SIGTERM or SIGHUP arrives.
    package static func run(presenter endpoint: String, credentials: Credentials? = nil,
                            stopsOnSignals: Bool = false) async throws {
        try await MessagePump.with(.viewer(presenter: endpoint), credentials: credentials) { pump in
            var app = ViewerApp(pump: pump)
            Terminal.enter()
            defer { Terminal.restore() }
            await app.loop(stopsOnSignals: stopsOnSignals)
            app.send(.detach)
        }
    }

    private var screen: (columns: Int, rows: Int) { Terminal.size }
    /// Dots that fit above the status line.
    private var dotArea: (width: Int, height: Int) { (screen.columns * 2, max(1, screen.rows - 1) * 4) }

    private func send(_ message: Message) { pump.send(message, to: .coordinator) }

    private mutating func request() {
        let area = dotArea
        let view = (viewport ?? Viewport(x: 0, y: 0, cellsPerDot: Viewport.maxCellsPerDot, width: 1, height: 1))
            .resized(width: area.width, height: area.height)
        if viewport != nil { viewport = view }
        send(.view(view))
        requestedAt = .now
    }

    /// Keys, frames and ticks come from child tasks into one stream, taken in order here.
    private mutating func loop(stopsOnSignals: Bool) async {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let frames = pump.control
        var services = ServiceGroup()
        services.add {
            for await key in Keyboard.keys() { continuation.yield(.key(key)) }
            // The terminal is gone (closed window, dropped ssh): nobody is watching.
            continuation.yield(.key(.interrupt))
        }
        services.add {
            for await incoming in frames {
                if case .frame(let frame)? = Wire.decodeOrLog(incoming.bytes, as: ToViewer.self, role: "view") {
                    continuation.yield(.frame(frame))
                }
            }
            // The pump ended the stream: the presenter refused this viewer's handshake.
            continuation.yield(.key(.interrupt))
        }
        services.add {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                continuation.yield(.tick)
            }
        }
        if stopsOnSignals {
            services.onSignals([SIGINT, SIGTERM, SIGHUP]) { _ in continuation.yield(.key(.interrupt)) }
        }
        await services.run {
            request()
            loop: for await event in events {
                switch event {
                case .frame(let frame):
                    if viewport == nil {
                        viewport = fit(frame.board)
                        request()
                        continue
                    }
                    self.frame = frame
                    lastFrameAt = .now
                    if !frame.note.isEmpty { note = frame.note }
                    draw()
                    request()
                case .key(let key):
                    if !handle(key) { break loop }
                    draw()
                case .tick:
                    // A resize, or a presenter that went quiet, shows without waiting for a frame.
                    if let view = viewport, view.width != dotArea.width || view.height != dotArea.height { request() }
                    if let requestedAt, ContinuousClock.now - requestedAt > .seconds(3) { request() }
                    draw()
                }
            }
        }
    }

    private func fit(_ board: (x: Int, y: Int, width: Int, height: Int)) -> Viewport {
        let area = dotArea
        return Viewport.fitting(x: board.x, y: board.y, width: board.width, height: board.height, dots: area.width, rows: area.height)
    }

    /// Applies a key; false means quit.
    private mutating func handle(_ key: Key) -> Bool {
        guard var view = viewport else { return key != .character("q") && key != .interrupt }
        let panX = max(1, view.width / 8) * view.cellsPerDot, panY = max(1, view.height / 8) * view.cellsPerDot
        switch key {
        case .interrupt, .character("q"): return false
        case .character(" "): send(.command(.togglePause))
        case .character("n"): send(.command(.step))
        case .character("+"), .character("="): send(.command(.faster))
        case .character("-"), .character("_"): send(.command(.slower))
        case .character("p"): send(.command(.nextPattern))
        case .character("s"): send(.command(.save))
        case .character("r"): send(.command(.rewind))
        case .character("?"): showHelp.toggle()
        case .character("e"):
            if cursor == nil, frame?.paused == true {
                cursor = (view.width / 2, view.height / 2)
            } else {
                cursor = nil
            }
            if cursor == nil && frame?.paused != true { note = "pause (space) before editing" }
        case .character("x"):
            if let cursor {
                send(.command(.toggleCell(x: view.x + cursor.x * view.cellsPerDot, y: view.y + cursor.y * view.cellsPerDot,
                                          state: pen)))
            }
        case .character("["), .character("]"):
            // The pen goes round the states but 0.
            let states = max(2, frame?.stateCount ?? 2)
            pen = (pen - 1 + (key == .character("]") ? 1 : states - 2)) % (states - 1) + 1
        case .up, .character("k"):
            if let c = cursor { cursor = (c.x, max(0, c.y - 1)) } else { view = view.moved(dy: -panY) }
        case .down, .character("j"):
            if let c = cursor { cursor = (c.x, min(view.height - 1, c.y + 1)) } else { view = view.moved(dy: panY) }
        case .left, .character("h"):
            if let c = cursor { cursor = (max(0, c.x - 1), c.y) } else { view = view.moved(dx: -panX) }
        case .right, .character("l"):
            if let c = cursor { cursor = (min(view.width - 1, c.x + 1), c.y) } else { view = view.moved(dx: panX) }
        case .character("z"), .character("Z"):
            view = view.zoomed(to: key == .character("z") ? view.cellsPerDot / 2 : view.cellsPerDot * 2)
        case .character("0"):
            if let frame { view = fit(frame.board) }
        default:
            return true
        }
        if view != viewport {
            viewport = view
            request()
        }
        return true
    }

    private func draw() {
        let (columns, rows) = screen
        var out = "\u{1B}[H"
        let boardRows = max(1, rows - 1)
        var lines: [String]
        if showHelp {
            lines = Self.help
        } else if let frame {
            lines = Braille.lines(frame.dots, columns: columns, rows: boardRows, cursor: cursor, states: frame.states,
                                  stateCount: frame.stateCount)
        } else {
            lines = ["connecting…"]
        }
        for row in 0..<boardRows {
            out += (row < lines.count ? lines[row] : "") + "\u{1B}[K\r\n"
        }
        out += "\u{1B}[7m" + String(status.prefix(columns)) + "\u{1B}[K\u{1B}[0m"
        Files.writeToStandardOutput(out)
    }

    private var status: String {
        guard let f = frame, let view = viewport else { return " tessera view: waiting for the presenter" }
        let quiet = ContinuousClock.now - lastFrameAt > .seconds(3) && requestedAt != nil
        let delay = f.delay == 0 ? "full speed" : f.delay < 1 ? "\(Int(f.delay * 1000)) ms/gen" : "\(Int(f.delay)) s/gen"
        // What matters most first: a narrow terminal cuts the end of the line.
        var parts = ["gen \(f.generation)", "pop \(f.population)", f.paused ? "PAUSED" : "running", delay]
        if cursor != nil { parts.append(f.stateCount > 2 ? "EDIT x=state \(pen) ([ ] pen)" : "EDIT x=toggle") }
        if quiet { parts.append("no answer from the presenter") }
        if !note.isEmpty { parts.append(note) }
        parts += [
            String(cFormat: "%.0f gen/s", f.generationsPerSecond), Format.rate(f.cellUpdatesPerSecond, decimals: 1) + " cells/s",
            f.workers == 0 ? "in process" : "\(f.workers) workers",
            // No rows: a sparse map's tiles, made where life is.
            f.tiles.rows == 0 ? "\(f.tiles.columns) tiles of 64x64" : "tiles \(f.tiles.columns)x\(f.tiles.rows)",
            "zoom 1:\(view.cellsPerDot)", "? help",
        ]
        return " " + parts.joined(separator: " · ")
    }

    static let help = [
        " tessera view — keys",
        "",
        "  space    pause / resume          n      one generation (paused)",
        "  + / -    faster / slower         0      fit the board (on the plane, its live cells)",
        "  arrows   pan (hjkl too)          z / Z  zoom in / out",
        "  p        next starting pattern   e      edit mode (paused): arrows move, x toggles",
        "                                   [ / ]  the state x sets (rules of more states)",
        "  s        save the board as RLE   r      rewind to an earlier snapshot",
        "  ?        this help               q      quit the viewer",
    ]
}
