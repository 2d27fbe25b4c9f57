import CTesseraSystem
import Glibc
import TesseraCore

/// A local worker ends the moment the coordinator that started it does, however that
/// ends (SIGKILL included): nothing it holds is of use to anyone else, and what it still
/// has queued for the coordinator could only wait out the sockets' linger.
package enum ParentWatch {
    /// Exits this process, status 3, as soon as `parent`, its parent process, has ended;
    /// at once if it already has.
    package static func exitWhenGone(_ parent: Int32) {
        // Opened before the check: a parent that ended before the open is no longer
        // this process's parent, so a pid reused since is never watched.
        let handle = tessera_pidfd_open(parent)
        guard getppid() == parent else { _exit(3) }
        OwnThread.start(named: "tessera-parent") {
            if handle >= 0 {
                // Readable once the process has ended (a pidfd never reads data).
                while tessera_wait_readable(handle, -1) < 0 {}
            } else {
                // No pidfd (Linux before 5.3): no event for another process's end.
                while getppid() == parent { usleep(50_000) }
            }
            _exit(3)
        }
    }
}
