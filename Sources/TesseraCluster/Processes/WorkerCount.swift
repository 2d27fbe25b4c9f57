import Glibc
import TesseraCore
import TesseraWire

/// How many workers can work: a run has at most `maxWorkers` (what its messages carry),
/// and a machine starts at most `localLimit` of them itself. Checked before anything
/// starts, so that a count that cannot work is one line, not a machine full of processes.
package enum WorkerCount {
    /// Local workers per CPU at most. Past one a CPU, local workers only take turns on
    /// the cores: each adds its own threads and about 20 MB, and must still send a
    /// heartbeat every `--silence` seconds while they all wait on each other's halos
    /// every round. Tests run 8 workers on one or two CPUs on purpose; 16 a CPU leaves
    /// room for that, far below where the processes would crowd the machine out.
    package static let localPerCPU = 16

    /// Threads one worker runs: its cooperative pool's, one per CPU, and about eight
    /// more (ZeroMQ's, its pump's, its watchers'); 9 measured on two CPUs.
    static func threadsPerWorker(cpus: Int) -> Int { cpus + 8 }

    /// The most workers this machine starts for one run, with `cpus` CPUs and a process
    /// limit (`RLIMIT_NPROC`, which counts threads) of `processLimit` (nil: none).
    package static func localLimit(cpus: Int, processLimit: Int?) -> Int {
        let cpus = max(1, cpus)
        var limit = min(maxWorkers, localPerCPU * cpus)
        if let processLimit { limit = min(limit, max(1, processLimit / threadsPerWorker(cpus: cpus))) }
        return limit
    }

    /// Refuses `count` workers for a run: more than a run has.
    package static func check(_ count: Int) throws {
        guard count <= maxWorkers else {
            throw TesseraError("--workers \(count) is more than the \(maxWorkers) workers a run can have",
                               fix: "give --workers \(maxWorkers) or fewer")
        }
    }

    /// Refuses `count` workers started on this machine: more than it runs (`localLimit`).
    package static func checkLocal(_ count: Int, cpus: Int = CPUAffinity.usableCount,
                                   processLimit: Int? = WorkerCount.processLimit) throws {
        let limit = localLimit(cpus: cpus, processLimit: processLimit)
        guard count <= limit else {
            let why = limit == localPerCPU * max(1, cpus)
                ? "\(localPerCPU) for each of its \(max(1, cpus)) CPU\(cpus == 1 ? "" : "s")"
                : limit == maxWorkers ? "the most a run can have"
                : "its process limit (ulimit -u) of \(processLimit ?? 0) threads, about \(threadsPerWorker(cpus: max(1, cpus))) for each worker"
            throw TesseraError("--workers \(count) is more than this machine runs: at most \(limit) local workers (\(why))",
                               fix: "give --workers \(limit) or fewer, or start more on other machines with 'tessera coordinator' here and 'tessera worker --coordinator ENDPOINT' there")
        }
    }

    /// This process's `RLIMIT_NPROC` (soft), or nil where there is none.
    package static var processLimit: Int? {
        var limit = rlimit()
        // RLIM_INFINITY is all ones: rlim_t.max.
        guard getrlimit(__rlimit_resource_t(__RLIMIT_NPROC.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        return Int(clamping: limit.rlim_cur)
    }
}
