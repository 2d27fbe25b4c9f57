import Foundation
import Testing

/// Coordinates at the ends of 64 bits are refused with one line, not trapped on; and
/// cells a billion columns apart run where Golly runs them, as two small groups.
///
/// Each test runs several whole processes: alone they take seconds, but in the whole
/// suite on two vCPUs some went past two minutes, so the limits of five are there to
/// catch a hang, not to time them.
@Suite struct FarCoordinatesTests {
    @Test(arguments: [
        ("#CXRLE Pos=-9223372036854775808,0\nx = 3, y = 1, rule = B3/S23\n3o!\n", "beyond ±2^62"),
        ("#CXRLE Pos=9223372036854775807,0\nx = 3, y = 1, rule = B3/S23\n3o!\n", "beyond ±2^62"),
        ("#CXRLE Pos=0,9223372036854775807\nx = 3, y = 1, rule = B3/S23:T64,64\n3o!\n", "beyond ±2^62"),
        ("#CXRLE Pos=0,4611686018427387000\nx = 3, y = 1, rule = B3/S23:T64,64\n3o!\n", "extends beyond the 64x64 board"),
        ("#CXRLE Pos=4611686018427387903,0\nx = 3, y = 1, rule = B3/S23\n3o!\n", "too far from the origin"),
        ("#Life 1.06\n-9223372036854775808 0\n", "beyond ±2^62"),
        ("#Life 1.06\n0 0\n4611686018427387903 5\n-4611686018427387903 5\n", "are too far from the origin"),
        ("#Life 1.06\n2305843009213693000 5\n-2305843009213693000 5\n", "too far apart, past the 2^61 cells"),
    ])
    func farCoordinatesAreRefusedInOneLine(text: String, problem: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent(text.hasPrefix("#Life") ? "far.lif" : "far.rle")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("out.rle")
        let result = try Harness.tessera(["run", input.path, "--generations", "4", "--output", output.path])
        #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains(problem), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// Life 1.06 coordinates past 2^30 are read (Golly's are 32-bit; Tessera's reach 2^62).
    @Test func life106CoordinatesPast2To30AreRead() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("far.lif"), output = dir.appendingPathComponent("out.mc")
        try "#Life 1.06\n1073741824 -1073741824\n1073741825 -1073741824\n1073741824 -1073741823\n1073741825 -1073741823\n"
            .write(to: input, atomically: true, encoding: .utf8)
        let result = try Harness.tessera(["run", input.path, "--generations", "10", "--output", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Harness.cells(ofPatternFile: output)
                == [Harness.Cell(x: 1 << 30, y: -(1 << 30)), Harness.Cell(x: (1 << 30) + 1, y: -(1 << 30)),
                    Harness.Cell(x: 1 << 30, y: 1 - (1 << 30)), Harness.Cell(x: (1 << 30) + 1, y: 1 - (1 << 30))])
    }

    /// Two blocks at the ends of a pattern 1000000002 cells wide: not one window around
    /// both (which "grew" past the widest window even at generation 0) but two groups,
    /// run by HashLife, by tiles and by workers, each giving bgolly's board.
    @Test(.timeLimit(.minutes(5)))
    func aPatternABillionCellsWideRunsAsGollyRunsIt() throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("wide.rle")
        try "x = 1000000002, y = 4, rule = B3/S23\n2o999999998b2o$2o999999998b2o2$500000000b3o!\n"
            .write(to: input, atomically: true, encoding: .utf8)
        for generations in [0, 101] {
            let golly = try Harness.golly(input, generations: generations)
            #expect(golly.count == 11)
            for layout in [[], ["--algorithm", "tiles"], ["--workers", "2"]] {
                let output = dir.appendingPathComponent("\(generations)\(layout.joined()).mc")
                let result = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--output", output.path] + layout)
                #expect(result.status == 0, "\(layout): \(result.stderr)")
                #expect(try Harness.cells(ofPatternFile: output) == golly, "\(generations) generations, \(layout)")
            }
        }
    }

    /// A file whose declared box is too large to hold whole (200000² cells, 4.7 GB as one
    /// grid) is read into blocks where its cells are: on the unbounded plane its far
    /// corners run as Golly runs them, and on a bounded grid the box is centred as Golly
    /// centres it (a 25000² torus: a glider at its middle, a blinker across its corner).
    @Test(.timeLimit(.minutes(5)), arguments: [
        ("x = 200000, y = 200000, rule = B3/S23\nbo$2bo$3o199994$199997b3o!\n", [[], ["--algorithm", "tiles"], ["--workers", "2"]]),
        ("#CXRLE Pos=-7,1000000\nx = 200000, y = 3, rule = B3/S23\nbo$2bo$3o199994b3o!\n", [[], ["--algorithm", "tiles"]]),
        ("x = 25000, y = 25000, rule = B3/S23:T25000,25000\n12499$12490bo$12491bo$12489b3o12498$24997b3o!\n", [["--workers", "0"], ["--workers", "2"]]),
    ])
    func aHugeSparseBoxIsReadWhereItsCellsAre(text: String, layouts: [[String]]) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("huge.rle")
        try text.write(to: input, atomically: true, encoding: .utf8)
        let golly = try Harness.golly(input, generations: 100)
        #expect(golly.count >= 5)
        for layout in layouts {
            let output = dir.appendingPathComponent("out\(layout.joined()).mc")
            let result = try Harness.tessera(["run", input.path, "--generations", "100", "--output", output.path] + layout)
            #expect(result.status == 0, "\(layout): \(result.stderr)")
            #expect(try Harness.cells(ofPatternFile: output) == golly, "\(layout)")
        }
    }
}
