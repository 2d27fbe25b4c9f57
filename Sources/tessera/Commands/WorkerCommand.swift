import ArgumentParser
import FoundationEssentials
import Glibc
import TesseraCluster
import TesseraCore
import TesseraRun

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Hosts tiles for a coordinator, trading halos directly with other workers.",
        discussion: """
            With --drain PID it asks a running worker on this machine to hand its tiles \
            to the others and leave, as SIGTERM does, and returns once it has left; \
            exit status 2 when it did not hand them off (its coordinator keeps a run's \
            only worker).
            """)

    @Option(help: "The coordinator's endpoint, tcp://HOST:PORT.")
    var coordinator: String?

    @Option(help: ArgumentHelp("Ask the running worker with this process id to hand off its tiles and leave; wait until it has.",
                               valueName: "pid"))
    var drain: Int32?

    @Option(help: "Seconds --drain waits for the worker to leave (default 60).",
            transform: parsing { try Seconds(parsing: $0, flag: "drain-timeout") })
    var drainTimeout: Seconds?

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

    /// Stops this worker (SIGSTOP) at the first tiles it is given: for tests that lose a
    /// worker while the board loads.
    @Flag(help: .hidden)
    var stopBeforeBuilding = false

    func validate() throws {
        if drain != nil {
            guard coordinator == nil, advertise == nil, listen == nil, parentPid == nil, cpu == nil else {
                throw TesseraError("--drain asks a running worker to leave; it starts none, so it takes no --coordinator, --advertise, --listen, --parent-pid or --cpu",
                                   fix: "give only --drain PID (and --drain-timeout)")
            }
            return
        }
        guard let coordinator else {
            throw TesseraError("a worker needs its coordinator", fix: "give --coordinator tcp://HOST:PORT (or --drain PID to ask a running worker to leave)")
        }
        if drainTimeout != nil {
            throw TesseraError("--drain-timeout goes with --drain PID", fix: "leave it out, or add --drain PID")
        }
        if let cpu, !CPUAffinity.allowed.contains(cpu) {
            throw TesseraError("CPU \(cpu) is not one this process may run on",
                               fix: "give one of \(CPUAffinity.allowed.map(String.init).joined(separator: ", ")), or leave out --cpu")
        }
        _ = try Endpoint.split(coordinator)
        if let listen { _ = try Endpoint.split(listen) }
    }

    func run() async throws {
        if let drain {
            print(try await WorkerDrain.drain(pid: drain, timeout: drainTimeout?.duration ?? .seconds(60)))
            return
        }
        let coordinator = coordinator!
        let advertise = try self.advertise ?? Endpoint.localAddress(toward: coordinator)
        let listen = self.listen ?? "tcp://\(advertise):*"
        _ = try Endpoint.split(listen)
        // A local coordinator that died before this worker started, or dies later, leaves no orphan.
        if let parentPid { ParentWatch.exitWhenGone(parentPid) }
        if let cpu { try CPUAffinity.pinProcess(to: cpu) }
        let silence = self.silence?.duration ?? .seconds(5)
        let credentials = try security.memberCredentials()
        security.warnIfOpen([listen], role: "worker", exposes: "can send it halo strips and so change the board")
        let ending = try await WorkerNode.serve(coordinator: coordinator, listen: listen, advertise: advertise,
                                                silence: silence, credentials: credentials,
                                                stopsBeforeBuilding: stopBeforeBuilding)
        let who = name.map { "worker \($0)" } ?? "worker"
        switch ending {
        case .shutdown: return
        case .aborted: Glibc.exit(3)
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
