import Foundation
import Testing
import TesseraCore

/// The viewer driven for real in tmux: keys in with send-keys, the screen read back
/// with capture-pane.
@Suite(.serialized) struct ViewerTests {
    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    final class Pane {
        let session = "tessera-test-\(UUID().uuidString.prefix(8))"

        init(_ command: String, columns: Int = 100, rows: Int = 30) throws {
            _ = try tmux(["new-session", "-d", "-s", session, "-x", "\(columns)", "-y", "\(rows)",
                          "SWIFT_BACKTRACE=enable=no \(command); sleep 60"])
        }

        deinit {
            // End what runs in the pane first, so no test leaves a process behind.
            let panePids = ((try? tmux(["list-panes", "-t", session, "-F", "#{pane_pid}"])) ?? "")
                .split(separator: "\n").compactMap { Int32($0) }
            for pid in panePids { Processes.terminateTree(pid) }
            _ = try? tmux(["kill-session", "-t", session])
        }

        @discardableResult
        func tmux(_ arguments: [String]) throws -> String {
            try Harness.spawn(ViewerTests.tmux!, arguments).stdout
        }

        func keys(_ keys: String...) throws { try tmux(["send-keys", "-t", session] + keys) }
        var screen: String { (try? tmux(["capture-pane", "-p", "-t", session])) ?? "" }
        var status: String { screen.split(separator: "\n").last(where: { $0.contains("gen ") }).map(String.init) ?? "" }
        var generation: UInt64? { status.firstMatch(of: /gen (\d+)/).flatMap { UInt64($0.1) } }

        /// Waits for the screen to satisfy `condition` (the terminal offers no event to wait on).
        @discardableResult
        func until<T>(_ what: String, timeout: Double = 30, _ condition: (Pane) -> T?) throws -> T {
            try Processes.poll(timeout: timeout, "\(what); screen:\n\(screen)") { condition(self) }
        }

        /// Lit braille dots on the board part of the screen.
        var dots: Int {
            screen.split(separator: "\n").filter { !$0.contains("gen ") }.reduce(0) { total, line in
                total + line.unicodeScalars.reduce(0) { sum, scalar in
                    (0x2800...0x28FF).contains(scalar.value) ? sum + (scalar.value - 0x2800).nonzeroBitCount : sum
                }
            }
        }
    }

    static var available: Bool { tmux != nil }

    @Test(.enabled(if: available, "tmux is not installed"))
    func pauseStepAndRun() throws {
        let pane = try Pane("\(Harness.tessera.path) run acorn --size 256x256 --view --workers 2")
        let first = try pane.until("the counter to start") { $0.generation }
        try pane.until("the counter to advance") { ($0.generation ?? 0) > first + 5 ? true : nil }
        try pane.keys("Space")
        let paused = try pane.until("PAUSED") { $0.status.contains("PAUSED") ? $0.generation : nil }
        Thread.sleep(forTimeInterval: 0.5)  // time passes; the counter must not move
        #expect(pane.generation == paused)
        try pane.keys("n")
        try pane.until("one step") { $0.generation == paused + 1 ? true : nil }
        try pane.keys("n")
        try pane.until("another step") { $0.generation == paused + 2 ? true : nil }
        try pane.keys("Space")
        try pane.until("running again") { ($0.generation ?? 0) > paused + 5 ? true : nil }
        // Slower on the log scale, down to a generation a second: the counter may not outrun it.
        try pane.keys("-", "-", "-")
        try pane.until("1 s per generation") { $0.status.contains("1 s/gen") ? true : nil }
        let slow = try pane.until("a frame at the slow speed") { $0.generation }
        let started = Date()
        Thread.sleep(forTimeInterval: 2.5)
        let allowed = UInt64(Date().timeIntervalSince(started)) + 2
        #expect((pane.generation ?? .max) - slow <= allowed, "at most one generation a second")
        try pane.keys("+", "+", "+", "+", "+", "+", "+", "+")
        try pane.until("full speed") { $0.status.contains("full speed") ? true : nil }
        try pane.keys("q")
        try pane.until("the viewer to quit and the run to end") { $0.screen.contains("acorn:") ? true : nil }
    }

    /// On a terminal a run shows where it is, and clears the line when it ends.
    @Test(.enabled(if: available, "tmux is not installed"))
    func aRunShowsItsProgressOnATerminal() throws {
        let pane = try Pane("\(Harness.tessera.path) run --soup 0.35 --size 8192x8192 --generations 1500 --workers 2", columns: 160)
        let line = try pane.until("the progress line") { pane in
            pane.screen.split(separator: "\n").first { $0.contains(" of 1500 · ") && $0.contains("cell-updates/s") && $0.contains("ETA") }
        }
        #expect(line.hasPrefix("[") && line.contains("] generation "), "\(line)")
        // The debug build's run takes 3 s alone, and many times that beside the other suites on two CPUs.
        try pane.until("the summary", timeout: 120) { $0.screen.contains("soup: 1500 generations") ? true : nil }
        #expect(!pane.screen.contains("ETA"), "the progress line is cleared at the end: \(pane.screen)")
    }

    /// On workers' tiles, and in this process as a sparse map (a torus of whole tiles).
    @Test(.enabled(if: available, "tmux is not installed"),
          arguments: ["--size 60x40 --tiles 2x2 --workers 2", "--size 128x64 --workers 0"])
    func gliderAcrossFourTilesAlwaysHasFiveCells(layout: String) throws {
        let pane = try Pane("\(Harness.tessera.path) run glider \(layout) --view")
        try pane.until("a frame") { $0.generation }
        try pane.keys("Space")
        var generation = try pane.until("PAUSED") { $0.status.contains("PAUSED") ? $0.generation : nil }
        #expect(pane.status.contains("zoom 1:1"))
        for _ in 0..<16 {
            try pane.keys("n")
            generation += 1
            try pane.until("generation \(generation)") { $0.generation == generation ? true : nil }
            #expect(pane.dots == 5, "generation \(generation)")
        }
        try pane.keys("q")
    }

    /// On workers' tiles, in this process on dense tiles (40x30) and as a sparse map (64x64).
    @Test(.enabled(if: available, "tmux is not installed"),
          arguments: ["--size 40x30 --workers 2", "--size 40x30 --workers 0", "--size 64x64 --workers 0"])
    func editSaveAndRewind(layout: String) throws {
        let dir = try Harness.temporaryDirectory()
        // Wide enough for the status line to hold the saved file's whole path.
        let pane = try Pane("cd \(dir.path) && \(Harness.tessera.path) run blinker \(layout) --view", columns: 220)
        try pane.until("a frame") { $0.generation }
        try pane.until("a few seconds of snapshots") { ($0.generation ?? 0) > 80 ? true : nil }
        try pane.keys("Space")
        let paused = try pane.until("PAUSED") { $0.status.contains("PAUSED") ? $0.generation : nil }
        try pane.keys("r")
        try pane.until("rewind") { ($0.generation ?? .max) < paused ? true : nil }
        try pane.keys("s")
        let before = try pane.until("a save") { $0.status.firstMatch(of: /saved (\S+\.rle)/).map { String($0.1) } }
        try pane.keys("e")
        try pane.until("edit mode") { $0.status.contains("EDIT") ? true : nil }
        try pane.keys("x", "s")
        let cells = try pane.until("the edit to show") { $0.dots == 4 || $0.dots == 2 ? $0.dots : nil }
        #expect(pane.status.contains("pop \(cells)"), "the population follows the edit at once")
        let after = try pane.until("a second save") {
            $0.status.firstMatch(of: /saved (\S+\.rle)/).map { String($0.1) }.flatMap { $0 == before ? nil : $0 }
        }
        let old = try Harness.cells(ofPatternFile: URL(fileURLWithPath: before))
        let new = try Harness.cells(ofPatternFile: URL(fileURLWithPath: after))
        #expect(old.symmetricDifference(new).count == 1, "the edit toggles exactly one cell")
        #expect(new.count == cells)
        try pane.keys("q")
    }

    @Test(.enabled(if: available, "tmux is not installed"))
    func secondViewerSeesTheSameGeneration() throws {
        let run = try RunningTessera(["run", "--soup", "0.3", "--size", "300x200", "--generations", "100000000",
                                      "--workers", "2", "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try run.viewerEndpoint()
        let one = try Pane("\(Harness.tessera.path) view --connect \(endpoint)")
        let start = try one.until("frames in viewer one") { $0.generation }
        let two = try Pane("\(Harness.tessera.path) view --connect \(endpoint)")
        try two.until("frames in viewer two") { ($0.generation ?? 0) > start ? true : nil }
        try one.keys("Space")
        let paused = try one.until("PAUSED in viewer one") { $0.status.contains("PAUSED") ? $0.generation : nil }
        try two.until("viewer two at the same generation") { $0.generation == paused && $0.status.contains("PAUSED") ? true : nil }
        try two.keys("q")  // detaching does not disturb the run
        try one.keys("Space")
        try one.until("the run to go on") { ($0.generation ?? 0) > paused ? true : nil }
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }
}
