import FoundationEssentials
import Glibc
import TesseraCore

#if !os(Linux)
#error("Tessera's cluster runs on Linux only: it finds its own binary through /proc/self/exe")
#endif

/// Worker processes started from this machine: this same binary here, or through a
/// launch command (`ssh HOST`, `srun -w HOST`, …) on other hosts.
///
/// Each runs in its own process group, so a Ctrl-C in the terminal reaches only the
/// coordinator, which then stops them; a local one also watches its parent and leaves
/// if the coordinator dies without a word, a remote one after its silence limit.
package struct LocalWorkers: Sendable {
    private let processes: [(process: ChildProcess, host: String?)]

    /// The path of the running executable.
    package static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts `count` `tessera worker` processes pointed at `coordinator`, through
    /// `launcher`, with the key folder `keys` (the same path on every host).
    package static func launch(count: Int, coordinator: String, launcher: WorkerLauncher = .here,
                               keys: String? = nil) throws -> LocalWorkers {
        var started: [(process: ChildProcess, host: String?)] = []
        for index in 0..<count {
            let (host, arguments) = launcher.command(worker: index, of: count, coordinator: coordinator, keys: keys)
            do {
                started.append((try ChildProcess.spawn(arguments, newProcessGroup: true), host))
            } catch {
                for (process, _) in started { process.signal(SIGKILL) }
                throw TesseraError("cannot start worker process \(arguments[0]): \(error)")
            }
        }
        return LocalWorkers(processes: started)
    }

    package var pids: [Int32] { processes.map(\.process.pid) }

    /// Tells `onExit` of each worker that ends: its pid (the launch command's, for a
    /// remote one), its host (nil here) and how it ended. Returns when all have ended,
    /// or when its task is cancelled.
    package func watch(_ onExit: @escaping @Sendable (Int32, String?, ChildProcess.Termination) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for (process, host) in processes {
                group.addTask {
                    guard let how = try? await process.termination() else { return }
                    await onExit(process.pid, host, how)
                }
            }
        }
    }

    /// Waits for every worker to exit: they leave by themselves after the coordinator's
    /// shutdown; after `grace / 2` the launch commands of remote ones get SIGTERM, after
    /// `grace` every one SIGKILL.
    ///
    /// SIGTERM would ask a worker here to hand its tiles to the others (saying so in a
    /// line): one still busy building them when the run was stopped would ask a
    /// coordinator that takes nothing any more. It holds nothing the run needs now.
    package func stop(grace: Duration = .seconds(1)) async {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for (process, _) in processes { _ = try? await process.termination() }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: grace / 2)
                for (process, host) in processes where host != nil { process.signal(SIGTERM) }
                try? await Task.sleep(for: grace / 2)
                signalAll(SIGKILL)
                return false
            }
            while let allEnded = await group.next() {
                if allEnded {
                    group.cancelAll()
                    return
                }
            }
        }
    }

    /// Ends workers the run no longer needs before they were given anything to keep (it
    /// was over before they were up), at once, and waits until they are gone.
    package func dismiss() async {
        signalAll(SIGKILL)
        for (process, _) in processes { _ = try? await process.termination() }
    }

    /// Sends `signal` to every worker still running.
    package func signalAll(_ signal: Int32) {
        for (process, _) in processes { process.signal(signal) }
    }
}
