import ArgumentParser
import FoundationEssentials
import TesseraCluster
import TesseraCore
import TesseraRun

struct PresenterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presenter",
        abstract: "Runs the presenter as its own process: drives a 'tessera coordinator --external-presenter' and serves viewers.")

    @Option(help: "The coordinator's endpoint (its --listen).")
    var coordinator: String

    @Option(help: "Where viewers connect ('tessera view --connect …').")
    var viewListen: String = "tcp://127.0.0.1:7471"

    @Option(help: "Generations to run before finishing; without it, runs until SIGINT or SIGTERM.")
    var generations: UInt64?

    @Option(help: "Seconds the coordinator may stay silent, before it welcomes this presenter or after, before it gives up (default 5).",
            transform: parsing { try Seconds(parsing: $0, flag: "silence") })
    var silence: Seconds?

    @OptionGroup var security: SecurityOptions

    func validate() throws {
        _ = try Endpoint.split(coordinator)
        _ = try Endpoint.split(viewListen)
    }

    func run() async throws {
        let credentials = try security.memberCredentials()
        security.warnIfOpen([viewListen], role: "presenter", exposes: "can watch and steer the run and edit its cells")
        let stopped = try await RemoteCluster.with(coordinator: coordinator, viewers: viewListen,
                                                   silence: silence?.duration ?? .seconds(5), credentials: credentials) { [generations] cluster, endpoint in
            let start = await cluster.generation
            if let generations { _ = try Self.end(start, generations) }
            let (shape, rule) = (cluster.tiling.shape, cluster.rule)
            let presenter = Presenter(universe: cluster, viewers: cluster.viewers, stopAt: generations.map { start + $0 }) { board, generation in
                try RunSession.save(board, generation: generation, stem: "tessera-\(generation)", shape: shape, rule: rule)
            }
            say("tessera presenter: viewers can attach with 'tessera view --connect \(endpoint)'")
            // A signal ends the presentation cleanly: the coordinator then finishes the run.
            var services = ServiceGroup()
            services.onSignals { _ in await presenter.stop() }
            try await services.run { try await presenter.run() }
            return await cluster.generation
        }
        print("tessera presenter: stopped at generation \(stopped)")
    }

    private static func end(_ start: UInt64, _ generations: UInt64) throws -> UInt64 {
        let (end, overflow) = start.addingReportingOverflow(generations)
        guard !overflow else {
            throw TesseraError("the run is at generation \(start): \(generations) more is past the last generation Tessera counts",
                               fix: "run fewer --generations")
        }
        return end
    }
}
