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

    public static func check(bytes: Int, what: String, fix: String) throws {
        let limit = physicalBytes / 10 * 9
        guard bytes <= limit else {
            throw TesseraError(
                "\(what) needs \(bytes >> 20) MiB but this machine has \(physicalBytes >> 20) MiB", fix: fix)
        }
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
