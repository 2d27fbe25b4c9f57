import ArgumentParser
import Foundation
import TesseraCluster
import TesseraCore
import TesseraPatterns
import TesseraTiles
import TesseraViewer

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs a pattern or soup on a local cluster of worker processes and prints a summary.")

    @OptionGroup var board: BoardOptions
    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var run: RunOptions

    @Flag(help: "Watch and steer the run in this terminal; quitting the viewer ends the run.")
    var view = false

    func run() async throws {
        var (board, cluster, run) = (self.board, self.cluster, self.run)
        if let path = board.config {
            let config = try ConfigFile(
                path: path, allowed: BoardOptions.configKeys + ClusterOptions.configKeys + RunOptions.configKeys)
            try board.apply(config)
            try cluster.apply(config)
            try run.apply(config)
        }
        let workers = cluster.workers ?? ProcessInfo.processInfo.activeProcessorCount
        guard workers >= 0 else { throw TesseraError("--workers \(workers) is negative", fix: "give 0 (in process) or more") }
        if view && !Terminal.isInteractive {
            throw TesseraError("--view needs a terminal", fix: "run it in a terminal, or use --view-listen and 'tessera view'")
        }
        if workers == 0 {
            if view || run.viewListen != nil || run.frames != nil || run.gif != nil {
                throw TesseraError("viewing and exporting frames need worker processes", fix: "give --workers 1 or more")
            }
            try await Self.runInProcess(board: board, run: run)
        } else {
            try await ClusterRun.execute(board: board, run: run, workers: workers, chosen: cluster.workers != nil,
                                         listen: "tcp://127.0.0.1:*",
                                         launchLocal: true, connectTimeout: cluster.connectTimeout ?? 30, view: view)
        }
    }

    /// Every tile as an actor in this process: no worker processes, no sockets.
    private static func runInProcess(board: BoardOptions, run: RunOptions) async throws {
        let setup = try board.resolve(defaultTiles: 1)
        let generations = run.generations ?? 100
        if let output = run.output { try Output.validate(output) }
        let cluster = try await TileCluster(
            tiling: setup.tiling, rule: setup.rule, halo: setup.halo, generation: setup.generation,
            cells: setup.cells(in:))
        let clock = ContinuousClock()
        let start = clock.now
        try await cluster.run(generations: generations)
        let seconds = (clock.now - start).seconds
        if let output = run.output {
            try await Output.write(to: output, setup: setup, generation: setup.generation + generations) { rows in
                await cluster.board(rows: rows)
            }
        }
        Summary.print(setup: setup, generations: generations, seconds: seconds, population: await cluster.population(),
                      workers: [], detailed: false)
    }
}

enum Summary {
    static func print(setup: Setup, generations: UInt64, seconds: Double, population: Int,
                      workers: [WorkerSummary], detailed: Bool) {
        let rate = Double(setup.shape.cellCount) * Double(generations) / max(seconds, 1e-9)
        let placement = workers.isEmpty ? "in process" : "\(workers.count) worker\(workers.count == 1 ? "" : "s")"
        var line = "\(setup.name): \(generations) generations on \(setup.shape) \(setup.rule), \(placement), "
            + "tiles \(setup.tiling.columns)x\(setup.tiling.rows), halo \(setup.halo): "
            + "population \(population), \(String(format: "%.3f", seconds)) s, \(Format.rate(rate)) cell-updates/s"
        if !workers.isEmpty {
            let compute = workers.reduce(0) { $0 + $1.report.computeSeconds }
            let wait = workers.reduce(0) { $0 + $1.report.waitSeconds }
            line += String(format: ", halo wait %.1f%%", 100 * wait / max(compute + wait, 1e-9))
        }
        Swift.print(line)
        guard detailed else { return }
        for w in workers {
            let r = w.report
            let tiles = w.tiles.map(\.description).joined(separator: " ")
            Swift.print(String(format: "  worker %d (pid %d on %@, tiles %@): compute %.3f s, halo wait %.3f s (%.1f%%), sent %@",
                               w.index, w.pid, w.host, tiles, r.computeSeconds, r.waitSeconds,
                               100 * r.waitSeconds / max(r.computeSeconds + r.waitSeconds, 1e-9),
                               Format.bytes(r.bytesSent)))
        }
    }
}

enum Output {
    /// `STEM.rle`, or `STEM-2.rle`, … : a new file for every save, even of the same
    /// generation after an edit.
    static func freshPath(stem: String) -> String {
        var path = stem + ".rle", copy = 1
        while FileManager.default.fileExists(atPath: path) {
            copy += 1
            path = "\(stem)-\(copy).rle"
        }
        return path
    }

    static func validate(_ path: String) throws {
        let lower = path.lowercased()
        guard lower.hasSuffix(".rle") || lower.hasSuffix(".cells") else {
            throw TesseraError("cannot tell the format of output '\(path)'", fix: "name it *.rle or *.cells")
        }
        try AtomicFile.checkWritable(path)
    }

    static func encoder(for path: String, setup: Setup, generation: UInt64) -> any BoardEncoder {
        path.lowercased().hasSuffix(".cells")
            ? PlainText.Encoder(width: setup.shape.width, name: "\(setup.name) generation \(generation)")
            : RLE.Encoder(shape: setup.shape, rule: setup.rule, generation: generation)
    }

    static func write(_ board: BitGrid, to path: String, setup: Setup, generation: UInt64) throws {
        var encoder = encoder(for: path, setup: setup, generation: generation)
        try encoder.write(board, to: path)
    }

    /// Rows fetched at a time when writing a board band by band: 16 MiB of cells.
    static func bandRows(width: Int) -> Int { max(1, (16 << 23) / max(1, width)) }

    /// Writes the board band by band, fetching each band's rows with `rows`: neither
    /// the board nor its text is ever held whole, however large the board.
    static func write(to path: String, setup: Setup, generation: UInt64,
                      rows: (Range<Int>) async throws -> BitGrid) async throws {
        let file = try AtomicFile(path)
        var encoder = encoder(for: path, setup: setup, generation: generation)
        let height = setup.shape.height, band = bandRows(width: setup.shape.width)
        for y in stride(from: 0, to: height, by: band) {
            try encoder.append(try await rows(y..<min(height, y + band)), to: file.write)
        }
        encoder.finish()
        try file.write(encoder.take())
        try file.commit()
    }
}

enum Format {
    /// `73.20 G`, `950.00 M`.
    static func rate(_ value: Double) -> String {
        for (scale, unit) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where value >= scale {
            return String(format: "%.2f", value / scale) + " " + unit
        }
        return String(format: "%.0f", value)
    }

    static func bytes(_ value: UInt64) -> String {
        for (scale, unit) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] where value >= UInt64(scale) {
            return String(format: "%.1f", Double(value) / Double(scale)) + " " + unit
        }
        return "\(value) B"
    }
}
