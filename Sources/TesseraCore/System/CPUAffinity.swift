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
