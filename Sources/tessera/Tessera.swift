import ArgumentParser
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

    /// The process's entry. `run` with a pattern and the common flags skips the parser's
    /// reflection, and starts on this thread: a methuselah's whole run by HashLife takes
    /// less time than starting the task pool (R-pentomino: 0.4 ms against 1; bgolly's
    /// whole run is 2.5). The task pool starts only where a run needs it.
    static func main() {
        // The words from argv here, not `CommandLine.arguments`, whose unspecialised
        // code looks its types up by name at run time (60 µs).
        let words = (1..<max(1, Int(CommandLine.argc))).map { String(cString: CommandLine.unsafeArgv[$0]!) }
        if let line = PlainRunLine(words) {
            let begun: RunRequest.Begun
            let request = line.request
            do {
                try request.validate()
                begun = try request.begin()
            } catch {
                fail(error)
            }
            switch begun {
            case .finished(let summary):
                summary.forEach { print($0) }
                Glibc.exit(0)
            case .continues(let pending):
                onTaskPool { try await request.finish(pending).forEach { print($0) } }
            }
        }
        onTaskPool {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        }
    }

    /// Runs `body` as the process's root task and exits when it ends, as an async `main`
    /// does: every task of the run is its child. Never inlined: the task's metadata,
    /// looked up where it is made, would be looked up on entry to `main`, with the page
    /// faults of its code, by runs that never start the pool.
    @inline(never)
    private static func onTaskPool(_ body: @escaping @Sendable () async throws -> Void) -> Never {
        Task {
            do {
                try await body()
            } catch {
                fail(error)
            }
            Glibc.exit(0)
        }
        // Parked as `dispatchMain()` leaves it, waiting for signals (Dispatch's handler
        // passes them on to its sources' thread), but not by `pthread_exit`: that loads
        // libgcc_s and unwinds this thread's stack through the binary's unwind tables,
        // half a MiB of a small run's memory. Nothing here uses Dispatch's main queue.
        var none = sigset_t()
        sigemptyset(&none)
        while true { sigsuspend(&none) }
    }

    /// Every failure, flag errors included, is one line on stderr and exit status 2.
    private static func fail(_ error: any Error) -> Never {
        if let interrupted = error as? Interrupted {
            Files.writeToStandardError("error: \(interrupted)\n")
            Glibc.exit(128 + interrupted.signal)
        }
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
