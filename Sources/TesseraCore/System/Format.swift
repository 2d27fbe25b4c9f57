import Foundation

/// Numbers as people read them in summaries, tables and status lines.
package enum Format {
    /// `73.20 G`, `950.00 M` (with `decimals` 2).
    package static func rate(_ value: Double, decimals: Int = 2) -> String {
        for (scale, unit) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= scale {
            return String(format: "%.\(decimals)f", value / scale) + " " + unit
        }
        return String(format: "%.0f", value)
    }

    /// `1.5 GiB`, `4.2 KiB`, `12 B`.
    package static func bytes(_ value: UInt64) -> String {
        for (scale, unit) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] where value >= UInt64(scale) {
            return String(format: "%.1f", Double(value) / Double(scale)) + " " + unit
        }
        return "\(value) B"
    }

    /// `42 s`, `3 min 20 s`, `2 h 05 min`.
    package static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(String(format: "%02d", s % 60)) s" }
        return "\(s / 3600) h \(String(format: "%02d", s / 60 % 60)) min"
    }
}
