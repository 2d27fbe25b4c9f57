import CTesseraSystem
import FoundationEssentials
import Glibc

/// A process started with posix_spawn, waited for on a thread of its own: `waitpid`
/// blocks, and a blocking call must never hold one of the cooperative pool's threads.
package struct ChildProcess: Sendable {
    /// How a process ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by signal \(signal)"
            }
        }
    }

    package let pid: pid_t
    private let ended: Completion<(termination: Termination, peakResidentBytes: Int)>

    /// Starts `arguments[0]` (a path) with the rest as its arguments. `newProcessGroup`
    /// keeps a terminal's Ctrl-C from reaching it; `quiet` sends its output to /dev/null,
    /// `output` its standard output to that file instead, `errors` its standard error;
    /// `environment` replaces or adds variables, `directory` is where it starts.
    ///
    /// The child starts with no signal blocked, whatever this process blocks, reads
    /// /dev/null, and holds no descriptor but those three: one inherited by chance
    /// (another thread's socket or pipe, made between its creation and its close-on-exec
    /// flag, as Foundation's `Process` makes the socket whose end tells it a child ended)
    /// would live as long as this child, and whoever waits for that end would wait as long.
    package static func spawn(_ arguments: [String], newProcessGroup: Bool = false, quiet: Bool = false,
                              output: String? = nil, errors: String? = nil,
                              environment: [String: String] = [:], directory: String? = nil) throws -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        tessera_spawn_close_from(&actions, 3)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if quiet || output != nil || errors != nil {
            posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        if let directory { tessera_spawn_change_directory(&actions, directory) }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = environment.isEmpty ? [] : Self.environment(with: environment).map { strdup($0) } + [nil]
        defer { variables.forEach { free($0) } }
        let rc = variables.isEmpty
            ? posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
            : posix_spawn(&pid, arguments[0], &actions, &attributes, argv, variables)
        guard rc == 0 else {
            throw TesseraError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))")
        }
        let child = pid
        let ended = Completion<(termination: Termination, peakResidentBytes: Int)>.onOwnThread(named: "tessera-wait-\(child)") {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(child, &status, 0, &usage) < 0 && errno == EINTR {}
            let termination: Termination = status & 0x7f == 0 ? .exited(status >> 8 & 0xff) : .signalled(status & 0x7f)
            return (termination, usage.ru_maxrss * 1024)
        }
        return ChildProcess(pid: child, ended: ended)
    }

    /// This process's environment (`NAME=value` lines) with `changes` made.
    private static func environment(with changes: [String: String]) -> [String] {
        var lines: [String] = []
        var next = environ
        while let line = next.pointee {
            let text = String(cString: line)
            if !changes.keys.contains(where: { text.hasPrefix($0 + "=") }) { lines.append(text) }
            next += 1
        }
        return lines + changes.map { "\($0.key)=\($0.value)" }
    }

    /// Waits until the process ends. Cancelling the wait leaves the process running.
    package func termination() async throws -> Termination { try await ended.value().termination }

    /// How the process ended and its `ru_maxrss`: the most memory it held resident at
    /// once, but never less than this process held when it spawned it (the child shares
    /// this memory until it execs, and Linux keeps that mark).
    package func usage() async throws -> (termination: Termination, peakResidentBytes: Int) { try await ended.value() }

    /// Blocks the calling thread until the process ends, or for `seconds` at most (nil
    /// when they pass first): for a thread that is not the task pool's.
    package func waitBlocking(seconds: Double = .infinity) -> Termination? {
        try? ended.waitBlocking(seconds: seconds)?.get().termination
    }

    package var hasEnded: Bool { ended.isDone }

    package func signal(_ number: Int32) {
        if !ended.isDone { kill(pid, number) }
    }
}
