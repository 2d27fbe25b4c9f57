import CTesseraSystem
import FoundationEssentials
import Glibc

/// Which CPUs a process may run on, and pinning a whole process to one: a local worker
/// per core, each on its own, behaves as a worker on its own machine does (and as
/// Slurm's `--cpu-bind=cores` places tasks), so the load it carries is its own.
package enum CPUAffinity {
    /// The CPUs this process may run on, in order.
    package static var allowed: [Int] {
        var cpus = [Int32](repeating: 0, count: 4096)
        let count = tessera_allowed_cpus(&cpus, Int32(cpus.count))
        return count < 0 ? [] : cpus.prefix(Int(count)).map(Int.init)
    }

    /// How many CPUs this process can keep busy: those its affinity allows (a cpuset
    /// narrows it), fewer where a cgroup's quota caps its CPU time (a container's
    /// `--cpus`, a Kubernetes limit). Foundation's activeProcessorCount reads only
    /// cgroup v1's files, and costs a short run 0.2 ms.
    package static var usableCount: Int {
        let cpus = max(1, Int(tessera_allowed_cpu_count()))
        let quota = quotaCPUs(v2: firstLine(of: "/sys/fs/cgroup/cpu.max"),
                              v1Quota: firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"),
                              v1Period: firstLine(of: "/sys/fs/cgroup/cpu/cpu.cfs_period_us"))
        return min(cpus, quota ?? cpus)
    }

    /// The CPUs' worth of time a cgroup's quota allows, rounded up and at least one:
    /// v2's `cpu.max` ("max PERIOD" or "QUOTA PERIOD"), else v1's quota and period
    /// (a quota of -1 is none); nil where there is no quota.
    package static func quotaCPUs(v2: String?, v1Quota: String?, v1Period: String?) -> Int? {
        let (quota, period): (Int?, Int?)
        if let v2 {
            let fields = v2.split(separator: " ")
            (quota, period) = (fields.first.flatMap { Int($0) }, fields.count == 2 ? Int(fields[1]) : nil)
        } else {
            (quota, period) = (v1Quota.flatMap { Int($0) }, v1Period.flatMap { Int($0) })
        }
        guard let quota, let period, quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// A small kernel file's first line, or nil where it cannot be read.
    private static func firstLine(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes.prefix(count).prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    /// Pins every thread of this process, and so every thread they start, to `cpu`.
    package static func pinProcess(to cpu: Int) throws {
        // The affinity call takes one thread at a time: each of ours, by its id.
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for tid in [0] + threads.compactMap(Int32.init) {
            let error = tessera_pin_thread(tid, Int32(cpu))
            // A thread that ended since the listing is no longer ours to pin.
            guard error == 0 || error == ESRCH else {
                throw TesseraError("cannot pin this process to CPU \(cpu): \(String(cString: strerror(error)))",
                                   fix: "give one of \(allowed.map(String.init).joined(separator: ", ")), or leave out --cpu")
            }
        }
    }
}
