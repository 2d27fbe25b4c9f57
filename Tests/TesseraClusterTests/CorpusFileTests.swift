import Foundation
import Testing
@testable import TesseraBench
@testable import TesseraRun

/// Which bgolly engine runs a corpus file's rule, and where the file says what its rule is.
@Suite struct CorpusFileTests {
    @Test(arguments: [
        ("B3/S23", ["QuickLife", "HashLife"]), ("b36/s23:T512,512", ["QuickLife", "HashLife"]), ("23/3", ["QuickLife", "HashLife"]),
        ("B2-a/S12", ["QuickLife", "HashLife"]), ("B2cek3i_S12cei", ["QuickLife", "HashLife"]), ("W22", ["QuickLife", "HashLife"]),
        ("B2/S34H", ["QuickLife", "HashLife"]), ("B234", ["QuickLife", "HashLife"]), ("MAPARYXfhZofugWaH7oaIDogBZofuhogOiAaIDogIAAgAAWaH7oaIDogGiA6ICAAIAAaIDogIAAgACAAIAAAAAAAA", ["QuickLife", "HashLife"]),
        ("345/2/4", ["Generations"]), ("B2/S/C3", ["Generations"]), ("R5,C0,M1,S34..58,B34..45,NM", ["Larger than Life"]),
        ("LifeHistory", ["RuleLoader"]), ("BriansBrain", ["RuleLoader"]), ("WireWorld", ["RuleLoader"]),
        ("JvN29", ["JvN"]), ("Nobili32:T200,100", ["JvN"]), ("Hutton32", ["JvN"]),
    ])
    func enginesFollowTheRule(rule: String, engines: [String]) {
        #expect(CorpusFile.engines(forRule: rule).map(\.rawValue) == engines, "\(rule)")
    }

    /// Golly's Banks-I reads like B…/S… (B, letters, S); its rule file decides.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/golly/Rules/Banks-I.rule")))
    func aRuleFileDecidesBeforeTheNotationsLookalikes() {
        #expect(CorpusFile.engines(forRule: "Banks-I:T100,100") == [.ruleLoader])
    }

    @Test func theGameOfAnMCellFileDecides() {
        #expect(CorpusFile.engines(forRule: "12/34/3", game: "Generations") == [.generations])
        #expect(CorpusFile.engines(forRule: "R2,C0,M0,S2..3,B3..3", game: "Larger than Life") == [.largerThanLife])
    }

    @Test func theRuleIsReadFromEachFormat() {
        #expect(CorpusFile.rule(inText: "#N glider\nx = 3, y = 3, rule = B36/S23:T64,64\nbo$2bo$3o!")?.rule == "B36/S23:T64,64")
        #expect(CorpusFile.rule(inText: "[M2] (golly 3.3)\n#R B3/S23\n#G 100\n")?.rule == "B3/S23")
        #expect(CorpusFile.rule(inText: "#MCell 4.20\n#GAME Generations\n#RULE 345/2/4\n#L ...")! == ("345/2/4", "Generations"))
        #expect(CorpusFile.rule(inText: "x = 3, y = 3\nbo$2bo$3o!") == nil)
    }
}
