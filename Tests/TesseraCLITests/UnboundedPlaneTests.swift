import Foundation
import Testing
import TesseraCore
import TesseraPatterns
import TesseraWire

/// A pattern whose rule has no bounded-grid suffix runs on Golly's unbounded plane, as
/// bgolly runs it: same cells, same coordinates, whatever the workers and tiles.
@Suite struct UnboundedPlaneTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs `input` through tessera; returns the output's text and its cells.
    func tessera(_ input: [String], generations: Int, extra: [String] = [], in dir: URL,
                 output name: String = "out.rle") throws -> (text: String, cells: Set<Harness.Cell>) {
        let output = dir.appendingPathComponent("\(UUID().uuidString)-\(name)")
        let result = try Harness.tessera(["run"] + input + ["--generations", "\(generations)", "--output", output.path] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return (try String(contentsOf: output, encoding: .utf8), try Harness.cells(ofPatternFile: output))
    }

    /// Tiles in process and on workers (a worker count asks for tiles), HashLife, and
    /// the default: HashLife while it keeps ahead, then tiles.
    static let layouts: [[String]] = [
        ["--workers", "0"], ["--workers", "2"], ["--workers", "3", "--tiles", "2x2", "--halo", "7"],
        ["--algorithm", "hashlife"], [],
    ]

    @Test(arguments: [
        // Gosper gun: gliders leave for good, tiles made ahead of them and dropped behind.
        ("gun", "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4bobo$10bo5bo7bo$11bo3bo$12b2o!\n", 1500),
        // Acorn: a methuselah whose gliders escape in every direction.
        ("acorn", "x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", 5206),
        // Its gliders 20000 generations on, 10000 cells apart: tiles only where they are.
        ("acorn far on", "x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", 20_000),
        // One row that grows without bound (two block-laying switch engines).
        ("switch engines", "x = 39, y = 1, rule = B3/S23\n8ob5o3b3o6b7ob5o!\n", 3000),
        // A glider a billion cells from the origin, ending within the ±10⁹ Golly writes as RLE.
        ("far glider", "#CXRLE Pos=999999000,-1000000000\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n", 777),
        // Another rule: HighLife's replicator.
        ("replicator", "x = 5, y = 5, rule = B36/S23\n2b3o$bo2bo$o3bo$o2bo$3o!\n", 400),
        // Golly's own acorn.lif, in Life 1.05: a block of '.' and '*' rows after a bare #P.
        ("acorn.lif", "#Life 1.05\n#D Acorn\n#D The most vigorously growing 7-cell methuselah pattern.\n#P\n.*\n...*\n**..***\n", 5206),
        // And a rule in Life 1.05's order, survival first: HighLife's replicator again.
        ("replicator.lif", "#Life 1.05\n#R 23/36\n#P 10 -7\n..***\n.*..*\n*...*\n*..*.\n***..\n", 400),
        // B0 with S8, which Golly runs as its complement (AntiLife as Life).
        ("antilife acorn", "x = 7, y = 3, rule = B0123478/S01234678\nbo$3bo$2o2b3o!\n", 1000),
    ])
    func matchesGolly(name: String, text: String, generations: Int) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write(text, "pattern.rle", in: dir)
        let golly = try Harness.golly(input, generations: generations)
        #expect(!golly.isEmpty)
        for layout in Self.layouts {
            let ours = try tessera([input.path], generations: generations, extra: layout, in: dir)
            #expect(ours.cells == golly, "\(name) \(layout)")
        }
    }

    @Test func outputCarriesItsPlaceAndGollyReopensIt() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n", "glider.rle", in: dir)
        let ours = try tessera([input.path], generations: 400, in: dir)
        // 400 generations carry the glider 100 cells down and right; no bounded-grid suffix.
        #expect(ours.text.hasPrefix("#CXRLE Pos=100,100 Gen=400\nx = 3, y = 3, rule = B3/S23\n"))
        let output = try write(ours.text, "again.rle", in: dir)
        #expect(try Harness.golly(output, generations: 0) == ours.cells)
    }

    /// `--size` with `--topology infinite` says where the soup goes; what leaves it keeps going.
    @Test func soupInAnAreaOfThePlaneMatchesGolly() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = ["--soup", "0.37", "--seed", "5", "--size", "48x40", "--topology", "infinite"]
        let start = try tessera(soup, generations: 0, in: dir)
        #expect(start.text.hasPrefix("#CXRLE Pos=-24,-20"))
        let input = try write(start.text, "soup.rle", in: dir)
        let golly = try Harness.golly(input, generations: 1200)
        for layout in Self.layouts {
            #expect(try tessera(soup, generations: 1200, extra: layout, in: dir).cells == golly, "\(layout)")
        }
    }

    @Test func macrocellOutputIsGollysOwn() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let ours = try tessera([input.path], generations: 1000, in: dir, output: "out.mc")
        let golly = dir.appendingPathComponent("acorn.golly-1000.mc")
        _ = try Harness.golly(input, generations: 1000)
        // Same nodes in the same order: only the line naming the writer differs.
        let theirs = try String(contentsOf: golly, encoding: .utf8)
        #expect(ours.text.split(separator: "\n").dropFirst() == theirs.split(separator: "\n").dropFirst())
        // And a macrocell reads back as the pattern it holds, where it holds it.
        let again = try tessera([golly.path], generations: 0, extra: ["--workers", "0"], in: dir)
        #expect(again.cells == ours.cells)
        #expect(again.text.hasPrefix("#CXRLE Pos=") && again.text.contains("Gen=1000"))
    }

    /// Golly reads an RLE's position as 32-bit numbers: a glider that ends past 2^31 is
    /// refused as RLE, whichever engine ran it (one line, status 2, no file), and
    /// written as a macrocell Golly places where it lies.
    @Test(arguments: [["--algorithm", "hashlife"], ["--workers", "0"], ["--workers", "2"]])
    func aPatternPastGollysRLEReachGoesToAMacrocell(layout: [String]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("#CXRLE Pos=2147483000,0\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n", "glider.rle", in: dir)
        let rle = dir.appendingPathComponent("out.rle")
        let refused = try Harness.tessera(["run", input.path, "--generations", "4000", "--output", rle.path] + layout)
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("past the ±1000000000 cells Golly reads and writes as RLE") && refused.stderr.contains("*.mc"))
        #expect(!FileManager.default.fileExists(atPath: rle.path))
        let ours = try tessera([input.path], generations: 4000, extra: layout, in: dir, output: "out.mc")
        #expect(ours.cells == (try Harness.golly(input, generations: 4000)))
    }

    /// A plane that died skips the rest of its generations, in this process and on
    /// shards (dealt again empty at the end): 10^12 generations would be 1.6 × 10^10
    /// stretches of bands.
    @Test(.timeLimit(.minutes(5)), arguments: [["--workers", "0"], ["--workers", "2"]])
    func anEmptyPlaneCostsNothing(layout: [String]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 2, y = 1, rule = B3/S23\n2o!\n", "dies.rle", in: dir)
        let ours = try tessera([input.path], generations: 1_000_000_000_000, extra: layout, in: dir)
        #expect(ours.cells.isEmpty)
        #expect(ours.text.contains("Gen=1000000000000"))
    }

    /// Frames of the unbounded plane each fit the live cells on one square canvas (256
    /// dots a side, 2 pixels a dot); on worker processes, whose shards each draw their
    /// tiles in view, they are the same pictures, byte for byte.
    @Test func framesOfTheUnboundedPlaneFollowItsLiveCells() throws {
        let dir = try Harness.temporaryDirectory()
        let frames = dir.appendingPathComponent("frames"), gif = dir.appendingPathComponent("acorn.gif")
        let result = try Harness.tessera(["run", "acorn", "--frames", frames.path, "--gif", gif.path, "--generations", "300", "--every", "100"])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        #expect(names == (0...3).map { String(format: "frame-%06d.png", $0) })
        let pictures = try names.map { try Data(contentsOf: frames.appendingPathComponent($0)) }
        for png in pictures {
            // IHDR: width and height, big-endian, at bytes 16 and 20.
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 512 && height == 512)
        }
        // Acorn spreads: no two frames are the same picture.
        #expect(Set(pictures).count == 4)
        #expect(FileManager.default.fileExists(atPath: gif.path))
        let more = dir.appendingPathComponent("more"), moreGIF = dir.appendingPathComponent("more.gif")
        let onWorkers = try Harness.tessera(["run", "acorn", "--frames", more.path, "--gif", moreGIF.path, "--generations", "300",
                                             "--every", "100", "--workers", "2"])
        #expect(onWorkers.status == 0, "\(onWorkers.stderr)")
        #expect(try names.map { try Data(contentsOf: more.appendingPathComponent($0)) } == pictures)
        #expect(try Data(contentsOf: moreGIF) == (try Data(contentsOf: gif)))
        // And by HashLife, drawn from its squares.
        let squares = dir.appendingPathComponent("squares")
        let byHashLife = try Harness.tessera(["run", "acorn", "--frames", squares.path, "--generations", "300", "--every", "100",
                                              "--algorithm", "hashlife"])
        #expect(byHashLife.status == 0 && byHashLife.stdout.contains("by HashLife"), "\(byHashLife.stdout) \(byHashLife.stderr)")
        #expect(try names.map { try Data(contentsOf: squares.appendingPathComponent($0)) } == pictures)
    }

    /// Viewers of the unbounded plane look in Golly's coordinates: a glider a billion
    /// cells out, followed for thousands of generations, is always where it should be,
    /// and `0` (the frame's board) fits its 3×3 box. On workers each shard draws its
    /// tiles in view; in this process (`--workers 0`) the one sparse map does, or
    /// HashLife's squares (`--algorithm hashlife`).
    @Test(arguments: [["--workers", "2"], ["--workers", "0"], ["--algorithm", "hashlife"]])
    func viewersFollowAGliderABillionCellsOut(layout: [String]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("#CXRLE Pos=1000000000,-1000000000\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n", "glider.rle", in: dir)
        let run = try RunningTessera(["run", input.path, "--generations", "1000000000000", "--view-listen", "tcp://127.0.0.1:*"] + layout)
        let endpoint = try run.viewerEndpoint()
        var seen: [Frame] = []
        // Frames over 6000 generations, from wherever the run is when the viewer comes:
        // a fast run is thousands of generations on by then (a CI run saw 6489 first).
        var span: Int { Int(seen.last?.generation ?? 0) - Int(seen.first?.generation ?? 0) }
        let deadline = Date().addingTimeInterval(60)
        while (seen.count < 3 || span < 6000) && Date() < deadline {
            let anywhere = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 1, height: 1)
            guard let board = try ScriptedViewer.watch(endpoint, frames: 1, viewport: anywhere).first?.board else { continue }
            let close = Viewport(x: board.x, y: board.y, cellsPerDot: 1, width: 3, height: 3)
            seen += try ScriptedViewer.watch(endpoint, frames: 1, viewport: close)
        }
        #expect(seen.count >= 3 && span >= 6000, "\(seen.map(\.generation))")
        for frame in seen {
            let g = Int(frame.generation), board = frame.board
            let (dx, dy) = (board.x - 1_000_000_000, board.y + 1_000_000_000)
            // South-east a cell every four generations; the box's corner leads by one
            // across or down in some phases.
            #expect(board.width == 3 && board.height == 3 && abs(dx - dy) <= 1 && abs(dx - g / 4) <= 1, "generation \(g): \(board)")
            #expect(frame.population == 5)
        }
        // Paused, the box stays put: a viewport on it shows the five cells, and one a
        // cell to the side shows fewer.
        let anywhere = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 1, height: 1)
        let paused = try ScriptedViewer.watch(endpoint, frames: 2, viewport: anywhere, commands: [.togglePause]).last
        let box = try #require(paused?.board)
        let still = try ScriptedViewer.watch(endpoint, frames: 1, viewport: Viewport(x: box.x, y: box.y, cellsPerDot: 1, width: 3, height: 3))
        #expect(still.first?.paused == true && still.first?.generation == paused?.generation)
        #expect(still.first?.dots.population == 5)
        let beside = try ScriptedViewer.watch(endpoint, frames: 1, viewport: Viewport(x: box.x + 1, y: box.y, cellsPerDot: 1, width: 3, height: 3))
        #expect((beside.first?.dots.population ?? 5) < 5)
        let edit = try ScriptedViewer.watch(endpoint, frames: 2, viewport: Viewport(x: 0, y: 0, cellsPerDot: 1, width: 4, height: 4),
                                            commands: [.rewind])
        #expect(edit.contains { $0.note.contains("bounded board") })
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
    }

    /// Patterns a trillion cells apart in one macrocell: each group's tiles where it is,
    /// made as their cells go (the spaceship flies on), groups that come to meet sharing
    /// tiles (the glider and the block), and the board Golly's, in every layout.
    @Test func groupsFarApartRunWhereTheyLie() throws {
        let dir = try Harness.temporaryDirectory()
        func cells(_ rle: String) throws -> BitGrid { try RLE.parse(rle).cells }
        let parts = [
            PlacedCells(cells: try cells("x = 3, y = 3\nbo$2bo$3o!"), left: 0, top: 0),
            PlacedCells(cells: try cells("x = 2, y = 2\n2o$2o!"), left: 4500, top: 4501),
            PlacedCells(cells: try cells("x = 7, y = 3\nbo$3bo$2o2b3o!"), left: -(1 << 40), top: 1 << 40),
            // A lightweight spaceship, c/2: 2250 cells on by the end of the run.
            PlacedCells(cells: try cells("x = 5, y = 4\nbo2bo$o4b$o3bo$4o!"), left: 1_000_000_000_000, top: -7),
        ]
        let input = try write(Macrocell.string(for: parts, rule: "B3/S23", generation: 0), "far.mc", in: dir)
        let golly = try Harness.golly(input, generations: 4500)
        #expect(golly.count > 200)
        for layout in Self.layouts {
            let ours = try tessera([input.path], generations: 4500, extra: layout, in: dir, output: "out.mc")
            #expect(ours.cells == golly, "\(layout)")
        }
        // RLE holds what Golly reads as RLE (±10^9): past that, one line naming .mc, and no file.
        let rle = dir.appendingPathComponent("out.rle")
        let refused = try Harness.tessera(["run", input.path, "--generations", "10", "--output", rle.path])
        #expect(refused.status == 2 && refused.stderr.contains("*.mc"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: rle.path))
    }

    /// Groups far apart written as RLE: rows between them go as runs, and Golly reads
    /// the file back as the same board.
    @Test func groupsFarApartWriteAsRLEGollyReads() throws {
        let dir = try Harness.temporaryDirectory()
        let parts = [PlacedCells(cells: try RLE.parse("x = 3, y = 3\nbo$2bo$3o!").cells, left: 0, top: 0),
                     PlacedCells(cells: try RLE.parse("x = 7, y = 3\nbo$3bo$2o2b3o!").cells, left: 900_000_000, top: -900_000_000)]
        let input = try write(Macrocell.string(for: parts, rule: "B3/S23", generation: 0), "near.mc", in: dir)
        let again = dir.appendingPathComponent("again.rle")
        let ran = try Harness.tessera(["run", input.path, "--generations", "500", "--output", again.path])
        #expect(ran.status == 0, "\(ran.stderr)")
        // The glider's corner, 125 cells on, and the acorn's far-off debris; the box between is runs.
        #expect(try String(contentsOf: again, encoding: .utf8).hasPrefix("#CXRLE Pos=125,-900000071 Gen=500\nx = 899999901, y = 900000199, rule = B3/S23\n"))
        #expect(try Harness.golly(again, generations: 0) == (try Harness.golly(input, generations: 500)))
    }

    /// Viewers of groups far apart see each where it lies on the plane, and nothing
    /// else: two blocks 10^12 apart, and a tall viewport over one of them shows its one
    /// dot; `0` fits both.
    @Test(arguments: [["--workers", "2"], ["--workers", "0"]])
    func viewersOfGroupsFarApartSeeEachWhereItLies(layout: [String]) throws {
        let dir = try Harness.temporaryDirectory()
        let block = try RLE.parse("x = 2, y = 2\n2o$2o!").cells
        let far = 1_000_000_000_000
        let parts = [PlacedCells(cells: block, left: 0, top: 0), PlacedCells(cells: block, left: far, top: far)]
        let input = try write(Macrocell.string(for: parts, rule: "B3/S23", generation: 0), "blocks.mc", in: dir)
        // Still lifes: in this process their generations cost nothing, and a shorter run would be over.
        let run = try RunningTessera(["run", input.path, "--generations", "1000000000000000", "--view-listen", "tcp://127.0.0.1:*"] + layout)
        let endpoint = try run.viewerEndpoint()
        let one = { (x: Int, y: Int) in Viewport(x: x, y: y, cellsPerDot: 1, width: 2, height: 2) }
        #expect(try ScriptedViewer.watch(endpoint, frames: 1, viewport: one(0, 0)).first?.dots.population == 4)
        #expect(try ScriptedViewer.watch(endpoint, frames: 1, viewport: one(far, far)).first?.dots.population == 4)
        // 4 cells a dot, 8800 cells tall around the first block: its one dot, no ghost.
        let tall = Viewport(x: -8, y: -4400, cellsPerDot: 4, width: 4, height: 2200)
        let frame = try #require(try ScriptedViewer.watch(endpoint, frames: 1, viewport: tall).first)
        #expect(frame.dots.population == 1 && frame.dots[2, 1100])
        // `0` fits both.
        #expect(frame.board.x <= 0 && frame.board.y <= 0 && frame.board.x + frame.board.width >= far + 2
                && frame.board.y + frame.board.height >= far + 2)
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
    }
}
