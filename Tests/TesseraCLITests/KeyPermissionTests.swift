import Foundation
import Testing

/// A key folder others may change is not trusted: whoever can write its `allowed` list
/// lets their own key in, and whoever can write the folder can swap any file in it.
@Suite struct KeyPermissionTests {
    static func keys(in dir: URL) throws -> URL {
        let folder = dir.appendingPathComponent("keys")
        let made = try Harness.tessera(["keygen", folder.path])
        try #require(made.status == 0, "\(made.stderr)")
        return folder
    }

    /// One line naming the file, the problem and `chmod go-w`, exit status 2, from a
    /// worker and from a run, and the run writes nothing.
    static func expectRefused(_ keys: URL, naming path: String, in dir: URL) throws {
        let output = dir.appendingPathComponent("out.rle")
        for line in [["worker", "--coordinator", "tcp://127.0.0.1:9", "--keys", keys.path],
                     ["run", "glider", "--generations", "4", "--workers", "2", "--keys", keys.path, "--output", output.path]] {
            let result = try Harness.tessera(line)
            #expect(result.status == 2, "\(line[0]): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(line[0]): \(result.stderr)")
            #expect(result.stderr.contains("\(path) may be changed by others") && result.stderr.contains("chmod go-w \(path)"),
                    "\(line[0]): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// Before: `chmod 666 keys/allowed` was accepted, and the run went on with a list any
    /// local user could add a key to.
    @Test func anAllowedListOthersMayWriteIsRefused() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keys(in: dir)
        let allowed = keys.appendingPathComponent("allowed").path
        for mode: mode_t in [0o666, 0o620, 0o602] {
            chmod(allowed, mode)
            try Self.expectRefused(keys, naming: allowed, in: dir)
        }
        // Readable by others is no harm: the list holds public keys only.
        chmod(allowed, 0o644)
        let output = dir.appendingPathComponent("fine.rle")
        let run = try Harness.tessera(["run", "glider", "--generations", "4", "--workers", "2", "--keys", keys.path, "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// Before: a key folder any local user may write was accepted: its `allowed` list
    /// could be replaced whatever the list's own mode.
    @Test func aKeyFolderOthersMayWriteIsRefused() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keys(in: dir)
        defer { chmod(keys.path, 0o700) }
        for mode: mode_t in [0o777, 0o770] {
            chmod(keys.path, mode)
            try Self.expectRefused(keys, naming: keys.path, in: dir)
        }
    }
}
