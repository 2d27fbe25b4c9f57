import ArgumentParser
import Foundation
import TesseraCluster
import TesseraCore

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Hosts tiles for a coordinator, trading halos directly with other workers.")

    @Option(help: "The coordinator's endpoint, tcp://HOST:PORT.")
    var coordinator: String

    @Option(help: "The address peers reach this worker at. Default: this machine's address on the route to the coordinator.")
    var advertise: String?

    @Option(help: "Where to bind the halo inbox. Default: tcp://ADVERTISE:* (a free port).")
    var listen: String?

    @Option(help: "Exit when this process (the local coordinator) is gone.")
    var parentPid: Int32?

    @Option(help: "A name for log lines.")
    var name: String?

    @Option(help: "Seconds the coordinator may stay silent before this worker leaves (default 5).",
            transform: parsing { try Seconds(parsing: $0, flag: "silence") })
    var silence: Seconds?

    @Option(help: "Run only on this CPU (tessera run pins its local workers, one per core).")
    var cpu: Int?

    @OptionGroup var security: SecurityOptions

    func validate() throws {
        if let cpu, !CPUAffinity.allowed.contains(cpu) {
            throw TesseraError("CPU \(cpu) is not one this process may run on",
                               fix: "give one of \(CPUAffinity.allowed.map(String.init).joined(separator: ", ")), or leave out --cpu")
        }
        _ = try Endpoint.split(coordinator)
        if let listen { _ = try Endpoint.split(listen) }
    }

    func run() async throws {
        let advertise = try self.advertise ?? Endpoint.localAddress(toward: coordinator)
        let listen = self.listen ?? "tcp://\(advertise):*"
        _ = try Endpoint.split(listen)
        // A local coordinator that died before this worker started must not leave an orphan.
        if let parentPid, getppid() != parentPid { Foundation.exit(3) }
        if let cpu { try CPUAffinity.pinProcess(to: cpu) }
        let silence = self.silence?.duration ?? .seconds(5)
        let credentials = try security.memberCredentials()
        security.warnIfOpen([listen], role: "worker", exposes: "can send it halo strips and so change the board")
        let ending = try await WorkerNode.serve(coordinator: coordinator, listen: listen, advertise: advertise,
                                                silence: silence, parent: parentPid, credentials: credentials)
        let who = name.map { "worker \($0)" } ?? "worker"
        switch ending {
        case .shutdown: return
        case .aborted, .parentGone: Foundation.exit(3)
        case .interrupted(let signal):
            throw TesseraError("\(signal): \(who) left at once, without handing off its tiles",
                               fix: "send SIGTERM once and let it finish handing them off")
        case .refused(let reason):
            throw TesseraError("coordinator \(coordinator) turned this \(who) away: \(reason)",
                               fix: "start as many workers as the coordinator's --workers")
        case .coordinatorLost:
            throw TesseraError("coordinator \(coordinator) went silent for \(Format.duration(silence.seconds)); \(who) leaving",
                               fix: "check that the coordinator is running and reachable")
        }
    }
}
