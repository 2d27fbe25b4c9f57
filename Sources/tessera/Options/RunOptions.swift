import ArgumentParser
import TesseraRun

/// Options every run takes.
struct RunOptions: ParsableArguments {
    // Numbers are read unconditionally here and in the other options: "-5" is the value
    // given, not a flag, and is refused as a count ("Missing value" said otherwise).
    @Option(parsing: .unconditional, help: "Generations to run. Default 100.")
    var generations: UInt64?

    @Option(help: "Write the final board to this .rle, .mc or .cells file, any of them ending .gz for gzip (atomically).")
    var output: String?

    @Flag(help: "Print the per-worker report.")
    var report = false

    @Option(help: "Serve live frames to 'tessera view' viewers on this endpoint, e.g. tcp://127.0.0.1:7471.")
    var viewListen: String?

    @Option(help: "Write a PNG of the whole board every --every generations into this folder.")
    var frames: String?

    @Option(parsing: .unconditional, help: "Generations between exported frames (default 1); with --output and no frames, between output files, each numbered by its generation (out-1000.mc, out-2000.mc, …; by HashLife, or with --workers 0).")
    var every: UInt64?

    @Option(help: "Write the frames as an animated GIF.")
    var gif: String?

    /// These flags in `request`.
    func apply(to request: inout RunRequest) {
        (request.generations, request.output, request.report, request.viewListen) = (generations, output, report, viewListen)
        (request.frames, request.every, request.gif) = (frames, every, gif)
    }
}
