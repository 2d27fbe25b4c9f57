import ArgumentParser
import Foundation
import Synchronization
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraViewer
import TesseraWire

struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hosts tiles for a coordinator, trading halos directly with other workers.")

    @Option(help: "The coordinator's endpoint, tcp://HOST:PORT.")
    var coordinator: String

    @Option(help: "The address peers reach this worker at. Default: this machine's address on the route to the coordinator.")
    var advertise: String?

    @Option(help: "Where to bind the halo inbox. Default: tcp://ADVERTISE:* (a free port).")
    var listen: String?

    @Option(help: "Exit when this process (the local coordinator) is gone.")
    var parentPid: Int32?

    @Option(help: "A name for log lines.")
    var name: String?

    @Option(help: "Seconds the coordinator may stay silent before this worker leaves.")
    var silence: Double = 5

    func run() async throws {
        _ = try Endpoint.split(coordinator)
        let advertise = try self.advertise ?? Endpoint.localAddress(toward: coordinator)
        let listen = self.listen ?? "tcp://\(advertise):*"
        _ = try Endpoint.split(listen)
        if let parentPid {
            // A local coordinator that dies without a word (SIGKILL) must not leave orphans.
            guard getppid() == parentPid else { Foundation.exit(3) }
            Task.detached {
                while getppid() == parentPid { try? await Task.sleep(for: .milliseconds(100)) }
                Foundation.exit(3)
            }
        }
        let ending = try await WorkerNode.serve(coordinator: coordinator, listen: listen, advertise: advertise,
                                                silence: .milliseconds(Int(silence * 1000)))
        switch ending {
        case .shutdown: return
        case .aborted: Foundation.exit(3)
        case .coordinatorLost:
            throw TesseraError("coordinator \(coordinator) went silent for \(silence) s; worker \(name ?? "") leaving",
                               fix: "check that the coordinator is running and reachable")
        }
    }
}

/// How many workers and how long to wait for them.
struct ClusterOptions: ParsableArguments {
    @Option(help: "Worker processes. Default for run: the number of cores; 0 runs every tile in this process.")
    var workers: Int?

    @Option(help: "Seconds to wait for workers to connect (default 30).")
    var connectTimeout: Double?

    static let configKeys = ["workers", "connect-timeout"]

    mutating func apply(_ config: ConfigFile) throws {
        workers = try workers ?? config.number("workers", as: Int.self)
        connectTimeout = try connectTimeout ?? config.number("connect-timeout", as: Double.self)
    }
}

struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Waits for workers started anywhere ('tessera worker --coordinator …'), then runs on them.")

    @OptionGroup var board: BoardOptions
    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var run: RunOptions

    @Option(help: "Where workers connect: tcp://ADDRESS:PORT (default tcp://127.0.0.1:7470, this machine only).")
    var listen: String?

    @Flag(help: "Let a 'tessera presenter' process, connecting to --listen, drive the run and serve its viewers.")
    var externalPresenter = false

    func run() async throws {
        var (board, cluster, run, listen) = (self.board, self.cluster, self.run, self.listen)
        if let path = board.config {
            let config = try ConfigFile(
                path: path, allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys + ["listen"])
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
            listen = listen ?? config["listen"]
        }
        let endpoint = listen ?? "tcp://127.0.0.1:7470"
        let workers = cluster.workers ?? 1
        guard workers >= 1 else { throw TesseraError("a coordinator needs --workers 1 or more") }
        _ = try Endpoint.split(endpoint)
        try await ClusterRun.execute(board: board, run: run, workers: workers, listen: endpoint, launchLocal: false,
                                     connectTimeout: cluster.connectTimeout ?? 30, externalPresenter: externalPresenter)
    }
}

/// Options every run takes.
struct RunOptions: ParsableArguments {
    @Option(help: "Generations to run. Default 100.")
    var generations: UInt64?

    @Option(help: "Write the final board to this .rle or .cells file (atomically).")
    var output: String?

    @Flag(help: "Print the per-worker report.")
    var report = false

    @Option(help: "Serve live frames to 'tessera view' viewers on this endpoint, e.g. tcp://127.0.0.1:7471.")
    var viewListen: String?

    @Option(help: "Write a PNG of the whole board every --every generations into this folder.")
    var frames: String?

    @Option(help: "Generations between exported frames (default 1).")
    var every: UInt64?

    @Option(help: "Write the frames as an animated GIF.")
    var gif: String?

    static let configKeys = ["generations", "output", "report", "view-listen", "frames", "every", "gif"]

    mutating func apply(_ config: ConfigFile) throws {
        generations = try generations ?? config.number("generations", as: UInt64.self)
        output = output ?? config["output"]
        report = report || config["report"] == "true"
        viewListen = viewListen ?? config["view-listen"]
        frames = frames ?? config["frames"]
        every = try every ?? config.number("every", as: UInt64.self)
        gif = gif ?? config["gif"]
    }
}

enum ClusterRun {
    /// Runs `board` on `workers` worker processes, started here (`launchLocal`) or anywhere.
    /// - Parameter chosen: whether the user gave the worker count; a default one shrinks
    ///   to the number of tiles instead of failing.
    static func execute(board: BoardOptions, run: RunOptions, workers: Int, chosen: Bool = true, listen: String,
                        launchLocal: Bool, connectTimeout: Double, view: Bool = false,
                        externalPresenter: Bool = false) async throws {
        let setup = try board.resolve(defaultTiles: workers)
        let workers = chosen ? workers : min(workers, setup.tiling.columns * setup.tiling.rows)
        try RunPlan.check(workers: workers, tiling: setup.tiling)
        let generations = run.generations ?? 100
        if let output = run.output { try Output.validate(output) }
        try FrameExport.validate(run, generations: generations)
        // The coordinator holds one band of the board at a time, and only to write it.
        let boardBytes = run.output == nil ? 0 : Output.bandRows(width: setup.shape.width) * setup.shape.width / 8
        // Local workers share this machine's memory with the coordinator; remote ones check their own.
        try TileCluster.checkMemory(launchLocal ? setup.tiling.tiles : [], of: setup.tiling, halo: setup.halo,
                                    extraBytes: boardBytes)
        // A pattern up to 16 MiB goes to every worker, which cuts its own tiles from it; a
        // larger one (a board-sized file) is cut here and each tile sent to its owner.
        var cells: (@Sendable (TileRect) -> BitGrid)? = nil, overlay = setup.start.overlay
        if let large = overlay, large.cells.words.count > 2 << 20 {
            overlay = nil
            cells = { @Sendable rect in setup.cells(in: rect) }
        }
        let plan = RunPlan(tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: setup.generation,
                           generations: generations, soup: setup.soup, overlay: overlay, cells: cells)
        if let endpoint = run.viewListen { _ = try Endpoint.split(endpoint) }
        let viewers = view ? "tcp://127.0.0.1:*" : run.viewListen
        let pump = try await MessagePump.start(.coordinator(listen: listen, viewers: viewers))
        defer { pump.stop() }
        let coordinator = Coordinator(pump: pump, workers: workers, plan: plan,
                                      connectTimeout: .milliseconds(Int(connectTimeout * 1000)))
        if let output = run.output {
            await coordinator.beforeShutdown { coordinator in
                let generation = await coordinator.generation
                try await Output.write(to: output, setup: setup, generation: generation) { rows in
                    try await coordinator.collect(rows: rows)
                }
            }
        }
        var local: LocalWorkers? = nil
        if launchLocal {
            local = try LocalWorkers.launch(count: workers, coordinator: pump.boundEndpoint) { pid, _, how in
                Task { await coordinator.workerExited(pid: pid, how: how) }
            }
        } else {
            // Unbuffered, so whoever starts the workers can read the endpoint at once.
            FileHandle.standardOutput.write(Data("tessera coordinator: waiting for \(workers) workers on \(pump.boundEndpoint)\n".utf8))
        }
        let interrupts = Interrupts { signal in Task { await coordinator.cancel("interrupted by \(signal)") } }
        let result: Result<RunOutcome, any Error>
        do {
            if externalPresenter {
                try await coordinator.start()
                FileHandle.standardOutput.write(Data("tessera coordinator: waiting for 'tessera presenter --coordinator \(pump.boundEndpoint)'\n".utf8))
                try await coordinator.serveRemotePresenter()
                result = .success(try await coordinator.finish())
            } else if run.frames != nil || run.gif != nil {
                result = .success(try await FrameExport.record(coordinator, setup: setup, run: run,
                                                               generations: generations))
            } else if let endpoint = pump.viewerEndpoint {
                result = .success(try await present(coordinator, setup: setup, run: run, workers: workers,
                                                    endpoint: endpoint, view: view))
            } else {
                result = .success(try await coordinator.run())
            }
        } catch {
            result = .failure(error)
        }
        await local?.stop()
        interrupts.restore()
        if let signal = interrupts.received { throw Interrupted(signal: signal) }
        let outcome = try result.get()
        Summary.print(setup: setup, generations: outcome.generations ?? generations, seconds: outcome.seconds,
                      population: outcome.population, workers: outcome.workers, detailed: run.report)
    }

    /// A live run: the presenter drives the coordinator and serves viewers on `endpoint`;
    /// with `view`, a viewer in this terminal, whose quitting ends the run. Otherwise it
    /// runs the asked generations at full speed while viewers come and go.
    static func present(_ coordinator: Coordinator, setup: Setup, run: RunOptions, workers: Int, endpoint: String,
                        view: Bool) async throws -> RunOutcome {
        try await coordinator.start()
        let patterns = PatternLibrary.names.compactMap(PatternLibrary.pattern(named:)).map { pattern in
            let overlay = pattern.overlay(on: setup.shape)
            return { @Sendable (rect: TileRect) -> BitGrid in overlay.cells(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
        }
        let presenter = Presenter(
            coordinator: coordinator, delay: view ? 0.03 : 0,
            stopAt: view ? nil : setup.generation + (run.generations ?? 100), patterns: patterns
        ) { board, generation in
            let path = Output.freshPath(stem: "tessera-\(setup.name.split(separator: ".").first ?? "board")-\(generation)")
            try Output.write(board, to: path, setup: setup, generation: generation)
            return FileManager.default.currentDirectoryPath + "/" + path
        }
        await presenter.attach()
        if view {
            let driving = Task { try await presenter.run() }
            let viewing = Task { try await ViewerApp.run(presenter: endpoint) }
            // Whichever ends first ends the other: quitting the viewer, or a failed run.
            let outcome = await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await driving.result; viewing.cancel() }
                group.addTask { _ = await viewing.result; await presenter.stop() }
                await group.waitForAll()
                return (await driving.result, await viewing.result)
            }
            try outcome.0.get()
            try outcome.1.get()
        } else {
            FileHandle.standardOutput.write(Data("tessera: viewers can attach with 'tessera view --connect \(endpoint)'\n".utf8))
            try await presenter.run()
        }
        return try await coordinator.finish()
    }
}

/// A run stopped by SIGINT or SIGTERM; the process exits 128 + the signal number.
struct Interrupted: Error {
    let signal: Int32
}

/// Turns SIGINT and SIGTERM into a call, so a run can stop its workers before exiting.
/// Lives on the stack of one run; not shared.
final class Interrupts {
    private final class Caught: Sendable {
        let signal = Mutex<Int32?>(nil)
    }

    private var sources: [any DispatchSourceSignal] = []
    private let caught = Caught()

    init(_ handler: @escaping @Sendable (String) -> Void) {
        let caught = self.caught
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                caught.signal.withLock { $0 = $0 ?? number }
                handler(name)
            }
            source.resume()
            sources.append(source)
        }
    }

    var received: Int32? { caught.signal.withLock { $0 } }

    func restore() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
