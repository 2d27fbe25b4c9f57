import Foundation
import TesseraCore
import TesseraWire

/// A plan run on worker processes started from this machine, start to finish, with no
/// output of its own: what `tessera bench scaling` measures at each point.
public enum LocalCluster {
    /// - Parameter listen: where the workers reach the coordinator; with remote hosts, an
    ///   address of this machine on their network.
    public static func run(_ plan: RunPlan, workers: Int, launcher: WorkerLauncher = .here,
                           listen: String = "tcp://127.0.0.1:*",
                           connectTimeout: Duration = .seconds(30)) async throws -> RunOutcome {
        let pump = try await MessagePump.start(.coordinator(listen: listen))
        defer { pump.stop() }
        let coordinator = Coordinator(pump: pump, workers: workers, plan: plan, connectTimeout: connectTimeout)
        let local = try LocalWorkers.launch(count: workers, coordinator: pump.boundEndpoint, launcher: launcher) {
            pid, host, how in Task { await coordinator.workerExited(pid: pid, host: host, how: how) }
        }
        let result: Result<RunOutcome, any Error>
        do { result = .success(try await coordinator.run()) } catch { result = .failure(error) }
        await local.stop()
        return try result.get()
    }
}
