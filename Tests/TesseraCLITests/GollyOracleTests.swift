import Foundation
import Testing
import TesseraCore
import TesseraPatterns

/// Golly's bgolly is the reference: the same input file through both programs must give
/// the same live cells at the same Golly coordinates.
@Suite struct GollyOracleTests {
    func write(_ text: String, _ name: String, in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func tessera(_ input: URL, generations: Int, extra: [String] = [], in dir: URL) throws -> Set<Harness.Cell> {
        let output = dir.appendingPathComponent("out-\(UUID().uuidString).rle")
        let result = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", output.path] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try Harness.cells(ofPatternFile: output)
    }

    @Test func macrocellReaderAgreesWithKnownPositions() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("#CXRLE Pos=-10,-5\nx = 1, y = 1, rule = B3/S23:P20,10\no!\n", "one.rle", in: dir)
        #expect(try Harness.golly(input, generations: 0) == [Harness.Cell(x: -10, y: -5)])
        let other = try write("#CXRLE Pos=9,4\nx = 1, y = 1, rule = B3/S23:P20,10\no!\n", "two.rle", in: dir)
        #expect(try Harness.golly(other, generations: 0) == [Harness.Cell(x: 9, y: 4)])
    }

    @Test(arguments: [
        "x = 5, y = 3, rule = B3/S23:T20,10\nobo$2bo$3o!\n",
        "x = 4, y = 3, rule = B3/S23:T7,5\nobo$2bo$3o!\n",
        "#CXRLE Pos=3,-2\nx = 3, y = 3, rule = B3/S23:P20,10\nbo$2bo$3o!\n",
        "!Name: glider\n.O.\n..O\nOOO\n",
        "#Life 1.06\n0 0\n1 1\n-1 1\n-1 2\n",
        // Life 1.05: blocks at their #P corners, a bare #P going on below the last block,
        // a rule written survival first (HighLife), cells given as coordinates too.
        "#Life 1.05\n#D two blocks\n#N\n#P -5 -3\n**\n*.*\n#P 2 1\n..*\n*.*\n#P\n***\n",
        "#Life 1.05\n#R 23/36\n#P -2 -2\n.*.\n..*\n***\n4 3\n5 3\n",
    ])
    func placesPatternsAsGollyDoes(text: String) throws {
        let dir = try Harness.temporaryDirectory()
        let name = text.hasPrefix("!") ? "p.cells" : text.hasPrefix("#Life") ? "p.lif" : "p.rle"
        let input = try write(text, name, in: dir)
        let size = text.contains(":T") || text.contains(":P") ? [] : ["--size", "20x10"]
        let golly = try Harness.golly(input, generations: 0)
        #expect(!golly.isEmpty)
        #expect(try tessera(input, generations: 0, extra: size, in: dir) == golly)
    }

    @Test(arguments: ["T", "P"])
    func acornMatchesGollyAcrossTilingsAndHalos(topology: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 7, y = 3, rule = B3/S23:\(topology)97,61\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        let golly = try Harness.golly(input, generations: 300)
        let runs: [(tiles: String, halo: Int, workers: Int)] = [
            ("1x1", 1, 0), ("1x1", 30, 1), ("2x3", 4, 2), ("5x4", 3, 3), ("7x7", 8, 8), ("97x1", 1, 4),
            ("3x61", 1, 2), ("4x2", 7, 8), ("2x2", 15, 0),
        ]
        for (tiles, halo, workers) in runs {
            let ours = try tessera(input, generations: 300,
                                   extra: ["--tiles", tiles, "--halo", "\(halo)", "--workers", "\(workers)"], in: dir)
            #expect(ours == golly, "tiles \(tiles) halo \(halo) workers \(workers)")
        }
    }

    /// The last four run as gates: isotropic non-totalistic, hexagonal, von Neumann, MAP.
    @Test(arguments: ["B36/S23", "B3678/S34678", "B2/S", "B1357/S1357", "B3/S23", "B2-a/S12", "B2/S34H", "B2/S013V",
                      "MAPH0G9W8uw8de9puyHB9d3xvE/pg3mKBxfeN4/YYsakj8DuzdoRy7q3sRjKMPMEiOennEgIQD43wE1xjf1+yrfKg"])
    func soupsMatchGollyUnderEveryRule(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        for (shape, tiles, halo) in [("T131,67", "3x2", 3), ("P64,64", "2x2", 3), ("T65,1", "1x1", 1), ("P5,7", "1x1", 5)] {
            // Tessera writes the soup as its generation-0 board; bgolly then runs that file.
            let start = dir.appendingPathComponent("soup-\(shape).rle")
            let made = try Harness.tessera(["run", "--soup", "0.4", "--seed", "11", "--rule", "\(rule):\(shape)",
                                            "--generations", "0", "--output", start.path])
            #expect(made.status == 0, "\(made.stderr)")
            let golly = try Harness.golly(start, generations: 40)
            #expect(try tessera(start, generations: 40, extra: ["--tiles", tiles, "--halo", "\(halo)"], in: dir) == golly,
                    "\(rule) \(shape)")
        }
    }

    /// B0 with S8 (positions checked through HashLife's macrocell) and B0 without S8
    /// (which HashLife refuses, so QuickLife's RLE: shapes compared, as it has no
    /// position), at an even and an odd generation: Golly's stored cells are inverted
    /// at odd generations for the latter, and Tessera's output is what Golly writes.
    @Test(arguments: ["B0123478/S01234678", "B0/S8", "B012/S1", "B0134/S2", "B03/S23"])
    func b0RulesMatchGolly(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        let alternating = try Rule(parsing: rule).emulation == .alternating
        for (shape, tiles, halo) in [("T131,67", "3x2", 3), ("P64,64", "2x2", 3), ("P5,7", "1x1", 5)] {
            let start = try Harness.soupFile(density: "0.3", seed: 12, rule: "\(rule):\(shape)", in: dir, name: "soup-\(shape).rle")
            for generations in [40, 41] {
                let ours = try tessera(start, generations: generations, extra: ["--tiles", tiles, "--halo", "\(halo)"], in: dir)
                if alternating {
                    let golly = try Harness.gollyQuickLife(start, generations: generations)
                    #expect(Harness.shape(of: ours) == golly, "\(rule) \(shape) \(generations)")
                } else {
                    #expect(ours == (try Harness.golly(start, generations: generations)), "\(rule) \(shape) \(generations)")
                }
            }
        }
    }

    /// At this width `--output` is written in bands of 1024 rows (16 MiB of cells), so
    /// gliders sit across a band edge (board row 1024), a tile row edge (1400) and a
    /// tile column edge (65536).
    @Test(arguments: [0, 2])
    func wideBoardIsWrittenBandByBand(workers: Int) throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("#CXRLE Pos=-1,-27\nx = 3, y = 379, rule = B3/S23:P131072,2100\nbo$2bo$3o374$bo$2bo$3o!\n",
                              "gliders.rle", in: dir)
        let golly = try Harness.golly(input, generations: 8)
        #expect(golly.count == 10)
        let ours = try tessera(input, generations: 8, extra: ["--tiles", "2x3", "--workers", "\(workers)"], in: dir)
        #expect(ours == golly)
    }

    /// A pattern whose box is over 16 MiB of cells is cut into tiles by the coordinator
    /// and sent tile by tile; smaller ones go whole to every worker (the other tests).
    @Test func boardSizedPatternIsSentTileByTile() throws {
        let dir = try Harness.temporaryDirectory()
        let input = try write("x = 16384, y = 8200, rule = B3/S23:P16384,8200\n2o$2o4096$8001bo$8002bo$8000b3o4097$16380b3o!\n",
                              "wide.rle", in: dir)
        let golly = try Harness.golly(input, generations: 4)
        #expect(golly.count == 12)
        #expect(try tessera(input, generations: 4, extra: ["--workers", "2"], in: dir) == golly)
    }

    @Test func acornOnTheREADMEBoardMatchesGolly() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("out.rle")
        let result = try Harness.tessera(["run", "acorn", "--size", "512x512", "--generations", "5206", "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOf: output, encoding: .utf8).hasPrefix(
            "#CXRLE Pos=-256,-256 Gen=5206\nx = 512, y = 512, rule = B3/S23:T512,512\n"))
        // Golly reopens Tessera's output as the same board: run it on for 0 generations.
        #expect(try Harness.golly(output, generations: 0) == Harness.cells(ofPatternFile: output))
        let input = try write("x = 7, y = 3, rule = B3/S23:T512,512\nbo$3bo$2o2b3o!\n", "acorn.rle", in: dir)
        #expect(try Harness.golly(input, generations: 5206) == Harness.cells(ofPatternFile: output))
    }
}

/// Facts from LifeWiki, checked through the CLI.
@Suite struct LifeWikiFactTests {
    func population(_ arguments: [String]) throws -> Int {
        let result = try Harness.tessera(["run"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let match = result.stdout.firstRange(of: /population (\d+)/)
        return Int(result.stdout[match!].split(separator: " ")[1])!
    }

    @Test func rPentominoSettlesAt116() throws {
        #expect(try population(["rpentomino", "--size", "1024x1024", "--topology", "plane", "--generations", "1103", "--tiles", "2x2"]) == 116)
    }

    @Test func diehardDiesAt130() throws {
        #expect(try population(["diehard", "--size", "128x128", "--topology", "plane", "--generations", "129"]) > 0)
        #expect(try population(["diehard", "--size", "128x128", "--topology", "plane", "--generations", "130"]) == 0)
    }

    @Test func gosperGunHasPeriod30() throws {
        let dir = try Harness.temporaryDirectory()
        var guns: [BitGrid] = []
        for generations in [120, 150, 165] {
            let output = dir.appendingPathComponent("gun-\(generations).rle")
            let result = try Harness.tessera(["run", "gosper", "--size", "256x256", "--topology", "plane",
                                              "--generations", "\(generations)", "--tiles", "3x2", "--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            // The gun's own 36×9 box, at board offset (128-18, 128-4).
            guns.append(try PatternFile.load(output.path).cells.cropped(x: 110, y: 124, width: 36, height: 9))
        }
        #expect(guns[0] == guns[1])
        #expect(guns[0] != guns[2])
    }
}
