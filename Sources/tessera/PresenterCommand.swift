import ArgumentParser
import Foundation
import TesseraCluster
import TesseraCore
import TesseraPatterns

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

    func run() async throws {
        _ = try Endpoint.split(coordinator)
        _ = try Endpoint.split(viewListen)
        let (cluster, endpoint) = try await RemoteCluster.connect(coordinator: coordinator, viewers: viewListen)
        let start = await cluster.generation
        let shape = cluster.tiling.shape, rule = cluster.rule
        let presenter = Presenter(coordinator: cluster, stopAt: generations.map { start + $0 }) { board, generation in
            let path = Output.freshPath(stem: "tessera-\(generation)")
            var encoder = RLE.Encoder(shape: shape, rule: rule, generation: generation)
            try encoder.write(board, to: path)
            return FileManager.default.currentDirectoryPath + "/" + path
        }
        await presenter.attach()
        FileHandle.standardOutput.write(Data("tessera presenter: viewers can attach with 'tessera view --connect \(endpoint)'\n".utf8))
        let interrupts = Interrupts { _ in Task { await presenter.stop() } }
        defer { interrupts.restore() }
        do {
            try await presenter.run()
        } catch {
            await cluster.finish()
            throw error
        }
        await cluster.finish()
        print("tessera presenter: stopped at generation \(await cluster.generation)")
    }
}
