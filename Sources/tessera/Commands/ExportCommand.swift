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
        let generation = restored.manifest.generation
        let shape = restored.shape ?? BoardShape(width: 0, height: 0, topology: .infinite)
        let out = try BoardOutput(path: output, shape: shape, rule: restored.rule, name: Files.lastComponent(of: folder))
        switch restored.cells {
        case .grid(_, let states?):
            try out.write(states: states, left: shape.left, top: shape.top, rule: restored.rule, generation: generation)
        case .grid(let board, nil):
            try out.write(board, generation: generation)
        case .parts(let parts):
            // Written as a run writes its sparse plane: a bounded grid's `.cells` band by band.
            try await SparsePlane(parts: parts, rule: restored.rule, board: restored.shape, generation: generation).write(to: out)
        }
        print("\(output): generation \(generation) of \(restored.board) \(restored.rule), population \(restored.population)")
    }
}
