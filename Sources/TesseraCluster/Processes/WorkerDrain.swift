import CTesseraSystem
import FoundationEssentials
import Glibc
import TesseraCore

/// `tessera worker --drain PID`: asks a running worker on this machine to hand its tiles
/// to the others and leave, as SIGTERM does, and waits until it has left.
package enum WorkerDrain {
    /// Signals worker `pid` and returns once its process has ended: the line that says
    /// how it left and how long that took. Throws when it did not hand its tiles off:
    /// its coordinator keeps it (no other worker could take them), or it ended otherwise.
    package static func drain(pid: Int32, timeout: Duration) async throws -> String {
        try checkIsWorker(pid)
        // Opened before the signal, so a pid reused after the worker ended is never waited on.
        let handle = tessera_pidfd_open(pid)
        guard handle >= 0 else {
            if handle == -ESRCH { throw gone(pid) }
            throw TesseraError("cannot watch process \(pid): \(String(cString: strerror(-handle)))",
                               fix: "send it SIGTERM instead (kill -TERM \(pid)) and watch for it to end")
        }
        defer { close(handle) }
        // Bound before the signal, so the worker's answer cannot come before anyone listens.
        let answers = tessera_drain_listen(pid)
        guard answers >= 0 else {
            if answers == -EADDRINUSE {
                throw TesseraError("another 'tessera worker --drain \(pid)' is waiting for that worker", fix: "wait for it to end")
            }
            throw TesseraError("cannot listen for worker \(pid)'s answer: \(String(cString: strerror(-answers)))",
                               fix: "send it SIGTERM instead (kill -TERM \(pid)) and watch for it to end")
        }
        defer { close(answers) }
        let clock = ContinuousClock(), start = clock.now
        guard kill(pid, SIGTERM) == 0 else {
            if errno == ESRCH { throw gone(pid) }
            throw TesseraError("not allowed to signal worker \(pid): \(Files.systemReason())",
                               fix: "run this as the user the worker runs as")
        }
        let deadline = start + timeout
        var answer: DrainAnswer?
        while true {
            let left = Int32(clamping: Int(((deadline - clock.now).seconds * 1000).rounded(.up)))
            let ready = try await Completion<Int32>.onOwnThread(named: "tessera-drain-\(pid)") {
                tessera_wait_either(handle, answers, max(0, left))
            }.value()
            answer = read(answers, from: pid) ?? answer
            if case .stays(let reason) = answer {
                throw TesseraError("worker \(pid) stays: its coordinator says \(reason)",
                                   fix: "start another worker for that coordinator first, then drain this one again")
            }
            if ready & 1 != 0 { break }
            if ready < 0 { throw TesseraError("cannot wait for worker \(pid): \(String(cString: strerror(-ready)))") }
            guard ready > 0 else {
                throw TesseraError("worker \(pid) has not left after \(String(cFormat: "%g", timeout.seconds)) s: its coordinator may be busy moving tiles, or gone",
                                   fix: "wait longer (--drain-timeout), or send SIGTERM again to make it leave at once")
            }
        }
        let took = String(cFormat: "%.2f s", (clock.now - start).seconds)
        switch answer {
        case .handedOff?: return "worker \(pid) handed off its tiles and left (\(took))"
        case .heldNone?: return "worker \(pid) held no tiles and left (\(took))"
        case .runEnded?: return "worker \(pid) left as its run ended, before its tiles moved (\(took))"
        case .ended(let why)?:
            throw TesseraError("worker \(pid) ended without handing off its tiles (\(took)): \(why)",
                               fix: "see the worker's and its coordinator's log")
        case .stays?, nil:
            throw TesseraError("worker \(pid) ended (\(took)) without saying whether it handed off its tiles (killed, or another tessera build)",
                               fix: "see its coordinator's log")
        }
    }

    /// The newest answer `pid` sent to `answers`, if any came.
    private static func read(_ answers: Int32, from pid: Int32) -> DrainAnswer? {
        var newest: DrainAnswer?
        var buffer = [CChar](repeating: 0, count: 1024)
        while tessera_drain_read(answers, pid, &buffer, Int32(buffer.count)) > 0 {
            newest = DrainAnswer(text: buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) ?? newest
        }
        return newest
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
