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

    /// Before: Ctrl-C while the workers built a large board printed three lines: the
    /// stopping run sent each worker, still building, SIGTERM, which asks a worker to
    /// hand off its tiles, and each said it was doing so.
    @Test func ctrlCWhileTheBoardLoadsIsOneLine() throws {
        let run = try RunningTessera(["run", "--soup", "0.35", "--size", "8192x8192", "--generations", "100000", "--workers", "2"])
        let workers = try run.workerPids()
        _ = try Processes.poll(timeout: 30, "the workers to build their tiles") {
            workers.allSatisfy { Processes.cpuSeconds($0) > 0.05 } ? true : nil
        }
        kill(run.pid, SIGINT)
        #expect(run.wait(timeout: 30) == 128 + SIGINT)
        #expect(run.errorText == "error: interrupted by SIGINT: every worker stopped\n", "\(run.errorText)")
        for pid in workers { #expect(!Processes.alive(pid), "worker \(pid) left behind") }
    }
}
