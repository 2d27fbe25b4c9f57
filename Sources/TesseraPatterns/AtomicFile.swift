import Foundation
import TesseraCore

/// Writes files so a reader never sees half of one: into a temporary file beside the
/// target, renamed over it only once complete.
public enum AtomicFile {
    /// Checks that `path` can be written, before any work is spent producing it.
    public static func checkWritable(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TesseraError("cannot write \(path): folder \(dir) does not exist", fix: "create it or choose another --output")
        }
        guard FileManager.default.isWritableFile(atPath: dir) else {
            throw TesseraError("cannot write \(path): folder \(dir) is not writable", fix: "choose another --output")
        }
    }

    /// Creates `path` from the chunks `produce` hands to its sink.
    public static func write(_ path: String, produce: ((String) throws -> Void) throws -> Void) throws {
        try checkWritable(path)
        let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary)
        else { throw TesseraError("cannot create \(temporary)", fix: "check the folder's permissions") }
        do {
            try produce { chunk in try handle.write(contentsOf: Data(chunk.utf8)) }
            try handle.close()
            if rename(temporary, path) != 0 {
                throw TesseraError("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))",
                                   fix: "check the folder's permissions")
            }
        } catch {
            try? handle.close()
            unlink(temporary)
            throw error
        }
    }
}

extension PatternFile {
    /// Reads and parses the pattern file at `path`.
    public static func load(_ path: String) throws -> Pattern {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw TesseraError("cannot read \(path): \(exists ? "permission denied or not a file" : "no such file")",
                               fix: "check the path, or run 'tessera patterns' for built-in names")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw TesseraError("\(path) is not UTF-8 text", fix: "give an RLE, .cells or Life 1.06 file")
        }
        do {
            return try parse(text, path: path)
        } catch let error as TesseraError {
            throw TesseraError("\(path): \(error.description)")
        }
    }
}
