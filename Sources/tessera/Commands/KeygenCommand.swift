import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraWire

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Writes a cluster's CurveZMQ keys into a new folder, for --keys.",
        discussion: """
            DIR gets member.key (the coordinator's, workers' and presenter's key pair), viewer.key \
            (viewers'), cluster.pub (the members' public key) and allowed (the keys let in), all \
            mode 0600. Copy the folder to every host of the cluster. With --viewer-of CLUSTER, DIR \
            gets a viewer's own key pair and cluster.pub only, and the key is added to CLUSTER's \
            allowed file: watching then needs no member key, and deleting that line shuts the \
            viewer out.
            """)

    @Argument(help: "The folder to create (or an empty one).")
    var folder: String

    @Option(help: "Make a viewer's folder for the cluster whose key folder this is, and list the viewer there.")
    var viewerOf: String?

    func run() throws {
        if let cluster = viewerOf {
            try KeyFolder.createViewer(folder, of: cluster)
            print("tessera keygen: wrote a viewer's keys to \(folder) and listed them in \(cluster)/\(KeyFolder.allowed)")
        } else {
            try KeyFolder.create(folder)
            print("tessera keygen: wrote the cluster's keys to \(folder); give every process --keys \(folder)")
        }
    }
}
