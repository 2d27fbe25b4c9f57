#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Golly's rule files found by name, as bgolly's RuleLoader finds `NAME.rule` in the
/// folder given with `-s`: in each folder of `TESSERA_RULES` (colon-separated), then in
/// Golly's own collection where the golly package put it. A rule is read and compiled
/// once a process.
package enum RuleFiles {
    /// Where the golly package installs its rule files.
    package static let gollyFolder = "/usr/share/golly/Rules"

    package static var folders: [String] {
        let own = getenv("TESSERA_RULES").map { String(cString: $0).split(separator: ":").map(String.init) } ?? []
        return own + [gollyFolder]
    }

    private static let compiled = Mutex<[String: RuleTree]>([:])

    /// The path of `name.rule` in the first folder that has it; nil where none has it, or
    /// `name` could not name a file (a path, or a notation's characters).
    package static func path(named name: String) -> String? {
        guard isFileName(name) else { return nil }
        return folders.lazy.map { $0 + "/" + name + ".rule" }.first(where: Files.exists)
    }

    /// The rule file `name.rule` (`path(named:)`), compiled; nil where there is none.
    package static func tree(named name: String) throws -> RuleTree? {
        if let tree = compiled.withLock({ $0[name] }) { return tree }
        guard let path = path(named: name) else { return nil }
        let data = try InputFile(path, fix: "check the file's permissions").readToEnd()
        let tree: RuleTree
        do {
            tree = try RuleTree(parsing: String(decoding: data, as: UTF8.self), name: name)
        } catch let error as TesseraError {
            throw TesseraError("rule file \(path): \(error.description)")
        }
        compiled.withLock { $0[name] = tree }
        return tree
    }

    /// Letters, digits, `-`, `_` and `+`: what Golly's rule names are made of, and never
    /// a path.
    private static func isFileName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.first != "-"
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_+".unicodeScalars.contains($0)) }
    }
}
