import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraPatterns
import TesseraRun

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Writes the newest complete checkpoint in a folder as a pattern file Golly opens (.rle, .cells or .mc).")

    @Argument(help: "A folder a run wrote with --checkpoint.")
    var folder: String

    @Argument(help: "The file to write: .rle, .cells or .mc.")
    var output: String

    func run() async throws {
        guard let restored = try RunRequest.newestCheckpoint(in: folder) else {
            throw TesseraError("folder \(folder) holds no checkpoint", fix: "give the folder a run wrote with --checkpoint")
        }
        let out = try BoardOutput(path: output, shape: restored.shape, rule: restored.rule, name: Files.lastComponent(of: folder))
        try out.write(restored.board, generation: restored.manifest.generation)
        print("\(output): generation \(restored.manifest.generation) of \(restored.shape) \(restored.rule), population \(restored.board.population)")
    }
}
