#if canImport(Glibc)
import Glibc
#endif

/// Numbers as people read them in summaries, tables and status lines.
package enum Format {
    /// The first `limit` bytes of what a peer sent, each one that is not printable
    /// ASCII as `?`: one line in a log, whatever the peer put there.
    package static func shown(_ bytes: some Sequence<UInt8>, upTo limit: Int) -> String {
        String(decoding: bytes.prefix(limit).map { (32..<127).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }

    /// `73.20 G`, `950.00 M` (with `decimals` 2).
    package static func rate(_ value: Double, decimals: Int = 2) -> String {
        for (scale, unit) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= scale {
            return String(cFormat: "%.\(decimals)f", value / scale) + " " + unit
        }
        return String(cFormat: "%.0f", value)
    }

    /// `1.5 GiB`, `4.2 KiB`, `12 B`.
    package static func bytes(_ value: UInt64) -> String {
        for (scale, unit) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] where value >= UInt64(scale) {
            return String(cFormat: "%.1f", Double(value) / Double(scale)) + " " + unit
        }
        return "\(value) B"
    }

    /// `42 s`, `3 min 20 s`, `2 h 05 min`.
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(String(cFormat: "%02d", s % 60)) s" }
        return "\(s / 3600) h \(String(cFormat: "%02d", s / 60 % 60)) min"
    }
}

extension String {
    /// Spaces after, to `width` characters: a column of a table.
    package func padded(_ width: Int) -> String { self + String(repeating: " ", count: Swift.max(0, width - count)) }

    /// Spaces before, to `width` characters: a right-aligned column.
    package func leftPadded(_ width: Int) -> String { String(repeating: " ", count: Swift.max(0, width - count)) + self }

    /// `arguments` formatted as C's printf formats them, numbers only (`%d`, `%.3f`,
    /// `%06d`, `%llu`): Foundation's `String(format:)` without Foundation, which costs
    /// every process a third of a millisecond to start.
    package init(cFormat format: String, _ arguments: CVarArg...) {
        self = Self.printf(format, arguments)
    }

    private static func printf(_ format: String, _ arguments: [CVarArg]) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        var length = withVaList(arguments) { Int(vsnprintf(&buffer, buffer.count, format, $0)) }
        if length >= buffer.count {
            // Too long for the first buffer: again, with room for all of it.
            buffer = [CChar](repeating: 0, count: length + 1)
            length = withVaList(arguments) { Int(vsnprintf(&buffer, buffer.count, format, $0)) }
        }
        return String(decoding: buffer.prefix(Swift.max(0, length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
