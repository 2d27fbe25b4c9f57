import FoundationEssentials
import TesseraCore
import TesseraRun

/// The `--out` folder of a bench: checked before any run, made only when there are results.
package enum ResultsFolder {
    /// Fails at once if `path` cannot become a folder of results; makes nothing.
    package static func check(_ path: String) throws {
        try Files.checkFolderCanBeMade(path, fix: "give --out a writable folder")
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
