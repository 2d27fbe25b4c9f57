import Foundation
import Testing
import TesseraWire
import _TesseraFuzzTargets

/// The fuzzers' seed corpora and every input a fuzzer ever broke Tessera with
/// (Tests/Fuzz/regressions), run through the same targets, without the sanitizers.
@Suite struct FuzzCorpusTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func files(_ kind: String, _ target: FuzzTarget) -> [String] {
        FuzzFiles.list(fuzz.appendingPathComponent("\(kind)/\(target.rawValue)").path)
    }

    /// Every message kind's sample is a seed; TESSERA_WRITE_FUZZ_SEEDS=1 writes them anew.
    @Test func wireSeedsHoldEveryKind() throws {
        let folder = Self.fuzz.appendingPathComponent("corpus/wire")
        if ProcessInfo.processInfo.environment["TESSERA_WRITE_FUZZ_SEEDS"] != nil {
            // The seeds written before go first: a message added in the middle shifts the
            // numbers, and the old files would stay as copies (or as an old wire version).
            for old in try FileManager.default.contentsOfDirectory(atPath: folder.path) where old.first?.isNumber == true {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(old))
            }
            for (index, message) in WireFormatTests.messages.enumerated() {
                let name = String(format: "%02d-%@", index, "\(message.kind)")
                try Data(Wire.encode(message)).write(to: folder.appendingPathComponent(name))
            }
        }
        let seeds = Set(Self.files("corpus", .wire).map { FuzzFiles.bytes($0) })
        for message in WireFormatTests.messages {
            #expect(seeds.contains(Wire.encode(message)), "no seed for \(message.kind): run with TESSERA_WRITE_FUZZ_SEEDS=1")
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func corporaAndRegressionsRunCleanly(target: FuzzTarget) {
        let inputs = Self.files("corpus", target) + Self.files("regressions", target)
        #expect(!Self.files("corpus", target).isEmpty, "no seeds for \(target)")
        // A trap here is what the fuzzer found; passing means it stays fixed.
        for input in inputs { target.run(FuzzFiles.bytes(input)) }
    }
}
