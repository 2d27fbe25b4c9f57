#if canImport(Glibc)
import Glibc
#endif

extension Files {
    /// Checks that `folder` is a folder that can be written in, or one that can be made:
    /// the nearest part of the path that exists is a writable folder. Nothing is made,
    /// so a run refused later leaves no empty folder behind; it makes the folder when it
    /// first writes there.
    package static func checkFolderCanBeMade(_ folder: String, fix: String = "choose another path") throws {
        var existing = folder
        while !exists(existing) {
            let parent = self.folder(of: existing)
            guard parent != existing, !existing.isEmpty else { break }
            existing = parent
        }
        guard isFolder(existing) else {
            throw TesseraError("cannot make folder \(folder): \(existing) is not a folder", fix: fix)
        }
        guard access(existing, W_OK) == 0 else {
            throw TesseraError("cannot make folder \(folder): \(existing) is not writable", fix: fix)
        }
    }
}
