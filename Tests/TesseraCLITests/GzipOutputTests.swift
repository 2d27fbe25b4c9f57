import Foundation
import Testing
import TesseraPatterns

/// `--output` ending `.gz` writes the file gzip-compressed, as Golly ships its own:
/// unpacked, it is byte for byte the file a plain name gets, and Tessera and bgolly
/// read it back as the same pattern.
@Suite struct GzipOutputTests {
    static let gzip = URL(fileURLWithPath: "/bin/gzip")

    @Test(arguments: [
        (["gosper", "--size", "256x256", "--generations", "300"], "rle"),
        (["gosper", "--size", "256x256", "--generations", "300"], "cells"),
        (["acorn", "--generations", "2000"], "rle"),
        (["gosper", "--generations", "5000", "--algorithm", "hashlife"], "mc"),
        (["gosper", "--generations", "700", "--algorithm", "tiles", "--workers", "0"], "mc"),
    ])
    func aGzippedOutputIsThePlainFileCompressed(run: [String], format: String) throws {
        let dir = try Harness.temporaryDirectory()
        let plain = dir.appendingPathComponent("out.\(format)"), packed = dir.appendingPathComponent("out.\(format).gz")
        for output in [plain, packed] {
            let result = try Harness.tessera(["run"] + run + ["--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let bytes = try Data(contentsOf: packed)
        #expect(Array(bytes.prefix(2)) == [0x1F, 0x8B])
        let unpacked = try Harness.run(Self.gzip, ["-dc", packed.path])
        let text = try String(contentsOf: plain, encoding: .utf8)
        #expect(unpacked.status == 0 && unpacked.stdout == text)
        #expect(try PatternFile.load(packed.path) == (try PatternFile.load(plain.path)))
        if format != "cells", Harness.bgolly != nil {
            #expect(try Harness.golly(packed, generations: 0) == (try Harness.golly(plain, generations: 0)))
        }
    }

    @Test func anUnknownFormatUnderGzIsRefusedInOneLine() throws {
        let dir = try Harness.temporaryDirectory()
        let result = try Harness.tessera(["run", "glider", "--generations", "1", "--output", dir.appendingPathComponent("out.txt.gz").path])
        #expect(result.status == 2 && result.stderr.contains(".gz") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
