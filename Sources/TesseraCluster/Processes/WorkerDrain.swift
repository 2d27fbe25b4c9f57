import CTesseraSystem
import FoundationEssentials
import Glibc
import TesseraCore

/// `tessera worker --drain PID`: asks a running worker on this machine to hand its tiles
/// to the others and leave, as SIGTERM does, and waits until it has left.
package enum WorkerDrain {
    /// Signals worker `pid` and returns once its process has ended, how long that took.
    package static func drain(pid: Int32, timeout: Duration) async throws -> Duration {
        try checkIsWorker(pid)
        // Opened before the signal, so a pid reused after the worker ended is never waited on.
        let handle = tessera_pidfd_open(pid)
        guard handle >= 0 else {
            if handle == -ESRCH { throw gone(pid) }
            throw TesseraError("cannot watch process \(pid): \(String(cString: strerror(-handle)))",
                               fix: "send it SIGTERM instead (kill -TERM \(pid)) and watch for it to end")
        }
        defer { close(handle) }
        let clock = ContinuousClock(), start = clock.now
        guard kill(pid, SIGTERM) == 0 else {
            if errno == ESRCH { throw gone(pid) }
            throw TesseraError("not allowed to signal worker \(pid): \(Files.systemReason())",
                               fix: "run this as the user the worker runs as")
        }
        let milliseconds = Int32(clamping: Int((timeout.seconds * 1000).rounded(.up)))
        let ended = Completion<Bool>.onOwnThread(named: "tessera-drain-\(pid)") { tessera_wait_readable(handle, milliseconds) == 1 }
        guard try await ended.value() else {
            throw TesseraError("worker \(pid) has not left after \(String(cFormat: "%g", timeout.seconds)) s: its coordinator may be busy moving tiles, or gone",
                               fix: "wait longer (--drain-timeout), or send SIGTERM again to make it leave at once")
        }
        return clock.now - start
    }

    /// Refuses a pid that is not a `tessera worker` serving a coordinator: the signal is
    /// for workers only.
    static func checkIsWorker(_ pid: Int32) throws {
        guard pid > 0, let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { throw gone(pid) }
        let arguments = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard arguments.count > 2, Files.lastComponent(of: arguments[0]).hasPrefix("tessera"),
              arguments[1] == "worker", !arguments.contains("--drain") else {
            let shown = arguments.filter { !$0.isEmpty }.prefix(3).joined(separator: " ")
            throw TesseraError("process \(pid) is not a tessera worker (it runs '\(shown)')",
                               fix: "give the pid of a 'tessera worker' process (ps -C tessera -o pid,args)")
        }
    }

    private static func gone(_ pid: Int32) -> TesseraError {
        TesseraError("no process \(pid) is running", fix: "give the pid of a running 'tessera worker' (ps -C tessera -o pid,args)")
    }
}
