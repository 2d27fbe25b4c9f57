import Foundation
import Testing
import TesseraCore

/// Golly's rule families beyond Life-like, against bgolly.
@Suite struct RuleFamilyTests {
    /// Every pattern of Golly's Non-Totalistic folder at 200 generations, through
    /// whichever engine `auto` chose: bgolly's cells at bgolly's positions.
    @Test func everyFileOfGollysNonTotalisticFolderIsGollysBoard() throws {
        let folder = "/usr/share/golly/Patterns/Non-Totalistic"
        guard let bgolly = Harness.bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        guard let names = FileManager.default.enumerator(atPath: folder)?.compactMap({ $0 as? String }) else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let files = names.filter { $0.hasSuffix(".rle") }.sorted()
        #expect(files.count >= 14)
        let dir = try Harness.temporaryDirectory()
        for name in files {
            // A copy, as bgolly writes its results beside its input.
            let input = dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "-"))
            try FileManager.default.copyItem(atPath: "\(folder)/\(name)", toPath: input.path)
            let output = dir.appendingPathComponent("out-" + input.lastPathComponent)
            let run = try Harness.tessera(["run", input.path, "--generations", "200", "--output", output.path])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(try Harness.cells(ofPatternFile: output) == Harness.golly(input, generations: 200), "\(name)")
            // The rule is named as Golly names it.
            let theirs = dir.appendingPathComponent("golly-" + input.lastPathComponent)
            #expect(try Harness.run(bgolly, ["-q", "-q", "-m", "0", "-o", theirs.path, input.path]).status == 0)
            #expect(try ruleLine(of: output) == ruleLine(of: theirs), "\(name)")
        }
    }

    func ruleLine(of file: URL) throws -> Substring? {
        let header = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("x =") }
        return header.flatMap { line in line.range(of: "rule = ").map { line[$0.upperBound...] } }
    }

    /// A non-totalistic soup on two workers, with halos deeper than one cell: the rule
    /// crosses the wire as its table, and halos between processes carry it out.
    @Test(arguments: ["B2-a/S12", "B37/S2-i34q"])
    func aTableRuleOnTwoWorkersIsGollysBoard(rule: String) throws {
        let dir = try Harness.temporaryDirectory()
        let start = try Harness.soupFile(density: "0.35", seed: 5, rule: "\(rule):T192,128", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let run = try Harness.tessera(["run", start.path, "--generations", "90", "--workers", "2", "--tiles", "3x2",
                                       "--halo", "4", "--no-head-start", "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 workers"), "\(run.stdout)")
        #expect(try Harness.cells(ofPatternFile: output) == Harness.golly(start, generations: 90))
    }
}

extension RuleFamilyTests {
    /// B0 without S8 on the unbounded plane, as Golly's QuickLife runs it (its HashLife
    /// refuses it): the stored cells, inverted at odd generations, are bgolly's, in this
    /// process and on two workers. Golly's p168 knightship flies under such a rule.
    @Test(arguments: [1000, 1001])
    func b0WithoutS8RunsOnTheUnboundedPlane(generations: Int) throws {
        let golly = "/usr/share/golly/Patterns/Life-Like/p168-knightship.rle"
        guard FileManager.default.fileExists(atPath: golly) else {
            throw TesseraError("Golly's patterns are not installed", fix: "apt-get install golly")
        }
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("knightship.rle")
        try FileManager.default.copyItem(atPath: golly, toPath: input.path)
        let expected = try Harness.gollyQuickLife(input, generations: generations)
        #expect(expected.count >= 10)
        for workers in ["0", "2"] {
            let output = dir.appendingPathComponent("out-\(workers).rle")
            let run = try Harness.tessera(["run", input.path, "--generations", "\(generations)", "--workers", workers,
                                           "--output", output.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Harness.shape(of: try Harness.cells(ofPatternFile: output)) == expected, "\(workers) workers")
        }
    }
}
