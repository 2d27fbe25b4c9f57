import CZlib
import FoundationEssentials
import TesseraCore

/// gzip files as Golly's collection ships many of its patterns (`.rle.gz`, `.mc.gz`).
package enum Gzip {
    /// Whether `bytes` start as a gzip file does.
    package static func isGzip(_ bytes: Data) -> Bool { bytes.starts(with: [0x1F, 0x8B]) }

    /// The bytes inside the gzip file `compressed` (every member, as gunzip gives them).
    /// Refuses damaged or truncated data, and more unpacked bytes than this machine
    /// allows, before it holds them.
    package static func unpack(_ compressed: Data) throws -> Data {
        var stream = z_stream()
        // 15 + 16: a window of 2^15 bytes, and the gzip header and trailer.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw TesseraError("zlib cannot start unpacking", fix: "check that zlib is installed")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        try compressed.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
            guard let base = input.bindMemory(to: Bytef.self).baseAddress else { return }
            stream.next_in = UnsafeMutablePointer(mutating: base)
            stream.avail_in = uInt(input.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let made = chunk.count - Int(stream.avail_out)
                try MemoryBudget.check(bytes: output.count + made, what: "the unpacked pattern",
                                       fix: "unpack it by hand (gunzip) and check what it holds")
                output.append(contentsOf: chunk[..<made])
                switch status {
                case Z_STREAM_END:
                    // Another member follows (files joined with cat), or the end.
                    guard stream.avail_in > 0 else { return }
                    guard inflateReset(&stream) == Z_OK else {
                        throw TesseraError("damaged gzip data after its first member", fix: "download or copy it again")
                    }
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    throw TesseraError("gzip data ends early: the file is truncated", fix: "download or copy it again")
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw TesseraError("damaged gzip data (\(reason))", fix: "download or copy it again")
                }
            }
        }
        return output
    }
}
