import Foundation
import Synchronization
import TesseraCore

/// Worker processes started from this machine: this same binary here, or through a
/// launch command (`ssh HOST`, `srun -w HOST`, …) on other hosts.
///
/// Each runs in its own process group, so a Ctrl-C in the terminal reaches only the
/// coordinator, which then stops them; a local one also watches its parent and leaves
/// if the coordinator dies without a word, a remote one after its silence limit.
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

    /// Starts `count` `tessera worker` processes pointed at `coordinator`, through
    /// `launcher`; `onExit` hears of each one that ends: its pid (the launch command's,
    /// for a remote one), its host (nil here) and how it ended.
    public static func launch(count: Int, coordinator: String, launcher: WorkerLauncher = .here,
                              onExit: @escaping @Sendable (Int32, String?, String) -> Void) throws -> LocalWorkers {
        var started: [(pid: Int32, host: String?)] = []
        for index in 0..<count {
            let (host, arguments) = launcher.command(worker: index, of: count, coordinator: coordinator)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            var pid: pid_t = 0
            let argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            let rc = posix_spawn(&pid, arguments[0], nil, &attributes, argv, environ)
            guard rc == 0 else {
                for p in started { kill(p.pid, SIGKILL) }
                throw TesseraError("cannot start worker process \(arguments[0]): \(String(cString: strerror(rc)))")
            }
            started.append((pid, host))
        }
        let workers = LocalWorkers(pids: started.map(\.pid))
        for (pid, host) in started {
            let thread = Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                let how = status & 0x7f == 0 ? "exited with status \(status >> 8 & 0xff)" : "was killed by signal \(status & 0x7f)"
                onExit(pid, host, how)
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

/// How a coordinator starts its workers: this binary on this machine, or a launch
/// command per host (`ssh {host}`, `srun -N1 -n1 -w {host} --overlap`) that runs
/// `tessera worker` there.
public struct WorkerLauncher: Sendable {
    /// Where workers go, dealt in contiguous runs so neighbouring tiles share a host; empty: here.
    public var hosts: [String]
    /// A shell command line with `{host}` in it, put in front of the worker's command.
    public var command: String
    /// The `tessera` binary on the hosts.
    public var executable: String

    public static let here = WorkerLauncher(hosts: [], command: "", executable: LocalWorkers.executable)

    public init(hosts: [String], command: String, executable: String) {
        (self.hosts, self.command, self.executable) = (hosts, command, executable)
    }

    /// Reads a hosts file: one host name per line; `#` starts a comment.
    public static func hosts(file path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TesseraError("cannot read hosts file \(path)", fix: "give a readable file with one host name per line")
        }
        var hosts: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let host = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !host.isEmpty else { continue }
            // Host names go into a shell command line: allow only what host names are made of.
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || "._-:".contains($0) }), host.first != "-" else {
                throw TesseraError("bad host name '\(host)' on line \(number + 1) of \(path)",
                                   fix: "write one host name or address per line")
            }
            hosts.append(host)
        }
        guard !hosts.isEmpty else {
            throw TesseraError("hosts file \(path) names no hosts", fix: "write one host name or address per line")
        }
        return hosts
    }

    /// Worker `index` of `count`: its host (nil here) and the command line that starts it.
    func command(worker index: Int, of count: Int, coordinator: String) -> (host: String?, arguments: [String]) {
        let host = hosts.isEmpty ? nil : hosts[index * hosts.count / max(count, 1)]
        let worker = [executable, "worker", "--coordinator", coordinator, "--name", "\(host ?? "local")-\(index)"]
        guard let host else { return (nil, worker + ["--parent-pid", "\(getpid())"]) }
        let line = command.replacingOccurrences(of: "{host}", with: host) + " "
            + worker.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return (host, ["/bin/sh", "-c", line])
    }
}
