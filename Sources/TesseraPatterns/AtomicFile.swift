import Foundation
import TesseraCore

/// A whole board written as text a row at a time, taken in chunks: the writer never
/// needs the board, or the text, whole.
public protocol BoardEncoder {
    /// Adds the next row (its words, 64 cells each).
    mutating func append(_ words: ArraySlice<UInt64>)
    /// Ends the text, after the last row.
    mutating func finish()
    /// The text encoded since the last call.
    mutating func take() -> String
}

extension BoardEncoder {
    /// Encodes the rows of `grid`, handing the text to `sink` in chunks.
    public mutating func append(_ grid: BitGrid, to sink: (String) throws -> Void) rethrows {
        for y in 0..<grid.height {
            append(grid.row(y))
            if y & 255 == 255 { try sink(take()) }
        }
        try sink(take())
    }

    /// All of `grid` as text: the whole board.
    public mutating func encode(_ grid: BitGrid) -> String {
        var text = ""
        append(grid) { text += $0 }
        finish()
        return text + take()
    }

    /// Writes all of `grid` as `path`, atomically.
    public mutating func write(_ grid: BitGrid, to path: String) throws {
        let file = try AtomicFile(path)
        try append(grid, to: file.write)
        finish()
        try file.write(take())
        try file.commit()
    }
}

/// A file a reader never sees half of: written into a temporary file beside the
/// target and renamed over it only by `commit()`; dropped uncommitted, it leaves nothing.
public final class AtomicFile {
    public let path: String
    private let temporary: String
    private let handle: FileHandle
    private var committed = false

    public init(_ path: String) throws {
        try Self.checkWritable(path)
        self.path = path
        temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary)
        else { throw TesseraError("cannot create \(temporary)", fix: "check the folder's permissions") }
        self.handle = handle
    }

    deinit {
        guard !committed else { return }
        try? handle.close()
        unlink(temporary)
    }

    public func write(_ chunk: String) throws {
        do {
            try handle.write(contentsOf: Data(chunk.utf8))
        } catch {
            throw TesseraError("cannot write \(path): \(error.localizedDescription)", fix: "check the free disk space")
        }
    }

    /// Puts the file in place.
    public func commit() throws {
        try handle.close()
        guard rename(temporary, path) == 0 else {
            throw TesseraError("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))",
                               fix: "check the folder's permissions")
        }
        committed = true
    }

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
        let file = try AtomicFile(path)
        try produce(file.write)
        try file.commit()
    }
}
