import Foundation
import Testing

/// What a run that fails leaves on disk: nothing it made for nothing, no file half
/// written, and nothing of a killed run's at the next run into the same place.
@Suite struct LeftoverFileTests {
    private func contents(_ dir: URL) -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    /// Before: the folders of --frames and --checkpoint were made before the keys were
    /// read, and stayed, empty, after the run was refused.
    @Test func aRefusedRunLeavesNoFolders() throws {
        let dir = try Harness.temporaryDirectory()
        let noKeys = dir.appendingPathComponent("no-keys").path
        for line in [["run", "--soup", "0.35", "--size", "256x256", "--generations", "10", "--workers", "2",
                      "--frames", dir.appendingPathComponent("frames/a").path],
                     ["coordinator", "--soup", "0.35", "--size", "256x256", "--generations", "10", "--workers", "2",
                      "--listen", "tcp://127.0.0.1:*"]] {
            let result = try Harness.tessera(line + ["--checkpoint", dir.appendingPathComponent("ck/b").path, "--keys", noKeys])
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("no-keys"),
                    "\(line[0]): \(result.stderr)")
            #expect(contents(dir).isEmpty, "\(line[0]): \(contents(dir))")
        }
    }

    /// Before: `OUT.tmp-PID` of a run killed while it wrote OUT stayed for good.
    @Test func theNextRunIntoTheSamePlaceRemovesAKilledRunsTemporaryFile() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("soup.rle")
        let killed = try RunningTessera(["run", "--soup", "0.35", "--size", "8192x8192", "--generations", "0", "--workers", "0",
                                         "--output", output.path])
        let temporary = try Processes.poll(timeout: 60, "the output's temporary file") {
            contents(dir).first { $0.hasPrefix("soup.rle.tmp-") }
        }
        kill(killed.pid, SIGKILL)
        _ = killed.wait(timeout: 10)
        #expect(contents(dir) == [temporary], "the killed run left its temporary file")
        // Another run's file, whose process lives, and another output's are left alone.
        let living = "soup.rle.tmp-1", other = "other.rle.tmp-\(killed.pid)"
        for name in [living, other] { try Data().write(to: dir.appendingPathComponent(name)) }
        let again = try Harness.tessera(["run", "glider", "--generations", "4", "--workers", "0", "--output", output.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(contents(dir) == [other, "soup.rle", living].sorted())
    }
}

/// Whether this machine lets a test mount a tmpfs (it takes root).
enum SmallDisk {
    static let canMount: Bool = {
        guard let dir = try? Harness.temporaryDirectory(),
              let mount = try? Harness.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=4k", "tmpfs", dir.path]),
              mount.status == 0 else { return false }
        _ = try? Harness.run(URL(fileURLWithPath: "/bin/umount"), [dir.path])
        return true
    }()
}

/// A full disk, on a small tmpfs mounted for the test: skipped where none can be mounted.
@Suite(.serialized, .enabled(if: SmallDisk.canMount)) struct FullDiskTests {
    /// Runs `body` with a tmpfs of `kilobytes` mounted on a new folder, then unmounts it.
    private func withSmallDisk(kilobytes: Int, _ body: (URL) throws -> Void) throws {
        let dir = try Harness.temporaryDirectory()
        let mount = try Harness.run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", dir.path])
        try #require(mount.status == 0, "\(mount.stderr)")
        defer { _ = try? Harness.run(URL(fileURLWithPath: "/bin/umount"), [dir.path]) }
        try body(dir)
    }

    private func contents(_ dir: URL) -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    private func expectOneLineNamingTheFullDisk(_ result: Harness.Result) {
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("No space left on device"),
                "\(result.stderr)")
    }

    private let soup = ["run", "--soup", "0.35", "--seed", "3", "--size", "512x512", "--workers", "2"]

    /// Before: the frames folder stayed, empty, and the line did not say the disk was full.
    @Test func framesThatDoNotFitLeaveNoFolderAndNoPartImage() throws {
        try withSmallDisk(kilobytes: 16) { disk in
            let result = try Harness.tessera(soup + ["--generations", "20", "--every", "10", "--frames", disk.appendingPathComponent("f").path])
            expectOneLineNamingTheFullDisk(result)
            #expect(contents(disk).isEmpty, "\(contents(disk))")
        }
        try withSmallDisk(kilobytes: 64) { disk in
            let result = try Harness.tessera(soup + ["--generations", "20", "--every", "10", "--frames", disk.appendingPathComponent("f").path])
            expectOneLineNamingTheFullDisk(result)
            // The first frame fits, whole; the second never shows, not even in part.
            #expect(contents(disk) == ["f", "f/frame-000000.png"], "\(contents(disk))")
            let png = try Data(contentsOf: disk.appendingPathComponent("f/frame-000000.png"))
            #expect(png.suffix(8) == Data([0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]), "the PNG ends with its IEND chunk")
        }
    }

    /// Before: an empty `generation-…` folder (and the checkpoint folder) stayed.
    @Test func aCheckpointThatDoesNotFitLeavesNoFolder() throws {
        try withSmallDisk(kilobytes: 16) { disk in
            let result = try Harness.tessera(soup + ["--generations", "40", "--checkpoint", disk.appendingPathComponent("ck").path,
                                                     "--checkpoint-every", "10"])
            expectOneLineNamingTheFullDisk(result)
            #expect(contents(disk).isEmpty, "\(contents(disk))")
        }
    }
}
