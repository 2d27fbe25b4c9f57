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
    /// `output` its standard output to that file instead, `errors` its standard error.
    /// The child starts with no signal blocked, whatever this process blocks.
    package static func spawn(_ arguments: [String], newProcessGroup: Bool = false, quiet: Bool = false,
                              output: String? = nil, errors: String? = nil) throws -> ChildProcess {
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
        if quiet || output != nil || errors != nil {
            posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
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

    /// Waits until the process ends. Cancelling the wait leaves the process running.
    package func termination() async throws -> Termination { try await ended.value().termination }

    /// How the process ended and its `ru_maxrss`: the most memory it held resident at
    /// once, but never less than this process held when it spawned it (the child shares
    /// this memory until it execs, and Linux keeps that mark).
    package func usage() async throws -> (termination: Termination, peakResidentBytes: Int) { try await ended.value() }

    package var hasEnded: Bool { ended.isDone }

    package func signal(_ number: Int32) {
        if !ended.isDone { kill(pid, number) }
    }
}
