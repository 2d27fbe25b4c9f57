import Testing
import Foundation
import CTesseraSystem
import Glibc
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

    /// The formats the code uses go one number at a time, each as vsnprintf writes it.
    @Test func numbersGoOneAtATimeAsVsnprintfWritesThem() {
        let cases: [(String, [CVarArg])] = [
            ("%.3f|%.2fx|%.1f%%|%.0f gen/s|%g|%gx", [0.0125, 3.14159, 99.95, 1e6 + 0.5, 0.0001, 2.0]),
            ("%016llx%016llx|%016llx", [UInt64.max, UInt64(0xbeef), UInt64(1) << 63]),
            ("generation-%020llu|/frame-%06d.png|%7d  %4d  ", [UInt64(2000), 42, -3, Int32(9)]),
            ("%x %X %o %u %i %02d", [-1, 255, 8, UInt32.max, Int64.min, 5]),
            ("%5.1f|%-8.3e|%+d|% d", [Float(2.25), -1234.5, 7, UInt8(200)]),
            // An int's 32 bits, a short's 16 and a char's 8 where the length says so.
            ("%d %u %x|%hd %hhx|%ld %lx", [5_000_000_000, -1, Int64.min + 5, 70000, 511, 5_000_000_000, -1]),
        ]
        for (format, arguments) in cases {
            let formatted = String.oneAtATime(format, arguments)
            #expect(formatted != nil && formatted == String.printf(format, arguments), "\(format)")
        }
    }

    @Test func whatOneAtATimeDoesNotKnowGoesToVsnprintf() {
        #expect(String.oneAtATime("%c", [65]) == nil)
        #expect(String.oneAtATime("%d %d", [1]) == nil)
        #expect(String.oneAtATime("%d", [1, 2]) == nil)
        #expect(String.oneAtATime("%d", [1.5]) == nil)
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

    @Test func aTemporaryFileNamesTheProcessAfterItsLastMark() {
        #expect(AtomicFile.temporaryOwner("out.rle.tmp-4242") == 4242)
        #expect(AtomicFile.temporaryOwner("a.tmp-1.tmp-7") == 7)
        #expect(AtomicFile.temporaryOwner("é.mc.tmp-31") == 31)
        for name in ["out.rle", "out.tmp-", ".tmp-", "tmp-5", "out.tmp-5x", "out.tmp-99999999999"] {
            #expect(AtomicFile.temporaryOwner(name) == nil, "\(name)")
        }
    }

    @Test func columnsPadToTheirWidth() {
        #expect("ab".padded(5) == "ab   " && "ab".leftPadded(5) == "   ab" && "abcdef".padded(3) == "abcdef")
    }
}

/// Each process asks Linux to map only the pages it touches of its binary and libraries,
/// not the 64 KiB around each (fault_around.c); skipped where the kernel cannot (before
/// 6.7) or a sandbox refuses userfaultfd.
@Suite struct FaultAroundTests {
    static let isSupported: Bool = {
        let page = sysconf(Int32(_SC_PAGESIZE))
        let probe = mmap(nil, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        defer { munmap(probe, page) }
        return tessera_map_touched_pages_only(probe, page) == 0
    }()

    /// Pages of `length` bytes from `start` mapped in this process, whatever other tests
    /// map meanwhile; -1 where /proc/self/pagemap cannot be read.
    static func presentPages(_ start: UnsafeMutableRawPointer, _ length: Int) -> Int {
        PageMap.entries(from: start, byteCount: length).map { $0.filter { $0 & PageMap.present != 0 }.count } ?? -1
    }

    @Test(.enabled(if: isSupported)) func aRegisteredFileMappingMapsOnlyThePagesTouched() throws {
        // This test's own binary: a file the page cache holds whole, as it does a binary it runs.
        let length = 4 << 20
        let file = open("/proc/self/exe", O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        var stat = stat()
        try #require(fstat(file, &stat) == 0 && Int(stat.st_size) >= 2 * length)
        // Fault-around maps only what the page cache holds: read it all in first.
        var buffer = [UInt8](repeating: 0, count: 2 * length)
        #expect(pread(file, &buffer, 2 * length, 0) == 2 * length)
        let touch = { (mapping: UnsafeMutableRawPointer) -> Int in
            var sum: UInt8 = 0
            for window in 0..<16 { sum &+= mapping.load(fromByteOffset: window * 256 << 10 + 8192, as: UInt8.self) }
            withExtendedLifetime(sum) {}
            return Self.presentPages(mapping, length)
        }
        let plain = mmap(nil, length, PROT_READ, MAP_PRIVATE, file, 0)!
        defer { munmap(plain, length) }
        let registered = mmap(nil, length, PROT_READ, MAP_PRIVATE, file, off_t(length))!
        defer { munmap(registered, length) }
        #expect(tessera_map_touched_pages_only(registered, length) == 0)
        let aroundEach = touch(plain), eachAlone = touch(registered)
        // Sixteen touches 256 KiB apart: fault-around maps up to 16 pages for each.
        #expect(aroundEach > 64)
        #expect(eachAlone == 16)
    }

    @Test(.enabled(if: isSupported)) func theProcessRegisteredItsBinaryAndLibrariesAtStart() throws {
        // The kernel marks a registered mapping "uw" in smaps: this binary's code and
        // libc's were registered before the test began.
        var executable = [UInt8](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &executable, executable.count)
        try #require(count > 0)
        let binary = String(decoding: executable[..<count], as: UTF8.self)
        guard let file = fopen("/proc/self/smaps", "r") else { throw CancellationError() }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        var path = "", binaryCode = (registered: 0, not: 0), libcCode = (registered: 0, not: 0)
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            if let first = text.first, first.isHexDigit, text.contains("-") {
                path = text.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init) ?? ""
                path = path.trimmingCharacters(in: .whitespacesAndNewlines)
            } else if text.hasPrefix("VmFlags:"), text.contains(" ex") {
                let isRegistered = text.contains(" uw")
                if path == binary { isRegistered ? (binaryCode.registered += 1) : (binaryCode.not += 1) }
                if path.hasSuffix("/libc.so.6") { isRegistered ? (libcCode.registered += 1) : (libcCode.not += 1) }
            }
        }
        #expect(binaryCode.registered >= 1 && binaryCode.not == 0)
        #expect(libcCode.registered >= 1 && libcCode.not == 0)
        // Registering what is registered already changes nothing, and is no error.
        #expect(tessera_map_touched_pages_only_of_loaded_files() > 0)
    }
}

/// A child process holds the descriptors it is given and no other.
@Suite struct ChildProcessTests {
    /// Foundation's `Process` makes a socket pair without close-on-exec and learns that
    /// its child ended when the child's end closes. A program another thread started
    /// meanwhile inherited that end and kept it as long as it lived: a test's 40 ms
    /// `tessera bench corpus` waited 3 minutes on a daemon of another test.
    @Test func aChildHoldsNoDescriptorItWasNotGiven() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let sleeper = try ChildProcess.spawn(["/bin/sleep", "30"])
        defer {
            sleeper.signal(SIGKILL)
            close(ends[0])
        }
        close(ends[1])
        // Readable at once, with nothing to read: the other end is closed everywhere.
        var entry = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 10_000)
        #expect(ready == 1, "the child holds the socket's other end")
        var byte: UInt8 = 0
        if ready == 1 { #expect(read(ends[0], &byte, 1) == 0) }
    }

    @Test func aChildStartsWhereItIsToldWithTheVariablesItIsGiven() throws {
        let folder = "/tmp/tessera-child-\(getpid())", said = folder + "/said"
        #expect(mkdir(folder, 0o700) == 0)
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        let child = try ChildProcess.spawn(["/bin/sh", "-c", "pwd; echo \"$TESSERA_TEST_NAME\"; read -r line || echo no input"],
                                           output: said, environment: ["TESSERA_TEST_NAME": "wren"], directory: folder)
        #expect(child.waitBlocking(seconds: 30) == .exited(0))
        #expect((try? String(contentsOfFile: said, encoding: .utf8)) == "\(folder)\nwren\nno input\n")
    }

    @Test func aBlockingWaitEndsWhenItsTimeIsUp() throws {
        let sleeper = try ChildProcess.spawn(["/bin/sleep", "30"])
        #expect(sleeper.waitBlocking(seconds: 0.05) == nil)
        sleeper.signal(SIGKILL)
        #expect(sleeper.waitBlocking() == .signalled(SIGKILL))
    }
}
