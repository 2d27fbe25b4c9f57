#if canImport(Glibc)
import Glibc
#endif

/// What Linux says of each page of this process's memory: its /proc/self/pagemap entries.
package enum PageMap {
    /// The page is mapped in this process.
    package static let present: UInt64 = 1 << 63
    /// This process alone maps it.
    package static let exclusive: UInt64 = 1 << 56

    package static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The entries of the pages the `byteCount` bytes from `start` span; nil where the
    /// file cannot be read.
    package static func entries(from start: UnsafeRawPointer, byteCount: Int) -> [UInt64]? {
        let first = Int(bitPattern: start) / pageSize
        let count = (Int(bitPattern: start) + byteCount + pageSize - 1) / pageSize - first
        let fd = open("/proc/self/pagemap", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: count)
        let wanted = count * 8
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(first * 8)) }
        return got == wanted ? entries : nil
    }
}
