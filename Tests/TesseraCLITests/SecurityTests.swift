import Foundation
import Testing
import TesseraCore
@testable import TesseraWire

/// CurveZMQ keys: `tessera keygen`, `--keys` on every process, and peers without the
/// cluster's keys (none, another cluster's, a stranger's own) refused at the handshake.
@Suite(.serialized) struct SecurityTests {
    static func keygen(_ name: String, in dir: URL, viewerOf cluster: URL? = nil) throws -> URL {
        let folder = dir.appendingPathComponent(name)
        let made = try Harness.tessera(["keygen", folder.path] + (cluster.map { ["--viewer-of", $0.path] } ?? []))
        try #require(made.status == 0, "\(made.stderr)")
        return folder
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    /// The public key in a cluster.pub or key file.
    static func publicKey(_ file: URL) throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        return try #require(text.firstMatch(of: /public-key = "(.{40})"/).map { String($0.1) })
    }

    /// The board a keyless run of the same soup ends with: a keyed run must end the same.
    static func reference(_ board: [String], in dir: URL) throws -> Data {
        let output = dir.appendingPathComponent("reference.rle")
        let run = try Harness.tessera(["run"] + board + ["--workers", "0", "--output", output.path])
        try #require(run.status == 0, "\(run.stderr)")
        return try Data(contentsOf: output)
    }

    static let board = ["--soup", "0.35", "--seed", "11", "--size", "256x192", "--generations", "300", "--tiles", "2x1"]

    @Test func keygenWritesPrivateFilesAndNeverOverwrites() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keygen("cluster", in: dir)
        let files = try FileManager.default.contentsOfDirectory(atPath: keys.path).sorted()
        #expect(files == ["allowed", "cluster.pub", "member.key", "viewer.key"])
        #expect(Self.mode(keys.path) == 0o700)
        for file in files { #expect(Self.mode(keys.appendingPathComponent(file).path) == 0o600, "\(file)") }
        let before = try Data(contentsOf: keys.appendingPathComponent("member.key"))
        let again = try Harness.tessera(["keygen", keys.path])
        #expect(again.status == 2 && again.stderr.contains("never overwrites"), "\(again.stderr)")
        #expect(try Data(contentsOf: keys.appendingPathComponent("member.key")) == before)
        // Two clusters never share keys.
        let other = try Self.keygen("other", in: dir)
        #expect(try Self.publicKey(other.appendingPathComponent("cluster.pub")) != Self.publicKey(keys.appendingPathComponent("cluster.pub")))
        // A viewer's own folder: its key pair and the cluster's public key, and its key listed.
        let viewer = try Self.keygen("viewer", in: dir, viewerOf: keys)
        #expect(try FileManager.default.contentsOfDirectory(atPath: viewer.path).sorted() == ["cluster.pub", "viewer.key"])
        let listed = try String(contentsOf: keys.appendingPathComponent("allowed"), encoding: .utf8)
        #expect(listed.contains("viewer \(try Self.publicKey(viewer.appendingPathComponent("viewer.key")))"))
        #expect(Self.mode(keys.appendingPathComponent("allowed").path) == 0o600)
    }

    /// Each broken folder is named in one line, exit status 2, before any socket opens.
    @Test func badKeyFoldersAreRefusedInOneLine() throws {
        let dir = try Harness.temporaryDirectory()
        func refusal(_ keys: URL) throws -> String {
            let worker = try Harness.tessera(["worker", "--coordinator", "tcp://127.0.0.1:9", "--keys", keys.path])
            #expect(worker.status == 2)
            #expect(worker.stderr.split(separator: "\n").count == 1, "\(worker.stderr)")
            return worker.stderr
        }
        #expect(try refusal(dir.appendingPathComponent("missing")).contains("does not exist"))

        let open = try Self.keygen("open", in: dir)
        chmod(open.appendingPathComponent("member.key").path, 0o644)
        #expect(try refusal(open).contains("chmod 600"))

        let malformed = try Self.keygen("malformed", in: dir)
        let key = malformed.appendingPathComponent("member.key")
        let text = try String(contentsOf: key, encoding: .utf8)
        try text.replacingOccurrences(of: "secret-key = \"", with: "secret-key = \"x").write(to: key, atomically: false, encoding: .utf8)
        #expect(try refusal(malformed).contains("member.key is not a Tessera key file"))

        // A secret key spliced from another pair.
        let spliced = try Self.keygen("spliced", in: dir)
        let otherSecret = try String(contentsOf: open.appendingPathComponent("member.key"), encoding: .utf8)
            .firstMatch(of: /secret-key = ".{40}"/).map { String($0.0) }
        let splicedKey = spliced.appendingPathComponent("member.key")
        let own = try String(contentsOf: splicedKey, encoding: .utf8)
        try own.replacing(/secret-key = ".{40}"/, with: try #require(otherSecret)).write(to: splicedKey, atomically: false, encoding: .utf8)
        #expect(try refusal(spliced).contains("does not belong to its public key"))

        let unreadable = try Self.keygen("unreadable", in: dir)
        try FileManager.default.removeItem(at: unreadable.appendingPathComponent("member.key"))
        try FileManager.default.createDirectory(at: unreadable.appendingPathComponent("member.key"), withIntermediateDirectories: false)
        #expect(try refusal(unreadable).contains("cannot read"))

        let cluster = try Self.keygen("cluster", in: dir)
        try "member nonsense\n".write(to: cluster.appendingPathComponent("allowed"), atomically: false, encoding: .utf8)
        #expect(try refusal(cluster).contains("line 1 of"))

        let viewer = try Self.keygen("viewer", in: dir, viewerOf: try Self.keygen("fine", in: dir))
        #expect(try refusal(viewer).contains("has no member.key"))
    }

    /// Keyless and other-cluster workers are turned away with one line each; the
    /// cluster's own then run the board exactly as a keyless run does.
    @Test func aKeyedCoordinatorAdmitsOnlyItsOwnWorkers() throws {
        let dir = try Harness.temporaryDirectory()
        let (keys, other) = (try Self.keygen("cluster", in: dir), try Self.keygen("other", in: dir))
        let output = dir.appendingPathComponent("keyed.rle")
        let coordinator = try RunningTessera(["coordinator"] + Self.board + [
            "--workers", "2", "--listen", "tcp://127.0.0.1:*", "--keys", keys.path, "--output", output.path,
        ])
        let endpoint = try coordinator.workerEndpoint()
        for (keys, says) in [(nil, "it requires keys"), (other, "broke off the handshake")] {
            let stranger = try Harness.tessera(["worker", "--coordinator", endpoint] + (keys.map { ["--keys", $0.path] } ?? []))
            #expect(stranger.status == 2 && stranger.stderr.contains(says), "\(stranger.stderr)")
            #expect(stranger.stderr.split(separator: "\n").count == 1, "\(stranger.stderr)")
        }
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint, "--keys", keys.path]) }
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in workers { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
        let refusals = coordinator.errorText.split(separator: "\n").filter { $0.contains("refused a peer") }
        #expect(refusals.count == 2, "\(coordinator.errorText)")
        #expect(try Data(contentsOf: output) == Self.reference(Self.board, in: dir))
    }

    /// A stranger on a worker's halo port: with no keys, and with a key of its own and the
    /// cluster's public key (public by nature). Both are refused at the handshake, the
    /// second by the allowlist with its address logged, and the board is untouched.
    @Test func strangersCannotSendHalosToAWorker() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keygen("cluster", in: dir)
        let output = dir.appendingPathComponent("keyed.rle")
        let coordinator = try RunningTessera(["coordinator"] + Self.board + [
            "--workers", "2", "--listen", "tcp://127.0.0.1:*", "--keys", keys.path, "--output", output.path,
        ])
        let endpoint = try coordinator.workerEndpoint()
        let first = try RunningTessera(["worker", "--coordinator", endpoint, "--keys", keys.path])
        let port = try Processes.poll(timeout: 30, "the worker's halo port") { Processes.listeningPorts(first.pid).first }
        let halo = "tcp://127.0.0.1:\(port)"
        var full = BitGrid(width: 128, height: 8)
        for x in 0..<128 { full[x, 0] = true }
        let strip = Message.halo(HaloStrip(tile: TileID(column: 0, row: 0), side: .north, generation: 0, cells: full, previous: full), epoch: 1)
        // Sends only queue until a handshake succeeds (ZeroMQ's default), so the refusals
        // show in the worker's log, and nothing of the strip in the board.
        let keyless = try StrangePeer(connectingTo: halo)
        try keyless.send(strip)
        _ = try Processes.poll(timeout: 10, "the worker's refusal of a keyless peer") {
            first.errorText.contains("refused a peer") ? true : nil
        }
        let ownKeys = try CurveKeyPair.generate()
        let clusterKey = try Self.publicKey(keys.appendingPathComponent("cluster.pub"))
        let impostor = try StrangePeer(connectingTo: halo, curve: (clusterKey, ownKeys))
        try impostor.send(strip)
        let logged = try Processes.poll(timeout: 10, "the worker's refusal of a stranger's key") {
            first.errorText.contains(CurveKey.short(ownKeys.publicKey)) ? first.errorText : nil
        }
        #expect(logged.contains("its key \(CurveKey.short(ownKeys.publicKey)) is not in"), "\(logged)")
        // A refused peer retries every 100 ms; the log says so once.
        usleep(500_000)
        #expect(first.errorText.components(separatedBy: CurveKey.short(ownKeys.publicKey)).count == 2, "\(first.errorText)")
        for peer in [keyless, impostor] { try peer.abandon() }
        let second = try RunningTessera(["worker", "--coordinator", endpoint, "--keys", keys.path])
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in [first, second] { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
        #expect(try Data(contentsOf: output) == Self.reference(Self.board, in: dir))
    }

    /// A viewer port admits the cluster's viewer key and a viewer's own listed key, and
    /// nobody else; striking a key off the allowed file shuts it out of new connections.
    @Test func viewersNeedAListedKey() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keygen("cluster", in: dir)
        let guest = try Self.keygen("guest", in: dir, viewerOf: keys)
        let run = try RunningTessera(["run", "pulsar", "--size", "64x64", "--generations", "100000000000", "--workers", "2",
                                      "--view-listen", "tcp://127.0.0.1:*", "--keys", keys.path])
        let endpoint = try run.viewerEndpoint()
        let clusterKey = try Self.publicKey(keys.appendingPathComponent("cluster.pub"))
        func pair(_ folder: URL, _ file: String) throws -> CurveKeyPair {
            try Credentials.load(folder: folder.path, as: .viewer).keys
        }
        let view = Viewport(x: 0, y: 0, cellsPerDot: 1, width: 64, height: 64)
        func frames(_ curve: (String, CurveKeyPair)?) -> Int {
            (try? ScriptedViewer.watch(endpoint, frames: 1, viewport: view, curve: curve, patience: 2))?.count ?? 0
        }
        #expect(frames((clusterKey, try pair(keys, "viewer.key"))) == 1)
        #expect(frames((clusterKey, try pair(guest, "viewer.key"))) == 1)
        #expect(frames(nil) == 0)
        #expect(frames((clusterKey, try CurveKeyPair.generate())) == 0)
        // Strike the guest off: the next connection is refused, with its address logged.
        let allowed = keys.appendingPathComponent("allowed")
        let lines = try String(contentsOf: allowed, encoding: .utf8).split(separator: "\n").filter { !$0.contains("# guest") }
        try (lines.joined(separator: "\n") + "\n").write(to: allowed, atomically: false, encoding: .utf8)
        #expect(frames((clusterKey, try pair(guest, "viewer.key"))) == 0)
        let guestKey = try pair(guest, "viewer.key").publicKey
        #expect(run.errorText.contains("refused a peer at 127.0.0.1: its key \(CurveKey.short(guestKey)) is not in"), "\(run.errorText)")
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }

    /// The presenter is a member: without the cluster's member key (none, or another
    /// cluster's) it is refused and exits 2.
    @Test func aPresenterNeedsTheMemberKey() throws {
        let dir = try Harness.temporaryDirectory()
        let keys = try Self.keygen("cluster", in: dir)
        let coordinator = try RunningTessera(["coordinator", "pulsar", "--size", "64x64", "--workers", "1",
                                              "--listen", "tcp://127.0.0.1:*", "--keys", keys.path, "--external-presenter"])
        let endpoint = try coordinator.workerEndpoint()
        let worker = try RunningTessera(["worker", "--coordinator", endpoint, "--keys", keys.path])
        let keyless = try Harness.tessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*",
                                           "--generations", "5"])
        #expect(keyless.status == 2 && keyless.stderr.contains("requires keys"), "\(keyless.stderr)")
        let other = try Self.keygen("other", in: dir)
        let wrong = try Harness.tessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*",
                                         "--generations", "5", "--keys", other.path])
        #expect(wrong.status == 2 && wrong.stderr.contains("broke off the handshake"), "\(wrong.stderr)")
        let keyed = try Harness.tessera(["presenter", "--coordinator", endpoint, "--view-listen", "tcp://127.0.0.1:*",
                                         "--generations", "5", "--keys", keys.path])
        #expect(keyed.status == 0, "\(keyed.stderr)")
        #expect(keyed.stdout.contains("stopped at generation 5"), "\(keyed.stdout)")
        #expect(coordinator.wait(timeout: 30) == 0, "\(coordinator.errorText)")
        #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)")
    }

    /// Listening past loopback without keys warns once, naming the risk; --insecure silences it.
    @Test func listeningOnTheNetworkWithoutKeysWarns() throws {
        let base = ["coordinator", "glider", "--size", "32x32", "--workers", "1", "--connect-timeout", "0.2",
                    "--listen", "tcp://0.0.0.0:*"]
        let open = try Harness.tessera(base)
        #expect(open.stderr.contains("warning: tessera coordinator listens on tcp://0.0.0.0:* without keys"), "\(open.stderr)")
        let insecure = try Harness.tessera(base + ["--insecure"])
        #expect(!insecure.stderr.contains("warning"), "\(insecure.stderr)")
        #expect(insecure.status == 2)
        let local = try Harness.tessera(["coordinator", "glider", "--size", "32x32", "--workers", "1", "--connect-timeout", "0.2"])
        #expect(!local.stderr.contains("warning"), "\(local.stderr)")
        let both = try Harness.tessera(base + ["--insecure", "--keys", "/nonexistent"])
        #expect(both.status == 2 && both.stderr.contains("contradict"), "\(both.stderr)")
    }
}
