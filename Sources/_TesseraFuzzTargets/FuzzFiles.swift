import FoundationEssentials
import TesseraCore
import Glibc

/// Corpus files: a folder's files (sorted, so runs repeat), or one file.
package enum FuzzFiles {
    package static func list(_ path: String) -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard Files.isFolder(path) else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
    }

    package static func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { Array($0) } ?? []
    }
}
