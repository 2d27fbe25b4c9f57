import CTesseraSystem
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
        self = Self.oneAtATime(format, arguments) ?? Self.printf(format, arguments)
    }

    /// The format's conversions one number at a time through C (`tessera_format_*`), each
    /// argument taken by its own type, a type check: `withVaList` asks each whether it is
    /// passed as a double, a protocol cast that searches all of the binary's conformance
    /// records when first made (a small run's summary spent 50 µs on it). Nil for an
    /// argument or a conversion this does not know, which `printf` then takes whole.
    static func oneAtATime(_ format: String, _ arguments: [CVarArg]) -> String? {
        let bytes = Array(format.utf8), percent = UInt8(ascii: "%")
        var result = "", rest = arguments[...], at = 0
        while at < bytes.count {
            guard bytes[at] == percent else {
                let start = at
                while at < bytes.count, bytes[at] != percent { at += 1 }
                result += String(decoding: bytes[start..<at], as: UTF8.self)
                continue
            }
            // Flags, width and precision are kept; a length is the argument's own.
            var end = at + 1
            while end < bytes.count, "-+ #0123456789.".utf8.contains(bytes[end]) { end += 1 }
            let spec = Array(bytes[at..<end]), lengthStart = end
            while end < bytes.count, "hlLqjzt".utf8.contains(bytes[end]) { end += 1 }
            // The bits an integer conversion reads: an int's 32 where no length is given.
            let bits = switch String(decoding: bytes[lengthStart..<end], as: UTF8.self) {
            case "": 32
            case "h": 16
            case "hh": 8
            default: 64
            }
            guard end < bytes.count else { return nil }
            let conversion = bytes[end]
            at = end + 1
            if conversion == percent, spec.count == 1 {
                result += "%"
                continue
            }
            guard let argument = rest.popFirst() else { return nil }
            let number: String?
            switch UnicodeScalar(conversion) {
            case "d", "i":
                number = integer(argument).flatMap { value in
                    // The low `bits`, sign-extended.
                    let signed = Int64(bitPattern: value << (64 - bits)) >> (64 - bits)
                    return formatted(spec + Array("lld".utf8)) { tessera_format_signed($0, $1, $2, signed) }
                }
            case "u", "o", "x", "X":
                number = integer(argument).flatMap { value in
                    let unsigned = (value << (64 - bits)) >> (64 - bits)
                    return formatted(spec + Array("ll".utf8) + [conversion]) { tessera_format_unsigned($0, $1, $2, unsigned) }
                }
            case "f", "F", "e", "E", "g", "G", "a", "A":
                let value: Double? = switch argument {
                case let double as Double: double
                case let float as Float: Double(float)
                default: nil
                }
                number = value.flatMap { value in formatted(spec + [conversion]) { tessera_format_double($0, $1, $2, value) } }
            default:
                number = nil
            }
            guard let number else { return nil }
            result += number
        }
        return rest.isEmpty ? result : nil
    }

    /// An integer argument's bits, as printf's `ll` conversions read them.
    private static func integer(_ argument: CVarArg) -> UInt64? {
        switch argument {
        case let value as Int: UInt64(bitPattern: Int64(value))
        case let value as Int64: UInt64(bitPattern: value)
        case let value as Int32: UInt64(bitPattern: Int64(value))
        case let value as UInt: UInt64(value)
        case let value as UInt64: value
        case let value as UInt32: UInt64(value)
        case let value as UInt16: UInt64(value)
        case let value as UInt8: UInt64(value)
        default: nil
        }
    }

    /// What `write` puts in a buffer given its size and the NUL-terminated `spec`.
    private static func formatted(_ spec: [UInt8],
                                  _ write: (UnsafeMutablePointer<CChar>, Int, UnsafePointer<CChar>) -> Int32) -> String? {
        let spec = spec.map { CChar(bitPattern: $0) } + [0]
        var buffer = [CChar](repeating: 0, count: 128)
        var length = Int(write(&buffer, buffer.count, spec))
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            length = Int(write(&buffer, buffer.count, spec))
        }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func printf(_ format: String, _ arguments: [CVarArg]) -> String {
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
