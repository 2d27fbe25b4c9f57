#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Refuses allocations that would not fit in this machine's memory, before making them.
public enum MemoryBudget {
    /// Physical memory in bytes.
    public static var physicalBytes: Int {
        Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The most one allocation may take: 90% of physical memory, or TESSERA_MEMORY_LIMIT_MB
    /// (for sharing a machine, and for the fuzzers, whose inputs may declare any size).
    public static let limitBytes: Int = {
        if let text = getenv("TESSERA_MEMORY_LIMIT_MB").map({ String(cString: $0) }), let megabytes = Int(text), megabytes > 0 {
            return megabytes << 20
        }
        return physicalBytes / 10 * 9
    }()

    public static func check(bytes: Int, what: String, fix: String) throws {
        guard bytes <= limitBytes else {
            throw TesseraError(
                "\(what) needs \(bytes >> 20) MiB but this machine allows \(limitBytes >> 20) MiB", fix: fix)
        }
    }
}

/// CPU time, which a busy machine's other processes do not add to as they add to wall time.
public enum CPUClock {
    /// What the calling thread has run. Read before and after a stretch of work with no
    /// `await` in it (the thread stays the same), the difference is what that work cost.
    public static var thread: Duration { now(CLOCK_THREAD_CPUTIME_ID) }
    /// What all of this process's threads have run.
    public static var process: Duration { now(CLOCK_PROCESS_CPUTIME_ID) }

    private static func now(_ clock: clockid_t) -> Duration {
        var now = timespec()
        clock_gettime(clock, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}

extension String {
    /// The text of a NUL-terminated buffer that a C function filled.
    package init(cBuffer: [CChar]) {
        self.init(decoding: cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
