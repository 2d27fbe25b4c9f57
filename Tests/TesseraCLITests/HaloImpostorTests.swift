import Foundation
import Testing
import TesseraCore
@testable import TesseraWire

/// A stranger on a keyless worker's halo port that claims to be another worker of the
/// run: its strips must never reach a tile, and the worker it impersonates must still
/// get through.
@Suite(.serialized) struct HaloImpostorTests {
    /// Before: the stranger took the real worker's routing identity on the victim's halo
    /// port (ZeroMQ parks a second peer with an identity in use), so the real strips were
    /// never read and the stranger's all-dead ones were taken: a wrong board with exit 0,
    /// or a run stalled until the victim was fenced.
    @Test func aStrangerClaimingAWorkersIdentityFeedsNoStrips() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("out.rle")
        let generations = 300
        let coordinator = try RunningTessera(["coordinator", "acorn", "--size", "600x400", "--topology", "plane",
                                              "--generations", "\(generations)", "--workers", "2", "--tiles", "2x2",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path])
        let endpoint = try coordinator.workerEndpoint()
        let victimStarted = Date()
        let victim = try RunningTessera(["worker", "--coordinator", endpoint])
        let port = try Processes.poll(timeout: 30, "the victim's halo port") { Processes.listeningPorts(victim.pid).first }
        // The identity the other worker will have: its halo endpoint, known before it starts.
        let claimed = "tcp://127.0.0.1:\(try Self.freePort())"
        let stranger = try StrangePeer(connectingTo: "tcp://127.0.0.1:\(port)", identity: claimed)
        let tiles = (0..<2).flatMap { row in (0..<2).map { TileID(column: $0, row: row) } }
        func deadStrips(_ generation: Int) -> [Message] {
            tiles.flatMap { tile in
                Direction.allCases.map { .halo(HaloStrip(tile: tile, side: $0, generation: UInt64(generation), pieces: [], whole: true), epoch: 1) }
            }
        }
        // The victim has heard the stranger (and so given it the identity) before the real worker is up.
        for strip in deadStrips(0) { try stranger.send(strip) }
        _ = try Processes.poll(timeout: 10, "the victim to hear the stranger") {
            victim.errorText.contains("refused a halo") ? true : nil
        }
        let impersonated = try RunningTessera(["worker", "--coordinator", endpoint, "--listen", claimed])
        // Dead strips for every side of every tile at every generation, again and again
        // while the run lasts: whichever the victim's tiles wait for is there.
        let started = Date()
        var sent = 0
        flood: while Processes.alive(coordinator.pid) && Date().timeIntervalSince(started) < 30 {
            for generation in 0..<generations {
                // The victim is gone once the run is over: nothing takes the strips any more.
                for strip in deadStrips(generation) {
                    guard (try? stranger.send(strip, patience: 0.5)) != nil else { break flood }
                    sent += 1
                }
            }
        }
        // Refused at once: the run takes no longer than an undisturbed one would, far
        // below the stall limit that would fence the victim.
        #expect(coordinator.wait(timeout: 20) == 0, "\(coordinator.errorText)")
        for worker in [victim, impersonated] { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
        try stranger.abandon()
        let input = dir.appendingPathComponent("acorn.rle")
        try "x = 7, y = 3, rule = B3/S23:P600,400\nbo$3bo$2o2b3o!\n".write(to: input, atomically: true, encoding: .utf8)
        #expect(try Harness.golly(input, generations: generations) == Harness.cells(ofPatternFile: output))
        // Nothing of the stranger's was read, and its refusals are counted, not a line
        // each: three said whole (`RefusalCounter`), then a count every 10 seconds the
        // victim lived (a loaded machine stretches the run) and one as it ends.
        let lived = Date().timeIntervalSince(victimStarted)
        let refusals = victim.errorText.split(separator: "\n").filter { $0.contains("refused") }
        #expect(refusals.count <= 4 + Int(lived / 10) + 1,
                "\(refusals.count) refusal lines for \(sent) strips in \(lived) s: \(refusals.prefix(5))")
        #expect(victim.errorText.contains("refused a halo message from a peer without this run's halo token (it claims to be '\(claimed)')"),
                "\(victim.errorText.prefix(2000))")
        #expect(!victim.errorText.contains("refused a halo strip"), "\(victim.errorText.prefix(2000))")
    }

    /// A TCP port nobody listens on now, for a worker told to listen there.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw TesseraError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
