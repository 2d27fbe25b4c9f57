import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Tiles that move between worker processes mid-run, cells, skipping state and halo
/// routes and all, leave the result bgolly's.
@Suite struct TileMigrationTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func run(_ input: URL, generations: Int, _ extra: [String], in dir: URL) throws -> (cells: Set<Harness.Cell>, stdout: String) {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).rle")
        let result = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", output.path] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return (try Harness.cells(ofPatternFile: output), result.stdout)
    }

    /// Random tiles move after every round or few (`--random-moves`), on torus and plane,
    /// 2 and 3 workers, shallow and deep halos: acorn, and a soup under HighLife.
    @Test(arguments: ["T", "P"])
    func randomMovesEveryFewRoundsMatchGolly(topology: String) throws {
        let dir = try Harness.temporaryDirectory()
        let acorn = try write("x = 7, y = 3, rule = B3/S23:\(topology)300,160\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let golly = try Harness.golly(acorn, generations: 400)
        for (workers, halo, seed) in [(2, 1, 1), (2, 5, 2), (3, 3, 3)] {
            let (ours, stdout) = try run(acorn, generations: 400, ["--tiles", "4x3", "--workers", "\(workers)", "--halo", "\(halo)",
                                                                   "--random-moves", "\(seed)"], in: dir)
            #expect(ours == golly, "\(topology) workers \(workers) halo \(halo)")
            #expect(stdout.contains("tile move"), "the tiles did move: \(stdout)")
        }
        let soup = dir.appendingPathComponent("soup.rle")
        let made = try Harness.tessera(["run", "--soup", "0.35", "--seed", "4", "--rule", "B36/S23:\(topology)131,67",
                                        "--generations", "0", "--output", soup.path])
        #expect(made.status == 0, "\(made.stderr)")
        let (ours, _) = try run(soup, generations: 150, ["--tiles", "3x2", "--halo", "2", "--random-moves", "9"], in: dir)
        #expect(ours == (try Harness.golly(soup, generations: 150)))
    }

    /// B0 without S8 alternates its rules by generation parity: a tile moved at an odd
    /// generation must carry on with the right one.
    @Test func movesKeepTheParityOfAlternatingRules() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = dir.appendingPathComponent("b0.rle")
        let made = try Harness.tessera(["run", "--soup", "0.3", "--seed", "5", "--rule", "B0134/S2:T96,64",
                                        "--generations", "0", "--output", soup.path])
        #expect(made.status == 0, "\(made.stderr)")
        let (ours, _) = try run(soup, generations: 41, ["--tiles", "3x2", "--halo", "1", "--random-moves", "4"], in: dir)
        #expect(Harness.shape(of: ours) == (try Harness.gollyQuickLife(soup, generations: 41)))
    }

    /// A soup filling one quarter of the board, all of it dealt to worker 0: the balancer
    /// moves tiles to worker 1 (the report says which, and the loads before and after),
    /// and the board is the one an unbalanced run gives.
    @Test func aLopsidedLoadIsBalancedAndTheBoardIsTheSame() throws {
        let dir = try Harness.temporaryDirectory()
        let soup = dir.appendingPathComponent("quarter.rle")
        let made = try Harness.tessera(["run", "--soup", "0.35", "--seed", "6", "--rule", "B3/S23:P512,512",
                                        "--generations", "0", "--output", soup.path])
        #expect(made.status == 0, "\(made.stderr)")
        // The same cells, in the top-left quarter of a 1024² plane.
        let text = try String(contentsOf: soup, encoding: .utf8)
        let quarter = try write(text.replacingOccurrences(of: "#CXRLE Pos=-256,-256", with: "#CXRLE Pos=-512,-512")
                                    .replacingOccurrences(of: ":P512,512", with: ":P1024,1024"), "lopsided.rle", in: dir)
        let (balanced, report) = try run(quarter, generations: 300, ["--tiles", "4x4", "--halo", "8", "--report"], in: dir)
        let (pinned, plain) = try run(quarter, generations: 300, ["--tiles", "4x4", "--halo", "8", "--no-balance"], in: dir)
        #expect(balanced == pinned)
        #expect(!plain.contains("tile move"))
        let moves = report.split(separator: "\n").filter { $0.contains("moved") }
        #expect(!moves.isEmpty, "\(report)")
        #expect(moves.first?.contains("0→1") == true && moves.allSatisfy { $0.contains("load per worker") }, "\(moves)")
    }
}
