import Foundation
import Testing

/// Coordinator and workers on separate hosts (network namespaces with their own
/// addresses and host names), connected only by TCP.
@Suite struct MultiHostTests {
    static let script = Harness.packageRoot.appendingPathComponent("deploy/netns/cluster.sh")

    static var namespacesAvailable: Bool {
        (try? Harness.run(script, ["probe"]).status) == 0
    }

    @Test(.enabled(if: namespacesAvailable, "network namespaces cannot be created here (needs root and iproute2)"))
    func clusterAcrossHostsMatchesGolly() throws {
        try Self.withHosts(3, named: "tsr") { name, address in try clusterAcrossHostsMatchesGolly(name, address) }
    }

    /// Runs `body` with `count` hosts NAME-h0 … up, given their name and host 0's address.
    static func withHosts(_ count: Int, named prefix: String, _ body: (String, String) throws -> Void) throws {
        let name = "\(prefix)\(getpid() % 100_000)"
        let up = try Harness.run(script, ["up", name, "\(count)"])
        defer { _ = try? Harness.run(script, ["down", name]) }
        try #require(up.status == 0, "\(up.stderr)")
        let address = try Harness.run(script, ["address", name, "0"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try body(name, address)
    }

    private func clusterAcrossHostsMatchesGolly(_ name: String, _ address: String) throws {
        let endpoint = "tcp://\(address):7470"
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("out.rle")
        let tessera = Harness.tessera.path
        let coordinator = try Harness.Background(Self.script, [
            "run", name, "0", tessera, "coordinator", "rpentomino", "--size", "300x200", "--topology", "plane",
            "--generations", "600", "--workers", "2", "--tiles", "2x2", "--halo", "5", "--listen", endpoint,
            "--output", output.path, "--report",
        ])
        let workers = try (1...2).map { host in
            try Harness.Background(Self.script, ["run", name, "\(host)", tessera, "worker", "--coordinator", endpoint])
        }
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in workers { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
        // Each worker ran on its own host, and its peers reached it at its own address.
        #expect(coordinator.outputText.contains("on \(name)-h1") && coordinator.outputText.contains("on \(name)-h2"),
                "\(coordinator.outputText)")
        let input = dir.appendingPathComponent("r.rle")
        try "x = 3, y = 3, rule = B3/S23:P300,200\nb2o$2o$bo!\n".write(to: input, atomically: true, encoding: .utf8)
        #expect(try Harness.golly(input, generations: 600) == Harness.cells(ofPatternFile: output))
    }

    /// `tessera bench scaling --hosts` on one host, its workers started on two others.
    @Test(.enabled(if: namespacesAvailable, "network namespaces cannot be created here (needs root and iproute2)"))
    func scalingSweepAcrossHosts() throws {
        try Self.withHosts(3, named: "tsb") { name, address in try scalingSweepAcrossHosts(name, address) }
    }

    private func scalingSweepAcrossHosts(_ name: String, _ address: String) throws {
        let dir = try Harness.temporaryDirectory()
        let hosts = dir.appendingPathComponent("hosts")
        try "1\n2\n".write(to: hosts, atomically: true, encoding: .utf8)
        let bench = try Harness.run(Self.script, [
            "run", name, "0", Harness.tessera.path, "bench", "scaling", "--workers", "1,2", "--size", "256",
            "--generations", "20", "--hosts", hosts.path, "--launch", "\(Self.script.path) run \(name) {host}",
            "--listen", "tcp://\(address):*", "--out", dir.path,
        ])
        #expect(bench.status == 0, "\(bench.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("results.json")))
        let points = try #require(json as? [[String: Any]])
        // Two workers on two hosts trade halos over the namespaces' network.
        #expect(points.count == 2)
        #expect(points.contains { $0["workers"] as? Int == 2 && ($0["bytes_per_generation"] as? Double ?? 0) > 0 })
    }
}
