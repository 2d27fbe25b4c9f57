import Foundation

/// Corpus files: a folder's files (sorted, so runs repeat), or one file.
package enum FuzzFiles {
    package static func list(_ path: String) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
    }

    package static func bytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { Array($0) } ?? []
    }
}
