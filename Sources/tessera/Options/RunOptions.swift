import ArgumentParser
import TesseraCore

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

    static let configKeys = ["generations", "output", "report", "view-listen", "frames", "every", "gif"]

    func validate() throws {
        if let viewListen { _ = try Endpoint.split(viewListen) }
    }

    mutating func apply(_ config: ConfigFile) throws {
        generations = try generations ?? config.number("generations", as: UInt64.self)
        output = output ?? config["output"]
        report = report || config["report"] == "true"
        viewListen = viewListen ?? config["view-listen"]
        frames = frames ?? config["frames"]
        every = try every ?? config.number("every", as: UInt64.self)
        gif = gif ?? config["gif"]
        try validate()
    }

    /// Generations a run goes when none are given.
    static let defaultGenerations: UInt64 = 100

    var generationCount: UInt64 { generations ?? Self.defaultGenerations }

    var recordsFrames: Bool { frames != nil || gif != nil }
}
