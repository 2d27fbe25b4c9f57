import FoundationEssentials
import TesseraCore

/// A run configuration: flat TOML, one `key = value` per line, keys named like the
/// command's long flags (`connect-timeout` or `connect_timeout`). Flags override it.
package struct ConfigFile {
    package let path: String
    private(set) var values: [String: String] = [:]

    package init(path: String, allowed: [String]) throws {
        self.path = path
        let data = try InputFile(path, fix: "check the path given to --config").readToEnd()
        guard let text = String(data: data, encoding: .utf8) else {
            throw TesseraError("config \(path) is not UTF-8 text", fix: "save it as UTF-8 (plain TOML)")
        }
        var lineOfKey: [String: Int] = [:]
        // `isNewline` splits CRLF lines too: "\r\n" is one Character, never equal to "\n".
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = Self.strippingComment(raw).trimmingWhitespace
            if line.isEmpty { continue }
            let number = index + 1
            let place = "\(path) line \(number)"
            guard let equals = line.firstIndex(of: "=") else {
                throw TesseraError("\(place): expected 'key = value'",
                                   fix: line.hasPrefix("[") ? "tables are not used: write flat keys" : "write one key = value per line")
            }
            let key = String(line[..<equals].trimmingWhitespace.replacing("_", with: "-"))
            guard allowed.contains(key) else {
                throw TesseraError("\(place): unknown key '\(key)'", fix: "use one of: \(allowed.joined(separator: ", "))")
            }
            if let first = lineOfKey[key] {
                throw TesseraError("\(place): '\(key)' is set again (first on line \(first))", fix: "keep one of the two lines")
            }
            lineOfKey[key] = number
            values[key] = try Self.value(String(line[line.index(after: equals)...].trimmingWhitespace), at: place)
        }
    }

    package subscript(key: String) -> String? { values[key] }

    private static func strippingComment(_ line: Substring) -> Substring {
        var inString = false
        for index in line.indices {
            if line[index] == "\"" { inString.toggle() }
            if line[index] == "#" && !inString { return line[..<index] }
        }
        return line
    }

    private static func value(_ text: String, at location: String) throws -> String {
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\""), !text.dropFirst().dropLast().contains("\"") else {
                throw TesseraError("\(location): unterminated string \(text)", fix: "close the string with \"")
            }
            return String(text.dropFirst().dropLast())
        }
        guard text == "true" || text == "false" || Double(text.replacing("_", with: "")) != nil else {
            throw TesseraError("\(location): value '\(text)' is not a string, number or boolean", fix: "quote strings: \"acorn\"")
        }
        return text.replacing("_", with: "")
    }
}

extension ConfigFile {
    /// `key`'s value as `parse` makes it; nil when the config leaves it out. A value
    /// `parse` refuses is one line: the key, its value, and what is wrong with it.
    package func value<T>(_ key: String, _ parse: (String) -> T?, problem: String, fix: String) throws -> T? {
        guard let text = values[key] else { return nil }
        guard let value = parse(text) else { throw TesseraError("\(path): '\(key) = \(text)' \(problem)", fix: fix) }
        return value
    }

    package func number<T: LosslessStringConvertible>(_ key: String, as: T.Type) throws -> T? {
        try value(key, T.init, problem: "is not a valid \(T.self)", fix: "fix the value in the config")
    }
}
