import Foundation
import Synchronization
import TesseraCore

/// Worker processes started on this machine from this same binary.
///
/// Each runs in its own process group, so a Ctrl-C in the terminal reaches only the
/// coordinator, which then stops them; each also watches its parent and leaves if the
/// coordinator dies without a word.
public final class LocalWorkers: Sendable {
    private struct State {
        var running: Set<Int32>
        /// Resumed when the last worker has exited.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    private init(pids: [Int32]) {
        state = Mutex(State(running: Set(pids)))
    }

    /// The path of the running executable.
    public static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Starts `count` `tessera worker` processes pointed at `coordinator`; `onExit` hears
    /// of each one that ends, with how it ended.
    public static func launch(count: Int, coordinator: String,
                              onExit: @escaping @Sendable (Int32, String) -> Void) throws -> LocalWorkers {
        var started: [Int32] = []
        for index in 0..<count {
            let arguments = [executable, "worker", "--coordinator", coordinator, "--parent-pid", "\(getpid())",
                             "--name", "local-\(index)"]
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            var pid: pid_t = 0
            let argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let rc = posix_spawn(&pid, executable, nil, &attributes, argv, environ)
            guard rc == 0 else {
                for p in started { kill(p, SIGKILL) }
                throw TesseraError("cannot start worker process \(executable): \(String(cString: strerror(rc)))")
            }
            started.append(pid)
        }
        let workers = LocalWorkers(pids: started)
        for pid in started {
            let thread = Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let how = status & 0x7f == 0 ? "exited with status \(status >> 8 & 0xff)" : "was killed by signal \(status & 0x7f)"
                onExit(pid, how)
                let waiters = workers.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.running.remove(pid)
                    guard state.running.isEmpty else { return [] }
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                waiters.forEach { $0.resume() }
            }
            thread.name = "tessera-wait-\(pid)"
            thread.start()
        }
        return workers
    }

    public var running: [Int32] { state.withLock { $0.running.sorted() } }

    /// Waits for every worker to exit: they leave by themselves after the coordinator's
    /// shutdown; after `grace / 2` they get SIGTERM, after `grace` SIGKILL.
    public func stop(grace: Duration = .seconds(1)) async {
        let escalation = Task {
            try await Task.sleep(for: grace / 2)
            self.signalAll(SIGTERM)
            try await Task.sleep(for: grace / 2)
            self.signalAll(SIGKILL)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.running.isEmpty { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        escalation.cancel()
    }

    /// Sends `signal` to every worker still running.
    public func signalAll(_ signal: Int32) {
        for pid in running { kill(pid, signal) }
    }
}
