#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// A file open for reading, a chunk at a time, by POSIX calls.
package final class InputFile {
    private let descriptor: Int32

    /// Opens the regular file at `path`; throws naming what is wrong (no such file, a
    /// folder, no permission) and `fix`.
    package init(_ path: String, fix: String) throws {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TesseraError("cannot read \(path): \(errno == ENOENT ? "no such file" : Files.systemReason())", fix: fix)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
            close(descriptor)
            throw TesseraError("cannot read \(path): it is a folder", fix: fix)
        }
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes, fewer only at the end of the file; empty there. Read into
    /// memory never zeroed first: a small pattern file read a megabyte at a time spent a
    /// fifteenth of its whole run zeroing the megabyte.
    package func read(upTo count: Int) throws -> Data {
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            filled = 0
            while filled < count {
                let got = Glibc.read(descriptor, buffer.baseAddress! + filled, count - filled)
                if got < 0 && errno == EINTR { continue }
                guard got >= 0 else { throw TesseraError(Files.systemReason()) }
                if got == 0 { break }
                filled += got
            }
        }
        return Data(bytes)
    }

    /// Everything from here to the end.
    package func readToEnd() throws -> Data {
        var all = Data()
        while case let chunk = try read(upTo: 1 << 20), !chunk.isEmpty { all.append(chunk) }
        return all
    }
}

/// Paths and the standard streams, as POSIX has them.
package enum Files {
    /// The last part of `path`, as NSString's `lastPathComponent` gives it: "b" for
    /// "a/b" and "a/b/", "/" for "/".
    package static func lastComponent(of path: String) -> String {
        guard let last = path.split(separator: "/").last else { return path.isEmpty ? "" : "/" }
        return String(last)
    }

    /// `path` without a `.gz` (of any case): the name that tells a gzipped file's format,
    /// as Golly reads `x.rle.gz` as `x.rle`.
    package static func uncompressedName(of path: String) -> String {
        path.lowercased().hasSuffix(".gz") ? String(path.dropLast(3)) : path
    }

    /// The folder `path` names a file in: "a" for "a/b", "/" for "/b", "." for "b".
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether something is at `path` (a link, where it leads), as FileManager's
    /// fileExists says, without starting a FileManager.
    package static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Whether `path` is a folder.
    package static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The system's own words for the last failed call ("No space left on device").
    package static func systemReason() -> String {
        String(cString: strerror(errno))
    }

    /// Writes `text` to standard error whole, around stdio's buffers, as one write where it fits.
    package static func writeToStandardError(_ text: String) { _ = write(text, to: 2) }

    /// Writes `text` to standard output whole, around stdio's buffers.
    package static func writeToStandardOutput(_ text: String) { _ = write(text, to: 1) }

    /// Writes all of `text` to `descriptor`, again after a signal or a short write;
    /// false, with `errno` saying why, when the system refuses.
    package static func write(_ text: String, to descriptor: Int32) -> Bool {
        var text = text
        return text.withUTF8 { write($0, to: descriptor) }
    }

    /// Writes all of `bytes` to `descriptor` (see `write(_:to:)`).
    package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            done += written
        }
        return true
    }
}

extension StringProtocol {
    /// Without the whitespace at either end (spaces, tabs, a CR left by CRLF lines).
    package var trimmingWhitespace: Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { !$0.isWhitespace }) else { return s[s.endIndex...] }
        let last = s.lastIndex(where: { !$0.isWhitespace })!
        return s[first...last]
    }
}
