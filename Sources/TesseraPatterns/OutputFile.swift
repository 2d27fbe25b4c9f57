import CZlib
import TesseraCore

/// A pattern file being written, atomically (`AtomicFile`): as the text itself, or,
/// for a path ending `.gz`, gzip-compressed as it goes, the way Golly ships its
/// `.rle.gz` and `.mc.gz` files (and reads them back).
final class OutputFile {
    private let file: AtomicFile
    /// The deflate stream of a `.gz` file; nil for plain text. zlib keeps the stream's
    /// address in its state, so it lives in memory of its own, never moved.
    private let stream: UnsafeMutablePointer<z_stream>?
    /// Where deflate writes, for a compressed file only: 64 KiB zeroed is 16 pages that
    /// a plain file's process would fault in for nothing.
    private var output: [UInt8] = []

    init(_ path: String) throws {
        file = try AtomicFile(path)
        guard Self.isCompressed(path) else {
            stream = nil
            return
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 + 16: a window of 2^15 bytes, with the gzip header and trailer.
        guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            throw TesseraError("zlib cannot start compressing \(path)", fix: "check that zlib is installed, or leave out .gz")
        }
        self.stream = stream
        output = [UInt8](repeating: 0, count: 1 << 16)
    }

    deinit {
        guard let stream else { return }
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Whether a file at `path` is written gzip-compressed.
    static func isCompressed(_ path: String) -> Bool { path.lowercased().hasSuffix(".gz") }

    func write(_ chunk: String) throws {
        guard stream != nil else { return try file.write(chunk) }
        var chunk = chunk
        try chunk.withUTF8 { try deflate($0, finishing: false) }
    }

    /// Puts the file in place, its compressed stream ended first.
    func commit() throws {
        if stream != nil { try deflate(UnsafeBufferPointer(start: nil, count: 0), finishing: true) }
        try file.commit()
    }

    private func deflate(_ bytes: UnsafeBufferPointer<UInt8>, finishing: Bool) throws {
        guard let stream else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress)
        stream.pointee.avail_in = uInt(bytes.count)
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                return CZlib.deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
            }
            let made = output.count - Int(stream.pointee.avail_out)
            if made > 0 { try file.write(Array(output[..<made])) }
            switch status {
            case Z_STREAM_END: return
            case Z_OK, Z_BUF_ERROR:
                // More to come out while the buffer filled, or all that came in is taken.
                if stream.pointee.avail_out == 0 || (finishing && status == Z_OK) { continue }
                return
            default:
                throw TesseraError("zlib failed compressing \(file.path) (status \(status))", fix: "leave out .gz")
            }
        }
    }
}
