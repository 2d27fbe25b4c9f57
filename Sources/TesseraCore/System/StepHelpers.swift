#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Threads of this process's own (not the task pool's) that help a step on every core.
/// A HashLife step: while the thread that asked walks the step's squares, each helper
/// walks the same squares in another order (`Stepper.order`), so that the results it
/// memoises are ones the asking thread finds made when it gets there; helpers need no
/// share of the work handed out and nothing joined: the asking thread's walk alone
/// gives the result, and a helper stops at its next square once that is done. A board
/// stepped whole: bands of its rows taken in turn (`share(rows:band:_:)`). Its mutex
/// guards the job handed out; hence `Sendable`.
package final class StepHelpers: @unchecked Sendable {
    /// One fewer than this process's usable cores (at most 15), started on first use;
    /// nil on one core.
    package static let shared: StepHelpers? = {
        let cores = CPUAffinity.usableCount
        return cores > 1 ? StepHelpers(count: min(cores - 1, 15)) : nil
    }()

    package let count: Int
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let posted = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// The job of the step under way, for helpers that have not taken it yet.
    private var job: (@Sendable (_ helper: Int) -> Void)?
    /// Helpers that may take `job` still; the first to take it is helper 1, and so on.
    private var unclaimed = 0
    private var started = false
    /// Whether a step is using the helpers: another one at the same time (two universes
    /// in one process) walks alone.
    private var busy = false
    /// Helpers running a job: the asking thread returns only once none is (a HashLife
    /// store changes, a stepped board is read, after that).
    private let running = Atomic<Int>(0)

    init(count: Int) {
        self.count = count
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(posted, nil)
    }

    /// Runs `walk` on this thread while every helper runs `help` (with its number,
    /// 1 to `count`); once `walk` is done, `stop` tells the helpers to stop, and this
    /// returns when every one that started has. Where another step has the helpers,
    /// `walk` runs alone.
    package func run<Value>(_ walk: () throws -> Value, helping help: @escaping @Sendable (_ helper: Int) -> Void,
                            stop: () -> Void) rethrows -> Value {
        pthread_mutex_lock(mutex)
        guard !busy else {
            pthread_mutex_unlock(mutex)
            return try walk()
        }
        busy = true
        if !started {
            started = true
            for _ in 0..<count { OwnThread.start(named: "tessera-helper") { [self] in serve() } }
        }
        (job, unclaimed) = (help, count)
        running.add(count, ordering: .relaxed)
        pthread_cond_broadcast(posted)
        pthread_mutex_unlock(mutex)
        defer {
            stop()
            // Helpers that did not take the job yet never will.
            pthread_mutex_lock(mutex)
            running.subtract(unclaimed, ordering: .relaxed)
            (job, unclaimed) = (nil, 0)
            pthread_mutex_unlock(mutex)
            // The rest stop at their next square, or after the band they hold, microseconds
            // away: this thread yields rather than sleeps (it may be one of the task pool's,
            // which must not block).
            while running.load(ordering: .acquiring) > 0 { sched_yield() }
            pthread_mutex_lock(mutex)
            busy = false
            pthread_mutex_unlock(mutex)
        }
        return try walk()
    }

    /// Runs `body` over the bands of `rows` rows, `band` rows each (the last one
    /// fewer), on this thread and every helper at once: each takes the next band none
    /// has taken until none is left, so a helper that starts late takes fewer, and every
    /// band is done when this returns. Whether `body` returned true for every band.
    package func share(rows: Int, band: Int, _ body: @escaping @Sendable (Range<Int>) -> Bool) -> Bool {
        let bands = Bands(rows: rows, band: band, body)
        run({ bands.take() }, helping: { _ in bands.take() }, stop: {})
        return !bands.failed.load(ordering: .acquiring)
    }

    /// A helper's life: each job posted, for as long as the process runs.
    private func serve() {
        while true {
            pthread_mutex_lock(mutex)
            while job == nil || unclaimed == 0 { pthread_cond_wait(posted, mutex) }
            let helper = count - unclaimed + 1
            unclaimed -= 1
            let help = job!
            pthread_mutex_unlock(mutex)
            help(helper)
            running.subtract(1, ordering: .releasing)
        }
    }
}

/// The bands of a shared job: the next one to take, and whether one failed.
private final class Bands: Sendable {
    let rows: Int, band: Int
    let body: @Sendable (Range<Int>) -> Bool
    let next = Atomic<Int>(0), failed = Atomic<Bool>(false)

    init(rows: Int, band: Int, _ body: @escaping @Sendable (Range<Int>) -> Bool) { (self.rows, self.band, self.body) = (rows, band, body) }

    func take() {
        while true {
            let first = next.add(band, ordering: .relaxed).oldValue
            guard first < rows else { return }
            if !body(first..<min(first + band, rows)) { failed.store(true, ordering: .releasing) }
        }
    }
}
