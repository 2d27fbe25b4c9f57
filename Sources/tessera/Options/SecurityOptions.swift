import ArgumentParser
import FoundationEssentials
import TesseraCore
import TesseraRun
import TesseraWire

/// Keys for the processes that listen (`run`, `coordinator`, `worker`, `presenter`).
struct SecurityOptions: ParsableArguments {
    @Option(help: "The cluster's key folder ('tessera keygen DIR'): every connection is then authenticated and encrypted (CurveZMQ), and only keys in its allowed file get in.")
    var keys: String?

    @Flag(help: "Listen on a non-loopback address without --keys on purpose: silences the warning.")
    var insecure = false

    func validate() throws {
        try Credentials.checkFlags(keys: keys, insecure: insecure)
    }

    /// These flags in `request`.
    func apply(to request: inout RunRequest) {
        (request.keys, request.insecure) = (keys, insecure)
    }

    /// This process's credentials as a member of the cluster, if it has keys.
    func memberCredentials() throws -> Credentials? {
        try Credentials.member(keys: keys)
    }

    /// Warns on stderr when `endpoints` reach past this machine with no keys
    /// (`Credentials.warnIfOpen`).
    func warnIfOpen(_ endpoints: [String?], role: String, exposes risk: String) {
        Credentials.warnIfOpen(endpoints, keys: keys, insecure: insecure, role: role, exposes: risk)
    }
}
