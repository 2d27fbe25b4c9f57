import Foundation
import Testing

/// `tessera bench corpus` on a folder as a user has one: files it runs (one of a
/// Generations rule, one a macrocell), one it refuses (a B0 rule on a tube), one gzipped and one named .gz that is plain text; each compared with bgolly.
@Suite struct CorpusBenchTests {
    @Test(.timeLimit(.minutes(3)))
    func aFolderIsRunBesideBgollyAndCompared() throws {
        let dir = try Harness.temporaryDirectory()
        let corpus = dir.appendingPathComponent("corpus"), out = dir.appendingPathComponent("results")
        try FileManager.default.createDirectory(at: corpus.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let acorn = "x = 7, y = 3, rule = B3/S23\nbo$3bo$2o2b3o!\n"
        try acorn.write(to: corpus.appendingPathComponent("acorn.rle"), atomically: true, encoding: .utf8)
        try "x = 3, y = 1, rule = 345/2/4\n3o!\n".write(to: corpus.appendingPathComponent("sub/brain.rle"), atomically: true, encoding: .utf8)
        try "x = 3, y = 1, rule = B03/S23:T0,8\n3o!\n".write(to: corpus.appendingPathComponent("sub/b0-tube.rle"), atomically: true, encoding: .utf8)
        try "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n".write(to: corpus.appendingPathComponent("plain.rle.gz"), atomically: true, encoding: .utf8)
        let packed = try Harness.spawn("/bin/sh", ["-c", "printf '\(acorn)' | gzip -c > '\(corpus.path)/packed.rle.gz'"])
        #expect(packed.status == 0)
        // A macrocell's result is compared as the macrocells both write (node for node).
        try "[M2] (golly 3.3)\n#R B3/S23\n.*$..*$***$\n4 1 0 0 0\n".write(to: corpus.appendingPathComponent("glider.mc"), atomically: true, encoding: .utf8)
        try "not a pattern".write(to: corpus.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)

        let result = try Harness.tessera(["bench", "corpus", corpus.path, "--generations", "40", "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("5 matched, 0 differ, 0 too large to compare, 1 refused by tessera"), "\(result.stdout)")
        let csv = try String(contentsOf: out.appendingPathComponent("corpus.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == 7, "\(csv)")
        func row(_ file: String) -> [Substring] { csv.first { $0.hasPrefix(file + ",") }?.split(separator: ",", omittingEmptySubsequences: false) ?? [] }
        #expect(row("acorn.rle").dropFirst(3).first == "matched")
        #expect(row("packed.rle.gz").dropFirst(3).first == "matched")
        #expect(row("plain.rle.gz").dropFirst(3).first == "matched")
        #expect(row("sub/brain.rle").dropFirst(3).first == "matched")
        #expect(row("sub/brain.rle").dropFirst(6).first == "Generations")
        let refused = csv.first { $0.hasPrefix("sub/b0-tube.rle,") } ?? ""
        #expect(refused.contains(",refused,") && refused.contains("Life,") && refused.contains("has B0"), "\(refused)")
        // The acorn at generation 40 has 96 cells (bgolly agrees, or the row would not match).
        #expect(row("acorn.rle").dropFirst(11).first == "96")
        #expect(row("glider.mc").dropFirst(3).first == "matched")
        #expect(row("glider.mc").dropFirst(11).first == "5")
        for name in ["corpus.json", "corpus.svg"] {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(name).path))
        }
    }

    @Test func aFolderWithoutPatternsSaysSo() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["bench", "corpus", dir.path, "--out", dir.appendingPathComponent("r").path])
        #expect(result.status == 2 && result.stderr.contains("no pattern files") && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
    }
}
