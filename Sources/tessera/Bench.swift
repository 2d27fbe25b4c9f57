import ArgumentParser
import Foundation
import TesseraCore
import TesseraPatterns
import TesseraTiles

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measures speed, side by side with Golly's bgolly where it is installed.",
        subcommands: [KernelBench.self, ScalingBench.self])
}

struct KernelBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernel",
        abstract: "Single-core cell-updates/s of the step kernel on a torus soup, and bgolly QuickLife's on the same soup.")

    @Option(help: "Board side N (an NxN torus).")
    var size: Int = 4096

    @Option(help: "Generations both programs run from the same soup.")
    var generations: UInt64 = 1000

    @Option(help: "Generations bgolly runs, if fewer (it is far slower). Its speed changes as a soup settles, so the ratio is fairest over the same generations.")
    var gollyGenerations: UInt64?

    @Option(help: "Soup density.")
    var density: Double = 0.35

    @Option(help: "Kernel: avx2 or portable. Default: the fastest this CPU runs.")
    var kernel: String?

    @Option(help: "Rule to measure.")
    var rule: String = "B3/S23"

    @Flag(help: "Also measure one sweep of the board per generation, without temporal blocking, to show what blocking gains.")
    var compareBlocking = false

    func run() async throws {
        guard size >= 2 else { throw TesseraError("bench size \(size) is too small", fix: "give --size 2 or more") }
        let implementation = try kernel.map {
            guard let k = Kernel.Implementation(rawValue: $0) else {
                throw TesseraError("unknown kernel '\($0)'", fix: "use --kernel avx2 or --kernel portable")
            }
            if k == .avx2 && Kernel.best != .avx2 {
                throw TesseraError("this CPU has no AVX2", fix: "use --kernel portable")
            }
            return k
        } ?? Kernel.best
        let (parsedRule, _) = try BoardShape.parseRule(rule)
        let shape = BoardShape(width: size, height: size, topology: .torus)
        let soup = try Soup(density: density, seed: 1)
        let tiling = try Tiling(shape: shape, columns: 1, rows: 1)
        let blocks = TileCluster.blockingPays(rect: tiling.rect(of: tiling.tiles[0]), halo: tiling.defaultHalo)
        func measure(blocking: Bool) async throws -> Double {
            let cluster = try await TileCluster(
                tiling: tiling, rule: parsedRule, halo: tiling.defaultHalo, implementation: implementation,
                blocking: blocking
            ) { soup.cells(x: shape.left + $0.x, y: shape.top + $0.y, width: $0.width, height: $0.height) }
            let start = ContinuousClock.now
            try await cluster.run(generations: generations)
            return Double(shape.cellCount) * Double(generations) / (ContinuousClock.now - start).seconds
        }
        let ours = try await measure(blocking: blocks)
        let schedule = blocks ? "temporal blocking, \(tiling.defaultHalo) generations per sweep" : "one sweep per generation"
        print("tessera  \(implementation.rawValue) kernel, \(parsedRule), \(size)x\(size) torus soup \(density), "
            + "\(generations) generations, \(schedule): \(Format.rate(ours)) cell-updates/s")
        if compareBlocking {
            let other = try await measure(blocking: !blocks)
            let (with, without) = blocks ? (ours, other) : (other, ours)
            print("tessera  \(blocks ? "one sweep per generation" : "temporal blocking (forced)"): \(Format.rate(other)) cell-updates/s;"
                + String(format: " blocking gains %.2fx", with / without))
        }
        let gollyGenerations = gollyGenerations ?? generations
        guard size <= 16384 else {
            // Its input would be a multi-gigabyte RLE file, and bgolly gives up on it.
            print("bgolly   not run above 16384x16384: compare at --size 16384 or less")
            return
        }
        let golly: Double
        do {
            guard let measured = try Golly.measure(soup: soup, shape: shape, rule: parsedRule, generations: gollyGenerations) else {
                print("bgolly   not installed (apt-get install golly): no ratio")
                return
            }
            golly = measured
        } catch {
            print("bgolly   could not run this board (\(error)): no ratio")
            return
        }
        print("bgolly   QuickLife, same soup, \(gollyGenerations) generations (reading the file subtracted): \(Format.rate(golly)) cell-updates/s")
        print(String(format: "ratio    %.1fx bgolly", ours / golly))
    }
}

/// Runs Golly's `bgolly` on the same board to measure it side by side.
enum Golly {
    static var path: String? {
        ["/usr/bin/bgolly", "/usr/local/bin/bgolly", "/usr/games/bgolly"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// bgolly QuickLife's cell-updates/s, with the time to read the pattern subtracted.
    static func measure(soup: Soup, shape: BoardShape, rule: Rule, generations: UInt64) throws -> Double? {
        guard let bgolly = path else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-\(getpid()).rle").path
        defer { unlink(file) }
        let board = soup.cells(x: shape.left, y: shape.top, width: shape.width, height: shape.height)
        var encoder = RLE.Encoder(shape: shape, rule: rule, generation: 0)
        try encoder.write(board, to: file)
        func time(_ generations: UInt64) throws -> Double {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: bgolly)
            process.arguments = ["-q", "-q", "-a", "QuickLife", "-m", "\(generations)", file]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let clock = ContinuousClock()
            let start = clock.now
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TesseraError("bgolly failed with status \(process.terminationStatus)", fix: "check the golly installation")
            }
            return (clock.now - start).seconds
        }
        let load = try time(0)
        let total = try time(generations)
        return Double(shape.cellCount) * Double(generations) / max(total - load, 1e-9)
    }
}
