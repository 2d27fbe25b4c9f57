import ArgumentParser
import TesseraCore
import TesseraViewer
import TesseraWire

struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Watches and steers a running cluster in the terminal ('?' lists the keys).")

    @Option(help: "The presenter's viewer endpoint (a run's --view-listen).")
    var connect: String = "tcp://127.0.0.1:7471"

    @Option(help: "A key folder: a viewer's ('tessera keygen DIR --viewer-of CLUSTER') or the cluster's own.")
    var keys: String?

    func validate() throws {
        guard connect.hasPrefix("tcp://") || connect.hasPrefix("ipc://") else {
            throw TesseraError("bad endpoint '\(connect)'", fix: "write tcp://HOST:PORT, e.g. tcp://127.0.0.1:7471")
        }
        guard Terminal.isInteractive else {
            throw TesseraError("tessera view needs a terminal", fix: "run it in a terminal (tmux and ssh work)")
        }
    }

    func run() async throws {
        let credentials = try keys.map { try Credentials.load(folder: $0, as: .viewer) }
        try await ViewerApp.run(presenter: connect, credentials: credentials, stopsOnSignals: true)
    }
}
