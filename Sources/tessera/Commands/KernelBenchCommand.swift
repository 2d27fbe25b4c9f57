import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraBench
import TesseraRun

struct KernelBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernel",
        abstract: "Single-core cell-updates/s of the step kernel on a torus soup, and bgolly's (the engine that runs the rule) on the same soup.")

    @Option(help: "Board side N (an NxN torus).")
    var size: Int = 4096

    @Option(help: "Generations both programs run from the same soup.")
    var generations: UInt64 = 1000

    @Option(help: "Generations bgolly runs, if fewer (it is far slower). Its speed changes as a soup settles, so the ratio is fairest over the same generations.")
    var gollyGenerations: UInt64?

    @Option(help: "Soup density.")
    var density: Double = 0.35

    @Option(help: "Kernel: avx2 or portable. Default: the fastest this CPU runs.")
    var kernel: Kernel.Implementation?

    @Option(help: "Rule to measure.", transform: parsing(RuleChoice.init(parsing:)))
    var rule: RuleChoice = try! RuleChoice(parsing: "B3/S23")

    @Flag(help: "Also measure one sweep of the board per generation, without temporal blocking, to show what blocking gains.")
    var compareBlocking = false

    func validate() throws {
        guard size >= 2 else { throw TesseraError("bench size \(size) is too small", fix: "give --size 2 or more") }
        guard generations >= 1 else { throw TesseraError("--generations 0 measures nothing", fix: "give 1 or more") }
        try kernel?.checkSupported()
        _ = try Soup(density: density, seed: 1)
    }

    func run() async throws {
        let implementation = kernel ?? Kernel.best
        let soup = try Soup(density: density, seed: 1)
        let blocks = KernelBenchmark.blocksByDefault(size: size)
        func measure(blocking: Bool) async throws -> Double {
            try await KernelBenchmark.measure(size: size, soup: soup, rule: rule.rule, generations: generations,
                                              implementation: implementation, blocking: blocking)
        }
        let ours = try await measure(blocking: blocks)
        let schedule = blocks ? "temporal blocking, \(KernelBenchmark.depth(size: size)) generations per sweep" : "one sweep per generation"
        print("tessera  \(implementation.name) kernel, \(rule.rule), \(size)x\(size) torus soup \(density), "
            + "\(generations) generations, \(schedule): \(Format.rate(ours)) cell-updates/s")
        if compareBlocking {
            let other = try await measure(blocking: !blocks)
            let (with, without) = blocks ? (ours, other) : (other, ours)
            print("tessera  \(blocks ? "one sweep per generation" : "temporal blocking (forced)"): \(Format.rate(other)) cell-updates/s;"
                + String(cFormat: " blocking gains %.2fx", with / without))
        }
        let gollyGenerations = gollyGenerations ?? generations
        guard size <= 16384 else {
            // Its input would be a multi-gigabyte RLE file, and bgolly gives up on it.
            print("bgolly   not run above 16384x16384: compare at --size 16384 or less")
            return
        }
        let golly: Double
        do {
            guard let measured = try await GollyReference.measure(soup: soup, shape: BoardShape(width: size, height: size, topology: .torus),
                                                                  rule: rule.rule, generations: gollyGenerations) else {
                print("bgolly   not installed (apt-get install golly): no ratio")
                return
            }
            golly = measured
        } catch {
            print("bgolly   could not run this board (\(error)): no ratio")
            return
        }
        print("bgolly   \(GollyReference.engine(for: rule.rule)), same soup, \(gollyGenerations) generations (reading the file subtracted): \(Format.rate(golly)) cell-updates/s")
        print(String(cFormat: "ratio    %.1fx bgolly", ours / golly))
    }
}
