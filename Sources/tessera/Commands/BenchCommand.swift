import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measures speed, side by side with Golly's bgolly where it is installed.",
        subcommands: [KernelBenchCommand.self, ScalingBenchCommand.self, WorkloadsBenchCommand.self, CorpusBenchCommand.self])
}
