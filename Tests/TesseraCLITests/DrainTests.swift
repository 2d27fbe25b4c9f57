import Foundation
import Testing

/// `tessera worker --drain PID` says what became of the worker, and succeeds only when
/// its tiles went to the others.
@Suite struct DrainTests {
    /// Before: with the run's only worker, the drain waited for the run to end (or for
    /// its timeout), then said the worker "handed off its tiles and left", exit 0.
    @Test func drainingTheOnlyWorkerSaysItStays() throws {
        let run = try RunningTessera(["run", "--soup", "0.35", "--size", "1024x1024", "--generations", "100000000", "--workers", "1"])
        let worker = try run.workerPids(1)[0]
        _ = try Processes.poll(timeout: 30, "the run to start") { Processes.cpuSeconds(worker) > 0.3 ? true : nil }
        // Twice: the worker kept asks its coordinator again, rather than leave at once.
        for _ in 0..<2 {
            let drain = try Harness.tessera(["worker", "--drain", "\(worker)", "--drain-timeout", "20"])
            #expect(drain.status == 2 && drain.stdout.isEmpty, "\(drain.stdout)")
            #expect(drain.stderr == "error: worker \(worker) stays: its coordinator says no other worker could take its tiles: "
                        + "start another worker for that coordinator first, then drain this one again\n", "\(drain.stderr)")
            #expect(Processes.alive(worker) && Processes.alive(run.pid))
        }
        #expect(run.errorText.contains("the coordinator keeps this worker: no other worker could take its tiles"), "\(run.errorText)")
        kill(run.pid, SIGTERM)
        #expect(run.wait(timeout: 10) == 128 + SIGTERM)
    }
}
