import FoundationEssentials
import TesseraCore
import TesseraRun

/// A pattern file of a corpus, and the bgolly engines that run its rule.
package struct CorpusFile: Sendable, Equatable {
    /// bgolly's engines (`-a NAME`).
    package enum Engine: String, Sendable, Equatable, CaseIterable {
        case quickLife = "QuickLife", hashLife = "HashLife", generations = "Generations"
        case largerThanLife = "Larger than Life", ruleLoader = "RuleLoader", jvn = "JvN"
    }

    package let path: String
    /// The path under the folder it was found in, for tables.
    package let name: String

    /// The pattern files under `folders`, in name order: the formats Golly reads, gzipped
    /// or not (scripts, zips and rule files are not patterns).
    package static func find(in folders: [String]) throws -> [CorpusFile] {
        let extensions: Set = ["rle", "cells", "lif", "life", "mc", "mcl"]
        var found: [CorpusFile] = []
        for folder in folders {
            guard Files.isFolder(folder), let names = try? FileManager.default.subpathsOfDirectory(atPath: folder) else {
                throw TesseraError("cannot read folder \(folder)", fix: "give folders of pattern files")
            }
            for name in names.sorted() {
                let plain = name.hasSuffix(".gz") ? String(name.dropLast(3)) : name
                guard let dot = plain.lastIndex(of: "."), extensions.contains(plain[plain.index(after: dot)...].lowercased()),
                      !Files.isFolder(folder + "/" + name) else { continue }
                let shown = folders.count == 1 ? name : Files.lastComponent(of: folder) + "/" + name
                found.append(CorpusFile(path: folder + "/" + name, name: shown))
            }
        }
        return found
    }

    /// The rule a pattern file's text names: an RLE's `rule =`, a macrocell's `#R`, an
    /// MCell file's `#RULE` (with its `#GAME`), Life 1.05's `#R`; nil when it names none.
    package static func rule(inText text: Substring) -> (rule: String, game: String?)? {
        var game: String?
        // Golly's own MCell files end their lines with CR LF, one Character to Swift.
        for line in text.split(maxSplits: 200, whereSeparator: \.isNewline).lazy.map({ $0.trimmingWhitespace }) {
            if line.hasPrefix("#GAME") { game = String(line.dropFirst(5).trimmingWhitespace) }
            if line.hasPrefix("#RULE") { return (String(line.dropFirst(5).trimmingWhitespace), game) }
            if line.hasPrefix("#R ") || line.hasPrefix("#R\t") { return (String(line.dropFirst(2).trimmingWhitespace), game) }
            if line.hasPrefix("x"), let field = line.firstRange(of: "rule") {
                let rest = line[field.upperBound...].trimmingWhitespace
                guard rest.hasPrefix("=") else { return nil }
                return (String(rest.dropFirst().trimmingWhitespace), game)
            }
        }
        return nil
    }

    /// The bgolly engines that run `rule` (Golly's notation, bounded-grid suffix and
    /// all), fastest first where there are two to try.
    package static func engines(forRule rule: String?, game: String? = nil) -> [Engine] {
        if let game = game?.lowercased() {
            if game.hasPrefix("generations") { return [.generations] }
            if game.hasPrefix("larger than life") { return [.largerThanLife] }
        }
        guard let rule else { return [.quickLife, .hashLife] }
        let core = rule.split(separator: ":", maxSplits: 1).first.map(String.init) ?? rule
        if VonNeumannRules.gollyName(of: core) != nil { return [.jvn] }
        // A name no notation reads, with a rule file: Banks-I looks like B…/S… to the forms below.
        if (try? Rule(parsing: core)) == nil, RuleFiles.path(named: core) != nil { return [.ruleLoader] }
        let upper = core.uppercased()
        if upper.wholeMatch(of: /R\d+,C\d+,M[01],S[\d.,]*,B[\d.,]*(,N.)?/) != nil { return [.largerThanLife] }
        if core.wholeMatch(of: /\d*\/\d*\/\d+/) != nil || upper.wholeMatch(of: /B[0-9A-Z\-]*\/S[0-9A-Z\-]*\/C?\d+/) != nil
            || upper.wholeMatch(of: /G\d+\/?[BS].*/) != nil {
            return [.generations]
        }
        // Life-like, isotropic non-totalistic, MAP, Wolfram and hexagonal or von Neumann
        // forms: Golly's QuickLife and HashLife run them all.
        // (Hensel's letters: c e k a i n y q j r t w z.)
        // Births alone (persian-rugs.lif's `B234`) are a rule Golly reads too.
        if upper.wholeMatch(of: /B[0-9CEKAINYQJRTWZ\-]*(\/?_?S[0-9CEKAINYQJRTWZ\-]*)?[HV]?|S?[0-9]*\/B?[0-9]*[HV]?|W\d+|LIFE/) != nil
            || core.hasPrefix("MAP") {
            return [.quickLife, .hashLife]
        }
        return [.ruleLoader]
    }
}
