import Foundation
import TesseraCore

/// Reads a pattern file in any format Golly writes for two-state rules.
public enum PatternFile {
    public static func parse(_ text: String, path: String = "") throws -> Pattern {
        let start = text.drop(while: \.isWhitespace)
        if start.hasPrefix("#Life 1.06") { return try Life106.parse(text) }
        if path.lowercased().hasSuffix(".cells") || start.hasPrefix("!")
            || (start.first.map { ".O".contains($0) } ?? false) {
            return try PlainText.parse(text)
        }
        if path.lowercased().hasSuffix(".lif") || path.lowercased().hasSuffix(".life") {
            throw TesseraError("\(path) is not Life 1.06 (no '#Life 1.06' line)", fix: "convert it to RLE or Life 1.06")
        }
        return try RLE.parse(text)
    }

    /// Reads and parses the pattern file at `path`. RLE is read a piece at a time, so a
    /// board-sized file costs its cells (1 bit each), not its text.
    public static func load(_ path: String) throws -> Pattern {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let handle = FileHandle(forReadingAtPath: path)
        else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw TesseraError("cannot read \(path): \(exists ? "permission denied or not a file" : "no such file")",
                               fix: "check the path, or run 'tessera patterns' for built-in names")
        }
        defer { try? handle.close() }
        do {
            let first = try handle.read(upToCount: 1 << 16) ?? Data()
            if isRLE(first, path: path) { return try RLE.read(handle, startingWith: first) }
            let rest = try handle.readToEnd() ?? Data()
            guard let text = String(data: first + rest, encoding: .utf8) else {
                throw TesseraError("\(path) is not UTF-8 text", fix: "give an RLE, .cells or Life 1.06 file")
            }
            return try parse(text, path: path)
        } catch let error as TesseraError {
            throw TesseraError("\(path): \(error.description)")
        } catch {
            throw TesseraError("cannot read \(path): \(error.localizedDescription)", fix: "check the file")
        }
    }

    /// Whether a file starting with `bytes` is RLE, by the same tests `parse` makes.
    private static func isRLE(_ bytes: Data, path: String) -> Bool {
        let lower = path.lowercased()
        guard !lower.hasSuffix(".cells"), !lower.hasSuffix(".lif"), !lower.hasSuffix(".life") else { return false }
        let start = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        return !start.starts(with: "#Life 1.06".utf8) && !["!", ".", "O"].contains(start.first.map { Character(UnicodeScalar($0)) })
    }
}
