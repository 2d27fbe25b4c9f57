import CTesseraSystem
#if canImport(Glibc)
import Glibc
#endif

/// A detached POSIX thread that runs one closure: for calls that block (waitpid, poll),
/// which must never hold one of the task pool's few threads. Foundation's `Thread`
/// without Foundation, which costs every process a third of a millisecond to start.
package enum OwnThread {
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let job = Unmanaged.passRetained(Job(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let failed = pthread_create(&thread, nil, { job in
            let job = Unmanaged<Job>.fromOpaque(job!).takeRetainedValue()
            tessera_name_thread(job.name)
            job.body()
            return nil
        }, job)
        precondition(failed == 0, "cannot start a thread for \(name): \(String(cString: strerror(failed)))")
        pthread_detach(thread)
    }

    private final class Job: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            (self.name, self.body) = (name, body)
        }
    }
}
