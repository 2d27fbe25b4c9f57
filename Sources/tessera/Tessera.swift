import ArgumentParser
import FoundationEssentials
import Glibc
import TesseraCore
import TesseraRun

/// The `tessera` command line.
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Runs Conway's Game of Life, and any Life-like B/S rule, on tiled boards.",
        subcommands: [RunCommand.self, CoordinatorCommand.self, WorkerCommand.self, PresenterCommand.self, ViewCommand.self,
                      PatternsCommand.self, ExportCommand.self, BenchCommand.self, KeygenCommand.self]
    )

    /// Every failure, flag errors included, is one line on stderr and exit status 2.
    static func main() async {
        do {
            // `run` with a pattern and the common flags skips the parser's reflection.
            if let plain = RunCommand.plain(CommandLine.arguments.dropFirst()) {
                try await plain.run()
                return
            }
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch let interrupted as Interrupted {
            Files.writeToStandardError("error: \(interrupted)\n")
            Glibc.exit(128 + interrupted.signal)
        } catch {
            let code = exitCode(for: error)
            if code == .success || error is CleanExit {
                exit(withError: error)
            }
            var message = (error as? TesseraError)?.description ?? Self.message(for: error)
            message = message.split(separator: "\n").first.map(String.init) ?? message
            // Flag errors from the parser name the problem; say where the fix is.
            if !(error is TesseraError) { message += " (see 'tessera --help')" }
            Files.writeToStandardError("error: \(message)\n")
            Glibc.exit(2)
        }
    }
}
