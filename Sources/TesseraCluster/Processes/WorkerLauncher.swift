import FoundationEssentials
import Glibc
import TesseraCore

/// How a coordinator starts its workers: this binary on this machine, or a launch
/// command per host (`ssh {host}`, `srun -N1 -n1 -w {host} --overlap`) that runs
/// `tessera worker` there.
package struct WorkerLauncher: Sendable {
    /// Where workers go, dealt in contiguous runs so neighbouring tiles share a host; empty: here.
    package var hosts: [String]
    /// A shell command line with `{host}` in it, put in front of the worker's command.
    package var command: String
    /// The `tessera` binary on the hosts.
    package var executable: String
    /// For tests: each worker stops itself at the first tiles it is given (`tessera
    /// worker --stop-before-building`).
    package var stopsBeforeBuilding = false

    package static let here = WorkerLauncher(hosts: [], command: "", executable: LocalWorkers.executable)

    package init(hosts: [String], command: String, executable: String) {
        (self.hosts, self.command, self.executable) = (hosts, command, executable)
    }

    /// Reads a hosts file: one host name per line; `#` starts a comment.
    package static func hosts(file path: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TesseraError("cannot read hosts file \(path)", fix: "give a readable file with one host name per line")
        }
        var hosts: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let host = line.prefix { $0 != "#" }.trimmingWhitespace
            guard !host.isEmpty else { continue }
            // Host names go into a shell command line: allow only what host names are made of.
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || "._-:".contains($0) }), host.first != "-" else {
                throw TesseraError("bad host name '\(host)' on line \(number + 1) of \(path)",
                                   fix: "write one host name or address per line")
            }
            hosts.append(String(host))
        }
        guard !hosts.isEmpty else {
            throw TesseraError("hosts file \(path) names no hosts", fix: "write one host name or address per line")
        }
        return hosts
    }

    /// Worker `index` of `count`: its host (nil here) and the command line that starts it.
    func command(worker index: Int, of count: Int, coordinator: String, keys: String?) -> (host: String?, arguments: [String]) {
        let host = hosts.isEmpty ? nil : hosts[index * hosts.count / max(count, 1)]
        let worker = [executable, "worker", "--coordinator", coordinator, "--name", "\(host ?? "local")-\(index)"]
            + (keys.map { ["--keys", $0] } ?? []) + (stopsBeforeBuilding ? ["--stop-before-building"] : [])
        guard let host else {
            // One worker per core, each on its own: a worker's load is then its own, as on
            // a machine of its own. Fewer workers than cores float.
            let cpus = CPUAffinity.allowed
            let pin = count > 1 && count == cpus.count ? ["--cpu", "\(cpus[index])"] : []
            return (nil, worker + ["--parent-pid", "\(getpid())"] + pin)
        }
        let line = command.replacing("{host}", with: host) + " "
            + worker.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
        return (host, ["/bin/sh", "-c", line])
    }
}
