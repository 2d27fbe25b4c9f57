import Foundation
import Testing
import TesseraCore
import TesseraExport
import TesseraViewer
import TesseraWire

@Suite(.serialized) struct PresenterTests {
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.firstMatch(of: /VmRSS:\s+(\d+)/).flatMap { Int($0.1) } ?? 0
    }

    /// One notification per frame, nothing per cell, nothing kept per departed viewer:
    /// memory stays flat however many viewers come and go.
    @Test func memoryStaysFlatAsViewersComeAndGo() throws {
        let run = try RunningTessera(["run", "--soup", "0.3", "--size", "1024x1024", "--generations", "100000000000",
                                      "--workers", "2", "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try run.viewerEndpoint()
        let workers = try run.workerPids()
        let view = Viewport(x: 0, y: 0, cellsPerDot: 4, width: 256, height: 256)
        func total() -> Int { ([run.pid] + workers).map(Self.residentKiB).reduce(0, +) }
        for _ in 0..<20 { _ = try ScriptedViewer.watch(endpoint, frames: 3, viewport: view) }  // warm up
        let before = total()
        var generations: [UInt64] = []
        for _ in 0..<150 {
            let frames = try ScriptedViewer.watch(endpoint, frames: 3, viewport: view)
            #expect(frames.count == 3)
            generations += frames.map(\.generation)
        }
        let after = total()
        #expect(generations == generations.sorted(), "frames come in generation order")
        #expect(after - before < 4096, "resident memory grew from \(before) KiB to \(after) KiB over 150 viewers")
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
    }

    @Test func framesAreReducedToTheViewport() throws {
        let run = try RunningTessera(["run", "pulsar", "--size", "64x64", "--generations", "100000000000", "--workers", "2",
                                      "--tiles", "2x2", "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try run.viewerEndpoint()
        // 1:1, the whole board: the pulsar's 48 or 56 or 72 cells, one dot each.
        let full = try ScriptedViewer.watch(endpoint, frames: 1, viewport: Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64))
        #expect(full.first.map { [48, 56, 72].contains($0.dots.population) } == true)
        #expect(full.first?.population == full.first?.dots.population)
        // 64 cells per dot: one dot, lit.
        let tiny = try ScriptedViewer.watch(endpoint, frames: 1, viewport: Viewport(x: 0, y: 0, cellsPerDot: 64, width: 1, height: 1))
        #expect(tiny.first?.dots.width == 1 && tiny.first?.dots.population == 1)
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }

    @Test func exportsPNGFramesAndAGIF() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["run", "glider", "--size", "32x32", "--generations", "12", "--every", "4",
                                          "--frames", dir.appendingPathComponent("frames").path,
                                          "--gif", dir.appendingPathComponent("glider.gif").path, "--workers", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path).sorted()
        #expect(frames == (0...3).map { String(format: "frame-%06d.png", $0) })
        let png = try Data(contentsOf: dir.appendingPathComponent("frames/frame-000000.png"))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let gif = [UInt8](try Data(contentsOf: dir.appendingPathComponent("glider.gif")))
        #expect(Array(gif.prefix(6)) == Array("GIF89a".utf8))
        let controls = (0..<(gif.count - 2)).filter { gif[$0] == 0x21 && gif[$0 + 1] == 0xF9 && gif[$0 + 2] == 4 }
        #expect(controls.count == 4, "one graphic control block per frame")
        for bad in [["--gif", dir.appendingPathComponent("x.png").path], ["--frames", dir.path, "--every", "0"]] {
            let failed = try Harness.tessera(["run", "glider", "--size", "32x32"] + bad)
            #expect(failed.status == 2 && failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        }
    }

    /// A rule of more states is drawn a colour a state: a Generations board's PNG frames
    /// are RGB (a two-state board's grey), and each GIF frame brings a colour map of its
    /// own; the palette keeps 0 white and 1 black, as two states are drawn, and gives
    /// every other state a colour of its own.
    @Test func framesOfMoreStatesAreInColour() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["run", "--soup", "0.4", "--size", "48x48", "--rule", "345/3/6", "--generations", "4",
                                          "--every", "2", "--frames", dir.appendingPathComponent("frames").path,
                                          "--gif", dir.appendingPathComponent("soup.gif").path])
        #expect(result.status == 0, "\(result.stderr)")
        let png = [UInt8](try Data(contentsOf: dir.appendingPathComponent("frames/frame-000002.png")))
        // IHDR: the colour type follows the width, height and bit depth; 2 is RGB.
        #expect(png.count > 25 && png[25] == 2, "an RGB PNG")
        let gif = [UInt8](try Data(contentsOf: dir.appendingPathComponent("soup.gif")))
        // An image descriptor (0x2C) whose packed byte sets the local colour table's flag.
        let descriptors = (8..<(gif.count - 10)).filter { gif[$0] == 0x2C && gif[$0 + 9] & 0x80 != 0 && gif[$0 - 8] == 0x21 && gif[$0 - 7] == 0xF9 }
        #expect(descriptors.count == 3, "a colour map a frame")
        let palette = StatePalette.colours(states: 6)
        #expect(palette.count == 6 && palette[0] == (255, 255, 255) && palette[1] == (0, 0, 0))
        #expect(Set(palette.map { [$0.0, $0.1, $0.2] }).count == 6)
        let twoState = try Harness.tessera(["run", "glider", "--size", "32x32", "--generations", "1",
                                            "--frames", dir.appendingPathComponent("grey").path])
        let grey = [UInt8](try Data(contentsOf: dir.appendingPathComponent("grey/frame-000000.png")))
        #expect(twoState.status == 0 && grey[25] == 0, "a grey PNG")
    }

    /// A viewer of a rule of more states gets its frames' states, a byte a dot, and
    /// draws each braille character in the colour of its lowest state (state 1 in the
    /// terminal's own).
    @Test func aViewerOfMoreStatesGetsTheirColours() throws {
        let run = try RunningTessera(["run", "--soup", "0.4", "--size", "64x64", "--rule", "345/3/6",
                                      "--generations", "100000000000", "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try run.viewerEndpoint()
        let view = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64)
        let frame = try #require(try ScriptedViewer.watch(endpoint, frames: 1, viewport: view).first)
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
        #expect(frame.stateCount == 6 && frame.states.count == 64 * 64)
        #expect((0..<(64 * 64)).allSatisfy { (frame.states[$0] != 0) == frame.dots[$0 % 64, $0 / 64] })
        let lines = Braille.lines(frame.dots, columns: 32, rows: 16, states: frame.states, stateCount: frame.stateCount)
        #expect(lines.contains { $0.contains("\u{1B}[38;2;") }, "a coloured character")
        var dots = BitGrid(width: 4, height: 4)
        dots[0, 0] = true
        #expect(Braille.lines(dots, columns: 2, rows: 1, states: [1] + Array(repeating: 0, count: 15), stateCount: 6)
                    == Braille.lines(dots, columns: 2, rows: 1), "state 1 as two states are drawn")
    }

    /// A run in this process (`--workers 0`) records the frames workers record, byte for
    /// byte: as a bounded board's dense tiles (32x32) and as a sparse map (64x64, a
    /// torus of whole tiles), whose frames read only the tiles in view.
    @Test(arguments: ["32x32", "64x64"])
    func framesInThisProcessAreTheWorkersFrames(size: String) throws {
        let dir = try Harness.temporaryDirectory()
        var recorded: [[Data]] = []
        for workers in ["2", "0"] {
            let frames = dir.appendingPathComponent("frames-\(workers)"), gif = dir.appendingPathComponent("run-\(workers).gif")
            let result = try Harness.tessera(["run", "glider", "--size", size, "--generations", "40", "--every", "8",
                                              "--frames", frames.path, "--gif", gif.path, "--workers", workers])
            #expect(result.status == 0, "\(result.stderr)")
            let names = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
            #expect(names.count == 6)
            recorded.append(try names.map { try Data(contentsOf: frames.appendingPathComponent($0)) } + [try Data(contentsOf: gif)])
        }
        #expect(recorded[0] == recorded[1])
    }
}

@Suite struct CoordinatorViewingTests {
    /// A viewer attaches to a coordinator's run, watches, leaves; the run finishes as asked.
    @Test func viewerAttachesToACoordinatorAndLeaves() throws {
        let coordinator = try RunningTessera(["coordinator", "--soup", "0.3", "--size", "512x512", "--generations", "20000",
                                              "--workers", "2", "--listen", "tcp://127.0.0.1:*",
                                              "--view-listen", "tcp://127.0.0.1:*"])
        let endpoint = try coordinator.workerEndpoint()
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint]) }
        let viewers = try coordinator.viewerEndpoint()
        let frames = try ScriptedViewer.watch(viewers, frames: 5, viewport: Viewport(x: 0, y: 0, cellsPerDot: 4, width: 128, height: 128))
        #expect(frames.count == 5)
        #expect(frames.map(\.generation) == frames.map(\.generation).sorted())
        #expect(frames.allSatisfy { $0.workers == 2 && $0.board == (0, 0, 512, 512) && !$0.paused })
        #expect(coordinator.wait(timeout: 120) == 0, "\(coordinator.errorText)")
        #expect(coordinator.outputText.contains("soup: 20000 generations on 512x512 torus"), "\(coordinator.outputText)")
        for worker in workers { #expect(worker.wait(timeout: 10) == 0) }
    }
}

/// Editing a board of more states in this process: a rule file's tree step copies what
/// it knows did not change, so an edit that did not forget that record would never move.
@Suite struct StateEditTests {
    /// A folder holding lone.rle, one WireWorld conductor on a 64x64 torus.
    static func loneConductor() throws -> (dir: URL, input: URL) {
        guard FileManager.default.fileExists(atPath: "/usr/share/golly/Rules/WireWorld.rule") else {
            throw TesseraError("Golly is not installed", fix: "apt-get install golly")
        }
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("lone.rle")
        try "x = 1, y = 1, rule = WireWorld:T64,64\nC!\n".write(to: input, atomically: true, encoding: .utf8)
        return (dir, input)
    }

    @Test func aViewerDrawsAWireWorldWireAndItsSignalRuns() throws {
        let (dir, input) = try Self.loneConductor()
        let run = try RunningTessera(["run", input.path, "--generations", "100000000000", "--workers", "0",
                                      "--view-listen", "tcp://127.0.0.1:*"], in: dir)
        defer { kill(run.pid, SIGKILL) }
        let endpoint = try run.viewerEndpoint()
        let view = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64)
        // A wire of conductors (3) on row 40, an electron head (1) at its west end, a
        // conductor set twice (back to 0); three generations; a state past the rule's four.
        let edits: [ViewerCommand] = [.togglePause] + (5...15).map { .toggleCell(x: $0, y: 40, state: 3) }
            + [.toggleCell(x: 5, y: 40, state: 1), .toggleCell(x: 20, y: 40, state: 3), .toggleCell(x: 20, y: 40, state: 3),
               .step, .step, .step, .toggleCell(x: 30, y: 40, state: 4)]
        let frames = try ScriptedViewer.watch(endpoint, frames: 4, viewport: view, commands: edits)
        #expect(frames.contains { $0.note.contains("state 4 is past this rule's 4 states") })
        // The head ran three cells east, its tail behind it; then the run stays paused.
        let expected = Array(repeating: 0, count: 5) + [3, 3, 2, 1] + Array(repeating: 3, count: 7) + Array(repeating: 0, count: 8)
        var row: [Int] = [], last: Frame?
        for _ in 0..<100 where row != expected {
            last = try ScriptedViewer.watch(endpoint, frames: 1, viewport: view).last
            row = last.map { frame in (0..<24).map { Int(frame.states[40 * 64 + $0]) } } ?? []
        }
        #expect(row == expected)
        #expect(last?.paused == true && last?.stateCount == 4)
        let notes = try ScriptedViewer.watch(endpoint, frames: 3, viewport: view, commands: [.save]).map(\.note)
        let saved = try #require(notes.lazy.compactMap { $0.firstMatch(of: /saved (\S+\.rle)/).map { String($0.1) } }.first)
        let text = try String(contentsOfFile: saved, encoding: .utf8)
        #expect(text.contains("rule = WireWorld:T64,64") && text.contains("2CBA7C"), "\(text)")
    }
}

@Suite struct PresenterProcessTests {
    /// A presenter in its own process edits, steps and saves a rule of more states on
    /// workers as one in the run's process does (StateEditTests): its frames, edits and
    /// saves cross to the coordinator in states.
    @Test func aPresenterInItsOwnProcessEditsStates() throws {
        let (dir, input) = try StateEditTests.loneConductor()
        let coordinator = try RunningTessera(["coordinator", input.path, "--workers", "2", "--listen", "tcp://127.0.0.1:*",
                                              "--external-presenter"], in: dir)
        defer { kill(coordinator.pid, SIGKILL) }
        let endpoint = try coordinator.workerEndpoint()
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint]) }
        defer { for worker in workers { kill(worker.pid, SIGKILL) } }
        let presenter = try RunningTessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*"], in: dir)
        defer { kill(presenter.pid, SIGKILL) }
        let viewers = try presenter.viewerEndpoint()
        let view = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64)
        let edits: [ViewerCommand] = [.togglePause] + (5...15).map { .toggleCell(x: $0, y: 40, state: 3) }
            + [.toggleCell(x: 5, y: 40, state: 1), .step, .step, .step]
        _ = try ScriptedViewer.watch(viewers, frames: 4, viewport: view, commands: edits)
        let expected = Array(repeating: 0, count: 5) + [3, 3, 2, 1] + Array(repeating: 3, count: 7) + Array(repeating: 0, count: 8)
        var row: [Int] = [], last: Frame?
        for _ in 0..<100 where row != expected {
            last = try ScriptedViewer.watch(viewers, frames: 1, viewport: view).last
            row = last.map { frame in frame.states.isEmpty ? [] : (0..<24).map { Int(frame.states[40 * 64 + $0]) } } ?? []
        }
        #expect(row == expected)
        #expect(last?.stateCount == 4 && last?.workers == 2)
        let notes = try ScriptedViewer.watch(viewers, frames: 3, viewport: view, commands: [.save]).map(\.note)
        let saved = try #require(notes.lazy.compactMap { $0.firstMatch(of: /saved (\S+\.rle)/).map { String($0.1) } }.first)
        let text = try String(contentsOfFile: saved, encoding: .utf8)
        #expect(text.contains("rule = WireWorld:T64,64") && text.contains("2CBA7C"), "\(text)")
        kill(presenter.pid, SIGTERM)
        #expect(presenter.wait(timeout: 15) == 0, "\(presenter.errorText)")
        #expect(coordinator.wait(timeout: 30) == 0, "\(coordinator.errorText)")
    }

    /// The presenter as its own process: it drives a coordinator and serves a viewer;
    /// when it stops, the coordinator finishes the run and writes the board.
    @Test func presenterInItsOwnProcess() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("out.rle")
        let coordinator = try RunningTessera(["coordinator", "acorn", "--size", "256x256", "--topology", "plane",
                                              "--workers", "2", "--listen", "tcp://127.0.0.1:*", "--external-presenter",
                                              "--output", output.path])
        let endpoint = try coordinator.workerEndpoint()
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint]) }
        let presenter = try RunningTessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*"],
                                           in: dir)
        let viewers = try presenter.viewerEndpoint()
        let frames = try ScriptedViewer.watch(viewers, frames: 4, viewport: Viewport(x: 0, y: 0, cellsPerDot: 2, width: 128, height: 128))
        #expect(frames.count == 4)
        #expect(frames.map(\.generation) == frames.map(\.generation).sorted())
        #expect(frames.allSatisfy { $0.workers == 2 && $0.tiles == (1, 2) && $0.dots.population > 0 })
        // A viewer's save goes through the presenter's process.
        let saved = try ScriptedViewer.watch(viewers, frames: 20, viewport: frames[0].viewport, commands: [.save])
            .lazy.compactMap { $0.note.firstMatch(of: /saved (\S+\.rle)/).map { String($0.1) } }.first
        let savedPath = try #require(saved)
        #expect(savedPath.hasPrefix(dir.path))
        #expect(try String(contentsOfFile: savedPath, encoding: .utf8).contains("rule = B3/S23:P256,256"))
        kill(presenter.pid, SIGTERM)
        #expect(presenter.wait(timeout: 15) == 0, "\(presenter.errorText)")
        let stoppedAt = try #require(presenter.outputText.firstMatch(of: /stopped at generation (\d+)/).flatMap { UInt64($0.1) })
        #expect(coordinator.wait(timeout: 30) == 0, "\(coordinator.errorText)")
        for worker in workers { #expect(worker.wait(timeout: 10) == 0) }
        #expect(coordinator.outputText.contains("acorn: \(stoppedAt) generations"), "\(coordinator.outputText)")
        let input = dir.appendingPathComponent("acorn.rle")
        try "x = 7, y = 3, rule = B3/S23:P256,256\nbo$3bo$2o2b3o!\n".write(to: input, atomically: true, encoding: .utf8)
        #expect(try Harness.golly(input, generations: Int(stoppedAt)) == Harness.cells(ofPatternFile: output))
    }
}
