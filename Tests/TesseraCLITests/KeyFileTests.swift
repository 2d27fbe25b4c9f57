import Foundation
import Testing

/// A key folder whose files were damaged is named as such, one line, whichever process reads it.
@Suite struct KeyFileTests {
    /// Before: a `member.key` that is not UTF-8 said "No such file or directory" (run) or
    /// "Success" (worker): errno was stale by the time the message was made.
    @Test func aMemberKeyThatIsNotUTF8IsNotAKeyFile() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = dir.appendingPathComponent("keys")
        #expect(try Harness.tessera(["keygen", keys.path]).status == 0)
        let key = keys.appendingPathComponent("member.key")
        var bytes = try Data(contentsOf: key)
        bytes.insert(contentsOf: [0xFF, 0xFE], at: 20)
        try bytes.write(to: key)
        chmod(key.path, 0o600)
        for line in [["run", "glider", "--generations", "4", "--workers", "1", "--keys", keys.path],
                     ["worker", "--coordinator", "tcp://127.0.0.1:9", "--keys", keys.path]] {
            let result = try Harness.tessera(line)
            #expect(result.status == 2, "\(line[0]): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1
                        && result.stderr.contains("member.key is not a file 'tessera keygen' wrote: it is not UTF-8 text")
                        && result.stderr.contains("tessera keygen DIR"), "\(line[0]): \(result.stderr)")
        }
    }
}
