#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A file a reader never sees half of: written into a temporary file beside the target
/// and renamed over it only by `commit()`; dropped uncommitted, it leaves nothing. Text
/// goes in through `write`; C libraries that open files by name (libpng, giflib) write
/// to `temporaryPath`.
///
/// Plain POSIX calls: Foundation's `createFile` made (and renamed into place) an empty
/// file of its own before this one opened it, a tenth of a millisecond of every run.
public final class AtomicFile {
    public let path: String
    public let temporaryPath: String
    private var descriptor: Int32
    private var committed = false

    public init(_ path: String) throws {
        try Self.checkWritable(path)
        self.path = path
        temporaryPath = path + ".tmp-\(getpid())"
        Self.removeTemporaryFilesOfEndedProcesses(path)
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw TesseraError("cannot create \(temporaryPath): \(Files.systemReason())", fix: "check the folder's permissions")
        }
    }

    deinit {
        guard !committed else { return }
        if descriptor >= 0 { close(descriptor) }
        unlink(temporaryPath)
    }

    public func write(_ chunk: String) throws {
        guard Files.write(chunk, to: descriptor) else { throw writeFailed() }
    }

    public func write(_ bytes: [UInt8]) throws {
        guard bytes.withUnsafeBufferPointer({ Files.write($0, to: descriptor) }) else { throw writeFailed() }
    }

    private func writeFailed() -> TesseraError {
        TesseraError("cannot write \(path): \(Files.systemReason())", fix: "check the free disk space")
    }

    /// Puts the file in place.
    public func commit() throws {
        // Some file systems report a full disk only when the file is closed.
        let closed = close(descriptor)
        descriptor = -1
        guard closed == 0 else { throw writeFailed() }
        guard rename(temporaryPath, path) == 0 else {
            throw TesseraError("cannot rename \(temporaryPath) to \(path): \(Files.systemReason())",
                               fix: "check the folder's permissions")
        }
        committed = true
    }

    /// Checks that `path` can be written, before any work is spent producing it.
    public static func checkWritable(_ path: String) throws {
        let folder = Files.folder(of: path)
        guard Files.isFolder(folder) else {
            throw TesseraError("cannot write \(path): folder \(folder) does not exist", fix: "create it or choose another path")
        }
        guard access(folder, W_OK) == 0 else {
            throw TesseraError("cannot write \(path): folder \(folder) is not writable", fix: "choose another path")
        }
    }

    /// Removes what a process killed while it wrote `path` left: `path.tmp-PID` for each
    /// PID no process has any more (a killed process's files outlive it). One whose
    /// process lives, still writing or a stranger that took the PID, is left alone.
    static func removeTemporaryFilesOfEndedProcesses(_ path: String) {
        let folder = Files.folder(of: path), prefix = Files.lastComponent(of: path) + ".tmp-"
        let names = leftovers.withLock { leftovers in
            var names = leftovers[folder] ?? Self.leftovers(in: folder)
            defer { leftovers[folder] = names }
            return names.filter { $0.hasPrefix(prefix) }.map { names.remove($0)! }
        }
        for name in names { unlink(folder + "/" + name) }
    }

    /// Each folder's leftovers, found by its first file of this process: one pass over a
    /// folder however many files go there (a run's frames, a checkpoint's tiles).
    private static let leftovers = Mutex<[String: Set<String>]>([:])

    /// The names in `folder` of the form `NAME.tmp-PID` whose process has ended.
    private static func leftovers(in folder: String) -> Set<String> {
        guard let listing = opendir(folder) else { return [] }
        defer { closedir(listing) }
        var found: Set<String> = []
        while let entry = readdir(listing) {
            // Read in place up to its NUL: a record ends there, and copying the whole
            // `dirent` reads past it, off the end of the listing's last page.
            let name = String(cString: (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!)
                .assumingMemoryBound(to: CChar.self))
            guard let pid = temporaryOwner(name), pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            found.insert(name)
        }
        return found
    }

    /// The process named after a file name's last `.tmp-`, if a number follows it. Bytes,
    /// not `String.ranges(of:)`: the string-processing library's first search costs a
    /// process a tenth of a millisecond of lookups and page faults.
    static func temporaryOwner(_ name: String) -> Int32? {
        let bytes = Array(name.utf8), mark = Array(".tmp-".utf8)
        guard bytes.count > mark.count else { return nil }
        for start in stride(from: bytes.count - mark.count, through: 0, by: -1)
        where bytes[start..<start + mark.count].elementsEqual(mark) {
            return Int32(String(decoding: bytes[(start + mark.count)...], as: UTF8.self))
        }
        return nil
    }

    /// Creates `path` from the chunks `produce` hands to its sink.
    public static func write(_ path: String, produce: ((String) throws -> Void) throws -> Void) throws {
        let file = try AtomicFile(path)
        try produce(file.write)
        try file.commit()
    }
}
