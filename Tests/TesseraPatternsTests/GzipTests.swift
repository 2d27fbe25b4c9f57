import FoundationEssentials
import Testing
import TesseraCore
@testable import TesseraPatterns

/// Golly's collection ships many patterns gzipped: they are read as the file inside, and
/// damaged or truncated data is refused in one line.
@Suite struct GzipTests {
    /// A glider's RLE as two gzip members (what `cat a.gz b.gz` makes), from Python's gzip.
    static let first: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 83, 118, 86, 72, 84, 72, 207, 201, 76, 73, 45, 226, 170,
                                 80, 176, 85, 48, 214, 81, 168, 132, 80, 69, 165, 57, 169, 64, 150, 147, 177, 126, 176,
                                 145, 49, 87, 82, 190, 138, 17, 16, 3, 0, 150, 102, 64, 31, 47, 0, 0, 0]
    static let second: [UInt8] = [31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 51, 206, 87, 228, 2, 0, 179, 248, 27, 236, 4, 0, 0, 0]

    func load(_ bytes: [UInt8], name: String = "glider.rle.gz") throws -> Pattern {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try PatternFile.load(path)
    }

    @Test func aGzippedRLEIsReadAsTheRLEInside() throws {
        let pattern = try load(Self.first + Self.second)
        #expect(pattern == (try RLE.parse("#C a glider\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n")))
    }

    @Test(arguments: [
        (Array(first + second).dropLast(9), "truncated"),
        (first + second.prefix(12) + [0xFF, 0xFF] + second.dropFirst(14), "damaged gzip data"),
        (first + [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "damaged gzip data"),
    ] as [(ArraySlice<UInt8>, String)])
    func damagedDataIsRefusedInOneLine(bytes: ArraySlice<UInt8>, problem: String) throws {
        let error = try #require(throws: TesseraError.self) { try load(Array(bytes)) }
        #expect(error.description.contains(problem) && !error.description.contains("\n"), "\(error)")
    }

    @Test func otherCompressionsAreStillNamed() throws {
        let error = try #require(throws: TesseraError.self) { try load(Array("BZh91AY&SY".utf8), name: "x.rle.bz2") }
        #expect(error.description.contains("bzip2-compressed") && error.description.contains("bunzip2"))
    }
}
