import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraWire

/// Keys for the processes that listen (`run`, `coordinator`, `worker`, `presenter`).
struct SecurityOptions: ParsableArguments {
    @Option(help: "The cluster's key folder ('tessera keygen DIR'): every connection is then authenticated and encrypted (CurveZMQ), and only keys in its allowed file get in.")
    var keys: String?

    @Flag(help: "Listen on a non-loopback address without --keys on purpose: silences the warning.")
    var insecure = false

    static let configKeys = ["keys", "insecure"]

    func validate() throws {
        if keys != nil && insecure {
            throw TesseraError("--keys and --insecure contradict each other", fix: "give one of them")
        }
    }

    mutating func apply(_ config: ConfigFile) throws {
        keys = keys ?? config["keys"]
        insecure = insecure || config["insecure"] == "true"
        try validate()
    }

    /// This process's credentials as a member of the cluster, if it has keys.
    func memberCredentials() throws -> Credentials? {
        try keys.map { try Credentials.load(folder: $0, as: .member) }
    }

    /// Warns on stderr, once per endpoint, when `endpoints` reach past this machine with
    /// no keys: anyone on that network could then join the run or steer it.
    func warnIfOpen(_ endpoints: [String?], role: String, exposes risk: String) {
        guard keys == nil, !insecure else { return }
        for endpoint in endpoints.compactMap({ $0 }) where !Endpoint.isLoopback(endpoint) {
            Files.writeToStandardError("""
                warning: tessera \(role) listens on \(endpoint) without keys: anyone who can reach it \(risk); \
                give --keys DIR ('tessera keygen DIR' makes one), or --insecure to run open on purpose

                """)
        }
    }
}
