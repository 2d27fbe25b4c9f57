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

    /// A keyed coordinator listening on its host's network address, its workers on two
    /// hosts with the cluster's keys, and a stranger on a fourth: without keys, with a
    /// cluster of its own, and watching with its own key and the cluster's public key.
    /// Each stranger is refused at the handshake and exits 2; the run is Golly's.
    @Test(.enabled(if: namespacesAvailable, "network namespaces cannot be created here (needs root and iproute2)"))
    func aKeyedClusterAdmitsOnlyItsOwnAcrossHosts() throws {
        try Self.withHosts(4, named: "tsk") { name, address in try aKeyedClusterAdmitsOnlyItsOwn(name, address) }
    }

    private func aKeyedClusterAdmitsOnlyItsOwn(_ name: String, _ address: String) throws {
        let (endpoint, viewers) = ("tcp://\(address):7470", "tcp://\(address):7471")
        let dir = try Harness.temporaryDirectory()
        let keys = try SecurityTests.keygen("cluster", in: dir)
        let output = dir.appendingPathComponent("out.rle")
        let tessera = Harness.tessera.path
        let coordinator = try Harness.Background(Self.script, [
            "run", name, "0", tessera, "coordinator", "rpentomino", "--size", "300x200", "--topology", "plane",
            "--generations", "600", "--workers", "2", "--tiles", "2x2", "--listen", endpoint, "--view-listen", viewers,
            "--keys", keys.path, "--output", output.path,
        ])
        _ = try Processes.poll(timeout: 30, "the coordinator to listen") { coordinator.outputText.contains("waiting for") ? true : nil }
        let strangerAddress = try Harness.run(Self.script, ["address", name, "3"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let stranger = { (arguments: [String]) in try Harness.run(Self.script, ["run", name, "3"] + arguments) }
        let keyless = try stranger([tessera, "worker", "--coordinator", endpoint])
        #expect(keyless.status == 2 && keyless.stderr.contains("requires keys"), "\(keyless.stderr)")
        let own = try SecurityTests.keygen("stranger", in: dir)
        let otherCluster = try stranger([tessera, "worker", "--coordinator", endpoint, "--keys", own.path])
        #expect(otherCluster.status == 2 && otherCluster.stderr.contains("broke off the handshake"), "\(otherCluster.stderr)")
        // The cluster's public key is no secret: with it, the stranger's own viewer key
        // reaches the allowlist, which names it and its address.
        try FileManager.default.removeItem(at: own.appendingPathComponent("cluster.pub"))
        try FileManager.default.copyItem(at: keys.appendingPathComponent("cluster.pub"), to: own.appendingPathComponent("cluster.pub"))
        let watcher = try stranger(["/usr/bin/script", "-qec", "\(tessera) view --connect \(viewers) --keys \(own.path)", "/dev/null"])
        #expect(watcher.status == 2 && watcher.stdout.contains("refused this process's key"), "\(watcher.stdout)")
        let workers = try (1...2).map { host in
            try Harness.Background(Self.script, ["run", name, "\(host)", tessera, "worker", "--coordinator", endpoint, "--keys", keys.path])
        }
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in workers { #expect(worker.wait(timeout: 15) == 0, "\(worker.errorText)") }
        #expect(coordinator.errorText.contains("refused a peer at \(strangerAddress): its key"), "\(coordinator.errorText)")
        #expect(!coordinator.errorText.contains("warning"), "keys on a network address need no warning")
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
