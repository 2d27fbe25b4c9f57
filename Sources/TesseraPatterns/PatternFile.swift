import FoundationEssentials
import TesseraCore

/// Reads a pattern file in any format Golly writes for two-state rules, and MCell.
public enum PatternFile {
    private enum Format { case rle, plainText, pcLife, macrocell, mcell }

    /// A file's format, told by its name and how its text starts (`start` may be any
    /// prefix long enough to pass the leading blanks).
    private static func format(of start: some StringProtocol, path: String) throws -> Format {
        let start = start.drop(while: \.isWhitespace), lower = path.lowercased()
        if start.hasPrefix("[M2]") { return .macrocell }
        if start.hasPrefix("#MCell") { return .mcell }
        if lower.hasSuffix(".mc") {
            throw TesseraError("not a two-state macrocell file (no '[M2]' first line)",
                               fix: "save the pattern from Golly as macrocell or RLE")
        }
        if start.hasPrefix("#Life 1.05") || start.hasPrefix("#Life 1.06") { return .pcLife }
        if lower.hasSuffix(".cells") || start.hasPrefix("!") || (start.first.map { ".O".contains($0) } ?? false) {
            return .plainText
        }
        if lower.hasSuffix(".lif") || lower.hasSuffix(".life") {
            throw TesseraError("not Life 1.05 or 1.06 (no '#Life 1.05' or '#Life 1.06' line)", fix: "convert it to RLE or Life 1.06")
        }
        return .rle
    }

    /// Compressed files Tessera does not unpack, told by their first bytes.
    private static func compression(of bytes: Data) -> (name: String, tool: String)? {
        if bytes.starts(with: Array("PK\u{03}\u{04}".utf8)) { return ("zip", "unzip") }
        if bytes.starts(with: Array("BZh".utf8)) { return ("bzip2", "bunzip2") }
        if bytes.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return ("xz", "unxz") }
        return nil
    }

    public static func parse(_ text: String, path: String = "") throws -> Pattern {
        switch try format(of: text, path: path) {
        case .pcLife: try PCLife.parse(text)
        case .plainText: try PlainText.parse(text)
        case .rle: try RLE.parse(text)
        case .macrocell: try Macrocell.parse(text)
        case .mcell: try MCell.parse(text)
        }
    }

    /// Reads and parses the pattern file at `path`. RLE is read a piece at a time, so a
    /// board-sized file costs its cells (1 bit each), not its text.
    public static func load(_ path: String) throws -> Pattern {
        let file = try InputFile(path, fix: "check the path, or run 'tessera patterns' for built-in names")
        do {
            let first = try file.read(upTo: 1 << 16)
            if Gzip.isGzip(first) {
                // What Golly reads of `x.rle.gz` is `x.rle`: the inner name tells the format.
                let inner = Files.uncompressedName(of: path)
                let data = try Gzip.unpack(first + file.readToEnd())
                if Gzip.isGzip(data) || compression(of: data) != nil {
                    throw TesseraError("compressed twice", fix: "unpack it by hand and give the pattern inside")
                }
                guard let text = String(data: data, encoding: .utf8) else {
                    throw TesseraError("not UTF-8 text inside the gzip data", fix: "give an RLE, .cells, Life 1.06 or macrocell file")
                }
                return try parse(text, path: inner)
            }
            if let compression = compression(of: first) {
                throw TesseraError("\(compression.name)-compressed, which Tessera does not read",
                                   fix: "unpack it first (\(compression.tool)) and give the RLE, .cells, Life 1.06 or macrocell inside")
            }
            if try format(of: String(decoding: first, as: UTF8.self), path: path) == .rle {
                return try RLE.read(file, startingWith: first)
            }
            let rest = try file.readToEnd()
            guard let text = String(data: first + rest, encoding: .utf8) else {
                throw TesseraError("not UTF-8 text", fix: "give an RLE, .cells or Life 1.06 file")
            }
            return try parse(text, path: path)
        } catch let error as TesseraError {
            throw TesseraError("\(path): \(error.description)")
        } catch {
            throw TesseraError("cannot read \(path): \(error)", fix: "check the file")
        }
    }
}
