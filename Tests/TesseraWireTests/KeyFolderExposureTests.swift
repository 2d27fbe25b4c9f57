import Glibc
import Testing
@testable import TesseraWire

/// What a key folder must keep from other users, by permission bits alone.
@Suite struct KeyFolderExposureTests {
    @Test func secretKeysAreForTheirOwnerAlone() {
        #expect(KeyFolder.exposure(of: "k/member.key", mode: 0o100600, as: .secretKey) == nil)
        #expect(KeyFolder.exposure(of: "k/member.key", mode: 0o100400, as: .secretKey) == nil)
        for mode: mode_t in [0o100640, 0o100604, 0o100620] {
            let problem = KeyFolder.exposure(of: "k/member.key", mode: mode, as: .secretKey)?.description ?? ""
            #expect(problem.contains("others may read it") && problem.contains("chmod 600 k/member.key"), "\(problem)")
        }
    }

    /// Before: an `allowed` list any local user could write was trusted, so any of them
    /// could add their own key.
    @Test func trustFilesOthersMayWriteAreRefused() {
        for mode: mode_t in [0o100600, 0o100644, 0o100444] {
            #expect(KeyFolder.exposure(of: "k/allowed", mode: mode, as: .trustFile) == nil, "\(String(mode, radix: 8))")
        }
        for mode: mode_t in [0o100666, 0o100620, 0o100602] {
            let problem = KeyFolder.exposure(of: "k/allowed", mode: mode, as: .trustFile)?.description ?? ""
            #expect(problem.hasPrefix("k/allowed may be changed by others (mode \(String(mode & 0o777, radix: 8)))"), "\(problem)")
            #expect(problem.hasSuffix("run chmod go-w k/allowed"), "\(problem)")
        }
    }

    /// Whoever may write the folder can swap `allowed` for a list of their own, as ssh's
    /// StrictModes knows of ~/.ssh.
    @Test func foldersOthersMayWriteAreRefused() {
        for mode: mode_t in [0o40700, 0o40755, 0o40750] {
            #expect(KeyFolder.exposure(of: "k", mode: mode, as: .folder) == nil, "\(String(mode, radix: 8))")
        }
        for mode: mode_t in [0o40777, 0o40770, 0o41777] {
            let problem = KeyFolder.exposure(of: "k", mode: mode, as: .folder)?.description ?? ""
            #expect(problem.hasPrefix("key folder k may be changed by others") && problem.hasSuffix("run chmod go-w k"), "\(problem)")
        }
    }
}
