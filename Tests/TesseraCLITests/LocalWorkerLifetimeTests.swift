import Foundation
import Testing

/// Local workers live exactly as long as the run that started them.
@Suite struct LocalWorkerLifetimeTests {
    /// Before: they outlived a SIGKILLed coordinator by 2 s (a tenth of a second polling
    /// for the parent, then the sockets' linger for what was queued for it).
    @Test func workersEndTheMomentTheirCoordinatorIsKilled() throws {
        let run = try RunningTessera(["run", "--soup", "0.35", "--size", "2048x2048", "--generations", "100000000", "--workers", "2"])
        let workers = try run.workerPids()
        _ = try Processes.poll(timeout: 30, "the run to start") { Processes.cpuSeconds(workers[0]) > 0.3 ? true : nil }
        let killed = Date()
        kill(run.pid, SIGKILL)
        _ = run.wait(timeout: 10)
        _ = try Processes.poll(timeout: 10, "the workers to end") { workers.contains(where: Processes.alive) ? nil : true }
        let outlived = Date().timeIntervalSince(killed)
        #expect(outlived < 0.5, "the workers outlived their coordinator by \(outlived) s")
    }
}
