import Foundation
import Testing
import TesseraCore
@testable import TesseraWire

/// What a member or a bug can send, scripted on real sockets against real processes:
/// each socket takes only the kinds meant for it, from the peers it expects, and
/// anything else is refused with a log line and changes nothing. Each test here is
/// one defect a hostile probe found (see the closing note of issue 9).
@Suite(.serialized) struct WireDefenceTests {
    /// A coordinator running acorn on a plane, and two workers started by hand.
    struct Cluster {
        let coordinator: RunningTessera
        let workers: [RunningTessera]
        let endpoint: String
        let output: URL
        let generations: Int
        let size: String

        init(generations: Int = 3000, size: String = "600x400", extra: [String] = [], workerExtra: [String] = [],
             strangerFirst: ((String) throws -> Void)? = nil) throws {
            let dir = try Harness.temporaryDirectory()
            output = dir.appendingPathComponent("out.rle")
            (self.generations, self.size) = (generations, size)
            coordinator = try RunningTessera(["coordinator", "acorn", "--size", size, "--topology", "plane",
                                              "--generations", "\(generations)", "--workers", "2", "--tiles", "2x2",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path] + extra)
            endpoint = try coordinator.workerEndpoint()
            try strangerFirst?(endpoint)
            let endpoint = self.endpoint
            workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint] + workerExtra) }
        }

        /// A worker's halo port, found in the kernel's socket table.
        func haloEndpoint(of worker: Int) throws -> String {
            let pid = workers[worker].pid
            let port = try Processes.poll(timeout: 30, "worker \(worker)'s halo port") { Processes.listeningPorts(pid).first }
            return "tcp://127.0.0.1:\(port)"
        }

        /// The run finished, every worker left, and the board is Golly's.
        func expectFinishedLikeGolly(_ comment: Comment? = nil) throws {
            #expect(coordinator.wait(timeout: 120) == 0, "\(coordinator.errorText)")
            for worker in workers { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
            let input = output.deletingLastPathComponent().appendingPathComponent("acorn.rle")
            let (w, h) = (size.split(separator: "x")[0], size.split(separator: "x")[1])
            try "x = 7, y = 3, rule = B3/S23:P\(w),\(h)\nbo$3bo$2o2b3o!\n".write(to: input, atomically: true, encoding: .utf8)
            #expect(try Harness.golly(input, generations: generations) == Harness.cells(ofPatternFile: output), comment)
        }
    }

    /// Before: a `tileCells` at a worker's halo port hung the run forever (heartbeats kept
    /// coming, so no timeout fired); a shutdown, an abort, a start or a halo strip for a
    /// past generation each failed the whole run. A stranger has no halo token, so none of
    /// it is even read: a few lines say so (`HaloImpostorTests`).
    @Test func strayMessagesAtAWorkersHaloPortChangeNothing() throws {
        let cluster = try Cluster()
        let stranger = try StrangePeer(connectingTo: try cluster.haloEndpoint(of: 0))
        let tile = TileID(column: 0, row: 0), grid = BitGrid(width: 300, height: 200)
        for message: Message in [
            .cells(op: 1, TileCells(tile: tile, generation: 0, cells: grid)),
            .load(op: 1, TileCells(tile: tile, generation: 0, cells: grid)),
            .shutdown, .abort(reason: "a stranger says so"), .start(op: 1, generations: 5),
            .heartbeat(RunProgress(generation: 1)),
            .halo(HaloStrip(tile: tile, side: .east, generation: 0, cells: BitGrid(width: 8, height: 200), previous: BitGrid(width: 8, height: 200)), epoch: 1),
            .halo(HaloStrip(tile: tile, side: .north, generation: 1, cells: BitGrid(width: 3, height: 3), previous: BitGrid(width: 3, height: 3)), epoch: 1),
            .halo(HaloStrip(tile: TileID(column: 1, row: 1), side: .north, generation: 0, cells: BitGrid(width: 300, height: 8), previous: BitGrid(width: 300, height: 8)), epoch: 1),
        ] {
            try stranger.send(message)
        }
        try cluster.expectFinishedLikeGolly()
        let log = cluster.workers[0].errorText
        #expect(log.contains("refused a halo message from a peer without this run's halo token"), "\(log)")
        #expect(!log.contains("refused a halo strip") && !log.contains("does not belong"), "\(log)")
    }

    /// Before: one `presenterHello` failed a run that serves no presenter, 5 s later.
    @Test func aPresenterHelloToARunWithoutOneChangesNothing() throws {
        let cluster = try Cluster(extra: ["--silence", "1"])
        let stranger = try StrangePeer(connectingTo: cluster.endpoint)
        try stranger.send(.presenterHello)
        guard case .refused(let reason)? = try stranger.receive(on: .toPresenter, timeout: 10) else {
            Issue.record("no refusal")
            return
        }
        #expect(reason.contains("--external-presenter"))
        Thread.sleep(forTimeInterval: 1.5)  // past the silence limit: the stranger must not count as a lost presenter
        try cluster.expectFinishedLikeGolly()
    }

    /// Before: one hello from a stranger took a worker's place; the run then waited for
    /// that worker forever, or failed.
    @Test func aFakeHelloTakesNoWorkersPlace() throws {
        var stranger: StrangePeer?
        let cluster = try Cluster(generations: 300) { endpoint in
            stranger = try StrangePeer(connectingTo: endpoint)
            try stranger!.send(.hello(Hello(pid: 4242, endpoint: "tcp://127.0.0.1:9", host: "nowhere")))
        }
        try cluster.expectFinishedLikeGolly()
        #expect(cluster.coordinator.outputText.contains("acorn: 300 generations"))
        guard case .refused? = try stranger?.receive(on: .toWorker, timeout: 5) else {
            Issue.record("the stranger was not turned away")
            return
        }
    }

    /// Before: after the coordinator died, a stranger's heartbeats on a worker's halo
    /// port kept it alive for ever.
    @Test func heartbeatsFromAStrangerKeepNoOrphanAlive() throws {
        let cluster = try Cluster(generations: 100_000_000, size: "1024x1024", workerExtra: ["--silence", "1"])
        let halo = try cluster.haloEndpoint(of: 0)
        _ = try Processes.poll(timeout: 30, "the run to start") { Processes.cpuSeconds(cluster.workers[0].pid) > 0.2 ? true : nil }
        kill(cluster.coordinator.pid, SIGKILL)
        let stranger = try StrangePeer(connectingTo: halo)
        let deadline = Date().addingTimeInterval(10)
        while Processes.alive(cluster.workers[0].pid) && Date() < deadline {
            try stranger.send(.heartbeat(RunProgress(generation: 1)))
            usleep(100_000)
        }
        #expect(cluster.workers[0].wait(timeout: 1) == 2, "the worker left: \(cluster.workers[0].errorText)")
        #expect(cluster.workers[0].errorText.contains("went silent"))
        _ = cluster.workers[1].wait(timeout: 10)
    }
}

/// Viewers' messages against a run that serves them.
@Suite(.serialized) struct ViewerDefenceTests {
    func servingRun() throws -> (RunningTessera, String, [Int32]) {
        let run = try RunningTessera(["run", "--soup", "0.3", "--size", "512x512", "--generations", "100000000000",
                                      "--workers", "2", "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try run.viewerEndpoint()
        let workers = try run.workerPids()
        return (run, endpoint, workers)
    }

    /// Before: a viewport near ±2^63 crashed every worker on arithmetic overflow.
    @Test func aViewportAtTheEdgeOfIntCrashesNothing() throws {
        let (run, endpoint, workers) = try servingRun()
        let stranger = try StrangePeer(connectingTo: endpoint)
        var edge = Wire.encode(.view(Viewport(x: 0, y: 0, cellsPerDot: 1, width: 16, height: 16)))
        edge.replaceSubrange(12..<20, with: [0x06, 0, 0, 0, 0, 0, 0, 0x80])  // x = -2^63 + 6
        try stranger.send(bytes: edge)
        edge.replaceSubrange(12..<20, with: [0xFA, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])  // x = 2^63 - 6
        try stranger.send(bytes: edge)
        let far = Viewport(x: Viewport.maxCoordinate, y: -Viewport.maxCoordinate, cellsPerDot: Viewport.maxCellsPerDot,
                           width: Viewport.maxDots, height: 4)
        let frames = try ScriptedViewer.watch(endpoint, frames: 2, viewport: far)
        #expect(frames.count == 2 && frames.allSatisfy { $0.dots.population == 0 })
        #expect(try ScriptedViewer.watch(endpoint, frames: 1, viewport: Viewport(x: 0, y: 0, cellsPerDot: 1, width: 512, height: 512)).count == 1)
        for pid in workers { #expect(Processes.alive(pid), "worker \(pid) died") }
        #expect(run.errorText.contains("implausible viewport"), "\(run.errorText)")
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
    }

    /// Before: each unread request for a huge viewport grew the coordinator by 32 MiB.
    @Test func unreadRequestsForHugeViewportsKeepMemoryFlat() throws {
        let (run, endpoint, _) = try servingRun()
        _ = try ScriptedViewer.watch(endpoint, frames: 2, viewport: Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64))
        let before = PresenterTests.residentKiB(run.pid)
        let greedy = try StrangePeer(connectingTo: endpoint, reading: false)
        // The largest frame there is, and one beyond it: 16384 dots a side (32 MiB).
        var beyond = Wire.encode(.view(Viewport(x: 0, y: 0, cellsPerDot: 1, width: 1, height: 1)))
        beyond.replaceSubrange(44..<52, with: [0, 0x40, 0, 0, 0, 0, 0, 0])
        beyond.replaceSubrange(36..<44, with: [0, 0x40, 0, 0, 0, 0, 0, 0])
        let largest = Viewport(x: 0, y: 0, cellsPerDot: 1, width: Viewport.maxDots, height: Viewport.maxDots)
        for _ in 0..<50 {
            try greedy.send(.view(largest))
            try greedy.send(bytes: beyond)
            usleep(20_000)
        }
        Thread.sleep(forTimeInterval: 1)
        let after = PresenterTests.residentKiB(run.pid)
        #expect(after - before < 64 << 10, "the coordinator grew from \(before) KiB to \(after) KiB")
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }

    /// Before: one task per message, so a viewer's `view` then its detach could apply in
    /// reverse and leave it attached, sent frames for ever.
    @Test func viewersThatLeaveGetNoMoreFrames() throws {
        let (run, endpoint, _) = try servingRun()
        let viewers = try (0..<40).map { _ in try StrangePeer(connectingTo: endpoint) }
        let view = Viewport(x: 0, y: 0, cellsPerDot: 8, width: 64, height: 64)
        for _ in 0..<5 {
            for viewer in viewers {
                try viewer.send(.view(view))
                try viewer.send(.detach)
            }
        }
        // Frames for requests before the last detach may still be on their way.
        Thread.sleep(forTimeInterval: 1)
        for viewer in viewers { while try viewer.receive(on: .toViewer, timeout: 0) != nil {} }
        Thread.sleep(forTimeInterval: 1)
        let stillFed = try viewers.filter { try $0.receive(on: .toViewer, timeout: 0) != nil }.count
        #expect(stillFed == 0, "\(stillFed) of 40 viewers got frames after they left")
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }
}
