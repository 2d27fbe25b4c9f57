import Foundation
import TesseraCore
import TesseraWire

/// A plan run on worker processes started on this machine, start to finish, with no
/// output of its own: what `tessera bench scaling` measures at each point.
public enum LocalCluster {
    public static func run(_ plan: RunPlan, workers: Int, connectTimeout: Duration = .seconds(30)) async throws -> RunOutcome {
        let pump = try await MessagePump.start(.coordinator(listen: "tcp://127.0.0.1:*"))
        defer { pump.stop() }
        let coordinator = Coordinator(pump: pump, workers: workers, plan: plan, connectTimeout: connectTimeout)
        let local = try LocalWorkers.launch(count: workers, coordinator: pump.boundEndpoint) { pid, how in
            Task { await coordinator.workerExited(pid: pid, how: how) }
        }
        let result: Result<RunOutcome, any Error>
        do { result = .success(try await coordinator.run()) } catch { result = .failure(error) }
        await local.stop()
        return try result.get()
    }
}
