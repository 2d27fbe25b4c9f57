import Foundation
import Testing
import TesseraCore
@testable import TesseraWire

/// The summary counts the workers that took part in the run, not whoever said hello.
@Suite struct StrangerSummaryTests {
    /// Before: a stranger's hello (no keys, no heartbeat) mid-run was taken for a
    /// joining worker, and the summary counted it: "3 workers".
    @Test func aStrangersHelloMidRunIsNotCountedAmongTheWorkers() throws {
        let cluster = try WireDefenceTests.Cluster(generations: 20_000)
        _ = try Processes.poll(timeout: 30, "the run to start") { Processes.cpuSeconds(cluster.workers[0].pid) > 0.3 ? true : nil }
        let stranger = try StrangePeer(connectingTo: cluster.endpoint)
        try stranger.send(.hello(Hello(pid: 4242, endpoint: "tcp://127.0.0.1:9", host: "nowhere")))
        try cluster.expectFinishedLikeGolly()
        #expect(cluster.coordinator.errorText.contains("pid 4242"), "the hello came mid-run: \(cluster.coordinator.errorText)")
        #expect(cluster.coordinator.outputText.contains("acorn: 20000 generations on 600x400 plane B3/S23, 2 workers,"),
                "\(cluster.coordinator.outputText)")
    }
}
