import ArgumentParser
import Foundation
import TesseraCore
import TesseraPatterns
import TesseraTiles

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs a pattern or soup for some generations and prints a summary.")

    @OptionGroup var board: BoardOptions

    @Option(help: "Generations to run.")
    var generations: UInt64 = 100

    @Option(help: "Write the final board to this .rle or .cells file (atomically).")
    var output: String?

    func run() async throws {
        let setup = try board.resolve()
        if let output { try Output.validate(output) }
        let cluster = try await TileCluster(
            tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: setup.generation,
            cells: setup.cells(in:))
        let clock = ContinuousClock()
        let start = clock.now
        try await cluster.run(generations: generations)
        let seconds = (clock.now - start).seconds
        let population = await cluster.population()
        let rate = Double(setup.shape.cellCount) * Double(generations) / max(seconds, 1e-9)
        if let output {
            try await Output.write(cluster.board(), to: output, setup: setup,
                                   generation: setup.generation + generations)
        }
        print("\(setup.name): \(generations) generations on \(setup.shape) \(setup.rule), "
            + "tiles \(setup.tiling.columns)x\(setup.tiling.rows), halo \(setup.halo): "
            + "population \(population), \(String(format: "%.3f", seconds)) s, "
            + "\(Format.rate(rate)) cell-updates/s")
    }
}

enum Output {
    static func validate(_ path: String) throws {
        let lower = path.lowercased()
        guard lower.hasSuffix(".rle") || lower.hasSuffix(".cells") else {
            throw TesseraError("cannot tell the format of output '\(path)'", fix: "name it *.rle or *.cells")
        }
        try AtomicFile.checkWritable(path)
    }

    static func write(_ board: BitGrid, to path: String, setup: Setup, generation: UInt64) throws {
        try AtomicFile.write(path) { sink in
            if path.lowercased().hasSuffix(".cells") {
                try sink(PlainText.string(for: board, name: "\(setup.name) generation \(generation)"))
            } else {
                try RLE.write(shape: setup.shape, rule: setup.rule, generation: generation,
                              row: { board.row($0) }, to: sink)
            }
        }
    }
}

enum Format {
    /// `73.2 G`, `950.0 M`.
    static func rate(_ value: Double) -> String {
        for (scale, unit) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= scale {
            return String(format: "%.2f", value / scale) + " " + unit
        }
        return String(format: "%.0f", value)
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
