// A rule file's text as Golly reads it: its lines as Golly's linereader cuts them,
// its numbers as C's sscanf scans them.

extension RuleTree {
    /// Golly's `linereader::fgets` (gollybase/util.cpp): a line ends at LF, CR or CR LF,
    /// and at most `limit - 1` bytes come at once, a longer line coming in pieces that
    /// Golly reads as lines of their own (999 bytes in a table, 4095 in a tree). Each
    /// section starts a new reader, as Golly does, which sees an LF left from the CR LF
    /// ending the section's own line as an empty line.
    struct LineReader {
        let bytes: [UInt8]
        private(set) var position: Int
        /// The last byte read: an LF straight after a CR is not a line of its own (nor
        /// are further LFs, as Golly does not note them).
        private var last: UInt8 = 0

        init(_ bytes: [UInt8], at position: Int = 0) {
            (self.bytes, self.position) = (bytes, position)
        }

        mutating func next(limit: Int) -> Line? {
            var start: Int?
            var count = 0
            while count + 1 < limit {
                guard position < bytes.count else {
                    return count == 0 ? nil : Line(bytes: bytes, start: start ?? position, count: count)
                }
                let c = bytes[position]
                position += 1
                if c == 10 && last == 13 { continue }
                if c == 10 || c == 13 {
                    last = c
                    return Line(bytes: bytes, start: start ?? position - 1, count: count)
                }
                last = c
                start = start ?? position - 1
                count += 1
            }
            return Line(bytes: bytes, start: start ?? position, count: count)
        }

        /// The 1-based line of `offset`, LF, CR and CR LF each ending a line, for messages.
        func lineNumber(at offset: Int) -> Int {
            var number = 1
            for i in 0..<min(offset, bytes.count) where bytes[i] == 13 || (bytes[i] == 10 && (i == 0 || bytes[i - 1] != 13)) {
                number += 1
            }
            return number
        }

        /// A section's refusal of `line`, naming its number and its first characters.
        func refusal(in section: String, of line: Line, _ problem: String, fix: String) -> TesseraError {
            let shown = String(decoding: line.text.prefix(72), as: UTF8.self)
            return TesseraError("\(section) line \(lineNumber(at: line.start)) '\(shown)': \(problem)", fix: fix)
        }
    }

    /// A line as Golly's buffer holds it: `raw` to the line's end, `text` to its first
    /// NUL, where C's string ends.
    struct Line {
        let raw: ArraySlice<UInt8>

        init(bytes: [UInt8], start: Int, count: Int) { raw = bytes[start..<start + count] }

        var start: Int { raw.startIndex }
        var text: ArraySlice<UInt8> { raw.prefix { $0 != 0 } }
    }
}

// MARK: - Reading as C does

func ascii(_ scalar: Unicode.Scalar) -> UInt8 { UInt8(scalar.value) }

/// sscanf's `%d` (`signed`) or `%u`: spaces first, a sign, then at least one digit,
/// anything after ignored; nil where no digit comes. The value is what glibc stores: the
/// long strtol or strtoul makes (clamped where it overflows), cut to 32 bits, so `%u`
/// reads -1 as 4294967295.
func scanInteger(_ text: ArraySlice<UInt8>, signed: Bool) -> UInt32? {
    var i = text.startIndex
    while i < text.endIndex && (text[i] == 32 || (9...13).contains(text[i])) { i += 1 }
    let negative = i < text.endIndex && text[i] == ascii("-")
    if i < text.endIndex && (text[i] == ascii("-") || text[i] == ascii("+")) { i += 1 }
    let digits = i
    var magnitude: UInt64 = 0, overflow = false
    while i < text.endIndex && text[i] >= ascii("0") && text[i] <= ascii("9") {
        let (times, over) = magnitude.multipliedReportingOverflow(by: 10)
        let (sum, carry) = times.addingReportingOverflow(UInt64(text[i] - ascii("0")))
        overflow = overflow || over || carry
        magnitude = sum
        i += 1
    }
    guard i > digits else { return nil }
    if signed {
        let value: Int64 = negative ? (overflow || magnitude > 1 << 63 ? .min : Int64(bitPattern: 0 &- magnitude))
                                    : (overflow || magnitude > UInt64(Int64.max) ? .max : Int64(magnitude))
        return UInt32(truncatingIfNeeded: value)
    }
    return UInt32(truncatingIfNeeded: overflow ? .max : negative ? 0 &- magnitude : magnitude)
}
