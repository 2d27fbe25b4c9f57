import Foundation

/// A file a reader never sees half of: written into a temporary file beside the target
/// and renamed over it only by `commit()`; dropped uncommitted, it leaves nothing. Text
/// goes in through `write`; C libraries that open files by name (libpng, giflib) write
/// to `temporaryPath`.
public final class AtomicFile {
    public let path: String
    public let temporaryPath: String
    private let handle: FileHandle
    private var committed = false

    public init(_ path: String) throws {
        try Self.checkWritable(path)
        self.path = path
        temporaryPath = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporaryPath, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporaryPath)
        else { throw TesseraError("cannot create \(temporaryPath)", fix: "check the folder's permissions") }
        self.handle = handle
    }

    deinit {
        guard !committed else { return }
        try? handle.close()
        unlink(temporaryPath)
    }

    public func write(_ chunk: String) throws {
        try write(Array(chunk.utf8))
    }

    public func write(_ bytes: [UInt8]) throws {
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw TesseraError("cannot write \(path): \(Self.reason(error))", fix: "check the free disk space")
        }
    }

    /// The system's own words for a failed write ("No space left on device"), which
    /// Foundation keeps as the underlying error of its own sentence.
    private static func reason(_ error: Error) -> String {
        let error = error as NSError
        if let posix = error.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return error.localizedDescription
    }

    /// Puts the file in place.
    public func commit() throws {
        try handle.close()
        guard rename(temporaryPath, path) == 0 else {
            throw TesseraError("cannot rename \(temporaryPath) to \(path): \(String(cString: strerror(errno)))",
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
            throw TesseraError("cannot write \(path): folder \(dir) does not exist", fix: "create it or choose another path")
        }
        guard FileManager.default.isWritableFile(atPath: dir) else {
            throw TesseraError("cannot write \(path): folder \(dir) is not writable", fix: "choose another path")
        }
    }

    /// Creates `path` from the chunks `produce` hands to its sink.
    public static func write(_ path: String, produce: ((String) throws -> Void) throws -> Void) throws {
        let file = try AtomicFile(path)
        try produce(file.write)
        try file.commit()
    }
}
