import Testing
@testable import TesseraCore

/// The POSIX helpers that stand in for Foundation's: paths as NSString split them, and
/// printf formatting as String(format:) gave it.
@Suite struct SystemHelpersTests {
    @Test(arguments: [("a/b", "b", "a"), ("a/b/", "b", "a/b"), ("/b", "b", "/"), ("b", "b", "."), ("/", "/", "/"), ("", "", ".")])
    func pathsSplitAsNSStringSplitsThem(path: String, last: String, folder: String) {
        #expect(Files.lastComponent(of: path) == last)
        #expect(Files.folder(of: path) == folder)
    }

    @Test func numbersFormatAsPrintfFormatsThem() {
        #expect(String(cFormat: "%.3f s", 0.0125) == "0.013 s")
        #expect(String(cFormat: "generation-%020llu", UInt64(2000)) == "generation-00000000000000002000")
        #expect(String(cFormat: "%7d|%-4d|%06.1f%%", 42, 7, 3.25) == "     42|7   |0003.2%")
        // Longer than the first buffer: formatted again into one that fits, not cut short.
        let long = String(cFormat: "%0300d", 5)
        #expect(long.count == 300 && long.hasSuffix("05") && long.hasPrefix("000"))
    }

    @Test func aCgroupQuotaCapsTheCPUsARunCounts() {
        #expect(CPUAffinity.quotaCPUs(v2: "max 100000", v1Quota: nil, v1Period: nil) == nil)
        #expect(CPUAffinity.quotaCPUs(v2: "150000 100000", v1Quota: "-1", v1Period: "100000") == 2)
        #expect(CPUAffinity.quotaCPUs(v2: "50000 100000", v1Quota: nil, v1Period: nil) == 1)
        #expect(CPUAffinity.quotaCPUs(v2: nil, v1Quota: "-1", v1Period: "100000") == nil)
        #expect(CPUAffinity.quotaCPUs(v2: nil, v1Quota: "400000", v1Period: "100000") == 4)
        #expect(CPUAffinity.quotaCPUs(v2: nil, v1Quota: nil, v1Period: nil) == nil)
        #expect((1...CPUAffinity.allowed.count).contains(CPUAffinity.usableCount))
    }

    @Test func columnsPadToTheirWidth() {
        #expect("ab".padded(5) == "ab   " && "ab".leftPadded(5) == "   ab" && "abcdef".padded(3) == "abcdef")
    }
}
