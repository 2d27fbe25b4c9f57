import FoundationEssentials
import TesseraCore

/// The `--out` folder of a bench: checked before any run, made only when there are results.
package enum ResultsFolder {
    /// Fails at once if `path` cannot become a folder of results; makes nothing.
    package static func check(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) {
            guard Files.isFolder(path), FileManager.default.isWritableFile(atPath: path) else {
                throw TesseraError("cannot write into \(path)", fix: "give --out a writable folder")
            }
            return
        }
        // The nearest folder up the path that exists is the one the new folders go in.
        var parent = Files.folder(of: path)
        while parent != "." && parent != "/" && !FileManager.default.fileExists(atPath: parent) {
            parent = Files.folder(of: parent)
        }
        guard FileManager.default.isWritableFile(atPath: parent) else {
            throw TesseraError("cannot create folder \(path)", fix: "check the path given to --out")
        }
    }

    /// Writes each (name, text) into `path`, each file atomically, making the folder first.
    package static func write(_ files: [(name: String, text: String)], into path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw TesseraError("cannot create folder \(path)", fix: "check the path given to --out")
        }
        for (name, text) in files {
            try AtomicFile.write(path + "/" + name) { try $0(text) }
        }
    }
}
