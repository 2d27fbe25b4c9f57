import Foundation
import Testing
import TesseraCore
import TesseraWire

/// Real worker processes, killed and interrupted for real.
@Suite(.serialized) struct ClusterTests {
    /// A long run whose workers are computing.
    func computingRun(_ extra: [String] = []) throws -> (RunningTessera, [Int32]) {
        let run = try RunningTessera(["run", "--soup", "0.3", "--size", "1024x1024", "--generations", "1000000000",
                                      "--workers", "2"] + extra)
        let workers = try run.workerPids()
        _ = try Processes.poll(timeout: 30, "the workers to compute") {
            workers.allSatisfy { Processes.cpuSeconds($0) > 0.3 } ? true : nil
        }
        return (run, workers)
    }

    @Test func runStartsWorkerProcesses() throws {
        let (run, workers) = try computingRun()
        for pid in workers {
            let command = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
            #expect(command.contains("worker") && command.contains("--coordinator"))
        }
        kill(run.pid, SIGTERM)
        _ = run.wait(timeout: 10)
    }

    /// With no restarts allowed (by default a run survives three lost workers).
    @Test func killedWorkerFailsTheRunCleanly() throws {
        let (run, workers) = try computingRun(["--max-restarts", "0"])
        kill(workers[0], SIGKILL)
        let status = run.wait(timeout: 15)
        #expect(status == 2)
        let lines = run.errorText.split(separator: "\n")
        #expect(lines.count == 1, "\(run.errorText)")
        #expect(run.errorText.contains("pid \(workers[0])") && run.errorText.contains("killed by signal 9"),
                "\(run.errorText)")
        #expect(run.errorText.contains("tiles"))
        for pid in workers { #expect(!Processes.alive(pid), "worker \(pid) left behind") }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalStopsEveryWorker(signal: Int32) throws {
        let (run, workers) = try computingRun()
        let sent = Date()
        kill(run.pid, signal)
        let status = run.wait(timeout: 10)
        #expect(status == 128 + signal)
        #expect(Date().timeIntervalSince(sent) < 5, "took \(Date().timeIntervalSince(sent)) s")
        for pid in workers { #expect(!Processes.alive(pid), "worker \(pid) left behind") }
    }

    /// Before: SIGQUIT printed a crash report, and the run carried on to exit 0.
    @Test func sigquitStopsTheRunLikeSigterm() throws {
        let (run, workers) = try computingRun()
        kill(run.pid, SIGQUIT)
        #expect(run.wait(timeout: 10) == 128 + SIGQUIT)
        #expect(run.errorText == "error: interrupted by SIGQUIT: every worker stopped\n", "\(run.errorText)")
        for pid in workers { #expect(!Processes.alive(pid), "worker \(pid) left behind") }
    }

    /// An interrupted run writes nothing, and says so.
    @Test func aSignalBeforeTheOutputLeavesNoFile() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("never.rle")
        let (run, _) = try computingRun(["--output", output.path])
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
        #expect(run.errorText.contains("nothing written to \(output.path)"), "\(run.errorText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func workersLeaveWhenTheCoordinatorDies() throws {
        let (run, workers) = try computingRun()
        kill(run.pid, SIGKILL)
        _ = run.wait(timeout: 10)
        _ = try Processes.poll(timeout: 10, "orphaned workers to exit") {
            workers.allSatisfy { !Processes.alive($0) } ? true : nil
        }
    }

    @Test func missingWorkersFailTheRun() throws {
        let result = try Harness.tessera(["coordinator", "glider", "--workers", "2", "--listen", "tcp://127.0.0.1:*",
                                          "--connect-timeout", "1"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("only 0 of 2 workers connected"), "\(result.stderr)")
    }

    @Test func coordinatorWithWorkersStartedSeparately() throws {
        let dir = try Harness.temporaryDirectory()
        let output = dir.appendingPathComponent("out.rle")
        let coordinator = try RunningTessera(["coordinator", "acorn", "--size", "200x150", "--topology", "plane",
                                              "--generations", "400", "--workers", "2", "--tiles", "3x2",
                                              "--listen", "tcp://127.0.0.1:*", "--output", output.path])
        let endpoint = try coordinator.workerEndpoint()
        let workers = try (0..<2).map { _ in try RunningTessera(["worker", "--coordinator", endpoint]) }
        #expect(coordinator.wait(timeout: 60) == 0, "\(coordinator.errorText)")
        for worker in workers { #expect(worker.wait(timeout: 10) == 0, "\(worker.errorText)") }
        let input = dir.appendingPathComponent("acorn.rle")
        try "x = 7, y = 3, rule = B3/S23:P200,150\nbo$3bo$2o2b3o!\n".write(to: input, atomically: true, encoding: .utf8)
        #expect(try Harness.golly(input, generations: 400) == Harness.cells(ofPatternFile: output))
    }

    @Test func workerWithoutCoordinatorLeaves() throws {
        let result = try Harness.tessera(["worker", "--coordinator", "tcp://127.0.0.1:9", "--silence", "0.5"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("went silent"), "\(result.stderr)")
        let bad = try Harness.tessera(["worker", "--coordinator", "localhost:7470"])
        #expect(bad.status == 2 && bad.stderr.contains("tcp://HOST:PORT"), "\(bad.stderr)")
    }

    @Test func reportShowsComputeWaitAndBytes() throws {
        let result = try Harness.tessera(["run", "--soup", "0.3", "--size", "256x256", "--generations", "64",
                                          "--workers", "2", "--report"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 workers") && result.stdout.contains("tiles 1x2, halo 4"))
        #expect(result.stdout.components(separatedBy: "  worker ").count == 3)
        #expect(result.stdout.contains("halo wait") && result.stdout.contains("sent"))
    }
}

@Suite struct WireRefusalTests {
    /// Bytes from a peer that is not a Tessera of this version get a log line, not a crash.
    @Test func coordinatorRefusesStrangeBytes() throws {
        let coordinator = try RunningTessera(["coordinator", "glider", "--workers", "1", "--listen", "tcp://127.0.0.1:*",
                                              "--connect-timeout", "2"])
        let endpoint = try coordinator.workerEndpoint()
        try StrangePeer(connectingTo: endpoint).sendGarbage()
        #expect(coordinator.wait(timeout: 30) == 2)
        let log = coordinator.errorText
        #expect(log.contains("refused a message: not a Tessera message"), "\(log)")
        #expect(log.contains("protocol version \(Wire.version - 1)"), "\(log)")
        #expect(log.contains("truncated"), "\(log)")
        #expect(log.contains("only 0 of 1 workers connected"), "\(log)")
    }
}
