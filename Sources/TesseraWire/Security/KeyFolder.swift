import FoundationEssentials
import Glibc
import TesseraCore

/// What a key admits: a member joins the cluster (coordinator, worker, presenter); a
/// viewer only watches and steers through a presenter's viewer port.
package enum Standing: String, Sendable {
    case member, viewer
}

/// A cluster's key folder, as `tessera keygen DIR` writes it, every file mode 0600:
///
/// | file | holds | who needs it |
/// |---|---|---|
/// | `member.key` | the members' key pair | coordinator, workers, presenter |
/// | `viewer.key` | a viewers' key pair | viewers |
/// | `cluster.pub` | the members' public key: every listening socket's identity | viewers |
/// | `allowed` | the public keys let in, each marked `member` or `viewer` | coordinator, workers, presenter |
///
/// Watching needs no membership: a viewer's folder holds `viewer.key` and `cluster.pub`
/// only (`tessera keygen DIR --viewer-of CLUSTER`).
package enum KeyFolder {
    package static let memberKey = "member.key"
    package static let viewerKey = "viewer.key"
    package static let clusterKey = "cluster.pub"
    package static let allowed = "allowed"

    /// Writes a new cluster's keys into `folder`, which must not exist yet or be empty.
    package static func create(_ folder: String) throws {
        let (member, viewer) = (try CurveKeyPair.generate(), try CurveKeyPair.generate())
        try writeFolder(folder, files: [
            (memberKey, keyFile(member, says: "the cluster's members (coordinator, workers, presenter) prove themselves with it")),
            (viewerKey, keyFile(viewer, says: "viewers ('tessera view --keys') prove themselves with it")),
            (clusterKey, publicFile(member)),
            (allowed, Allowlist.header + "member \(member.publicKey)\nviewer \(viewer.publicKey)\n"),
        ])
    }

    /// Writes a viewer's own folder (`viewer.key`, `cluster.pub`) and lists its key in the
    /// cluster's `allowed` file, so one viewer can later be struck off alone.
    package static func createViewer(_ folder: String, of cluster: String) throws {
        let members = try Credentials.load(folder: cluster, as: .member)
        let list = path(cluster, allowed)
        let text = try read(list)
        _ = try Allowlist.parse(text, path: list)
        let viewer = try CurveKeyPair.generate()
        try writeFolder(folder, files: [
            (viewerKey, keyFile(viewer, says: "a viewer ('tessera view --keys') proves itself with it")),
            (clusterKey, publicFile(members.keys)),
        ])
        let line = "viewer \(viewer.publicKey)  # \(URL(fileURLWithPath: folder).lastPathComponent)\n"
        do {
            try writeSecret(list + ".tmp-\(getpid())", (text.hasSuffix("\n") || text.isEmpty ? text : text + "\n") + line)
            guard rename(list + ".tmp-\(getpid())", list) == 0 else { throw TesseraError("cannot replace \(list)") }
        } catch {
            unlink(list + ".tmp-\(getpid())")
            try? FileManager.default.removeItem(atPath: folder)
            throw TesseraError("cannot add the viewer's key to \(list): \(error)", fix: "check that folder's permissions")
        }
    }

    static func path(_ folder: String, _ file: String) -> String {
        URL(fileURLWithPath: folder).appendingPathComponent(file).path
    }

    /// What a key folder must keep from other users, as `exposure` checks it.
    package enum Guarded: Sendable {
        /// A key pair file: others may neither read nor write it.
        case secretKey
        /// `allowed` or `cluster.pub`: public, but whoever may write it chooses which
        /// keys are trusted.
        case trustFile
        /// The folder: whoever may write it can swap any file in it, whatever the file's mode.
        case folder
    }

    /// Why `path`, with permission bits `mode`, cannot be trusted as `what`, or nil.
    package static func exposure(of path: String, mode: mode_t, as what: Guarded) -> TesseraError? {
        let octal = String(mode & 0o777, radix: 8)
        switch what {
        case .secretKey:
            guard mode & 0o077 != 0 else { return nil }
            return TesseraError("\(path) holds a secret key but others may read it (mode \(octal))", fix: "run chmod 600 \(path)")
        case .trustFile:
            guard mode & 0o022 != 0 else { return nil }
            return TesseraError("\(path) may be changed by others (mode \(octal)), who could then choose which keys are trusted",
                                fix: "run chmod go-w \(path)")
        case .folder:
            guard mode & 0o022 != 0 else { return nil }
            return TesseraError("key folder \(path) may be changed by others (mode \(octal)), who could then replace the keys in it",
                                fix: "run chmod go-w \(path)")
        }
    }

    /// A file's text, refusing files others may read when `secret`, and files others may
    /// write in any case.
    static func read(_ path: String, secret: Bool = false) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = Files.systemReason()
            throw TesseraError("cannot read \(path): \(reason)", fix: "give --keys the folder 'tessera keygen DIR' wrote")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw TesseraError("cannot read \(path): it is not a file", fix: "give --keys the folder 'tessera keygen DIR' wrote")
        }
        if let exposure = exposure(of: path, mode: info.st_mode, as: secret ? .secretKey : .trustFile) { throw exposure }
        let data = try InputFile(path, fix: "check its permissions, or make new keys with 'tessera keygen DIR'").readToEnd()
        guard let text = String(data: data, encoding: .utf8) else {
            throw TesseraError("\(path) is not a file 'tessera keygen' wrote: it is not UTF-8 text",
                               fix: "make new keys with 'tessera keygen DIR'")
        }
        return text
    }

    private static func keyFile(_ pair: CurveKeyPair, says who: String) -> String {
        """
        # Tessera CurveZMQ key pair: \(who).
        # Secret: keep this file mode 0600, on the hosts that need it only.
        public-key = "\(pair.publicKey)"
        secret-key = "\(pair.secretKey)"

        """
    }

    private static func publicFile(_ pair: CurveKeyPair) -> String {
        """
        # The public key of this cluster's members: whoever connects checks it against them.
        public-key = "\(pair.publicKey)"

        """
    }

    /// Writes `files` into a new folder: into a hidden one beside it first, renamed into
    /// place whole, so a failure leaves no folder with half its keys.
    private static func writeFolder(_ folder: String, files: [(String, String)]) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: folder) {
            guard Files.isFolder(folder), (try? manager.contentsOfDirectory(atPath: folder))?.isEmpty == true else {
                throw TesseraError("\(folder) already exists and is not an empty folder",
                                   fix: "keygen never overwrites keys: give a new folder")
            }
            rmdir(folder)
        }
        let parent = URL(fileURLWithPath: folder).deletingLastPathComponent().path
        let staging = path(parent, ".\(URL(fileURLWithPath: folder).lastPathComponent).tmp-\(getpid())")
        guard mkdir(staging, 0o700) == 0 else {
            throw TesseraError("cannot create a folder in \(parent): \(Files.systemReason())",
                               fix: "give a folder in a place you may write")
        }
        do {
            for (name, text) in files { try writeSecret(path(staging, name), text) }
            guard rename(staging, folder) == 0 else {
                throw TesseraError("cannot create \(folder): \(Files.systemReason())", fix: "give a new folder")
            }
        } catch {
            try? manager.removeItem(atPath: staging)
            throw error
        }
    }

    /// Creates `path` mode 0600 from the start: no moment where others could read it.
    private static func writeSecret(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TesseraError("cannot create \(path): \(Files.systemReason())", fix: "check the folder's permissions")
        }
        defer { close(fd) }
        guard Files.write(text, to: fd), fsync(fd) == 0 else {
            throw TesseraError("cannot write \(path): \(Files.systemReason())", fix: "check the free disk space")
        }
    }
}

/// The public keys a cluster lets in: one per line, `member KEY` or `viewer KEY`; a
/// comment starts with `#` at the start of a line or after the key. Read again at every handshake, so striking a line off shuts that
/// key out of new connections without a restart.
package struct Allowlist: Sendable, Equatable {
    package var members: Set<String> = []
    package var viewers: Set<String> = []

    static let header = """
        # Public keys this cluster lets in, one per line: 'member KEY' may join as a coordinator,
        # worker or presenter (and watch); 'viewer KEY' may watch and steer with 'tessera view'.
        # Read at every handshake: delete a line to shut that key out of new connections.

        """

    /// Members get in everywhere; viewers only through a viewer port.
    package func admits(_ key: String, as standing: Standing) -> Bool {
        members.contains(key) || (standing == .viewer && viewers.contains(key))
    }

    package static func read(_ path: String) throws -> Allowlist {
        try parse(KeyFolder.read(path), path: path)
    }

    package static func parse(_ text: String, path: String) throws -> Allowlist {
        var list = Allowlist()
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // `#` is a Z85 character too: a comment starts a line, or a word after the key.
            let words = line.split(whereSeparator: \.isWhitespace)
            guard let first = words.first, !first.hasPrefix("#") else { continue }
            guard words.count == 2 || (words.count > 2 && words[2].hasPrefix("#")), let standing = Standing(rawValue: String(words[0])), CurveKey.isWellFormed(String(words[1])) else {
                throw TesseraError("line \(number + 1) of \(path) is not 'member KEY' or 'viewer KEY' (a key is 40 Z85 characters)",
                                   fix: "fix that line, or make new keys with 'tessera keygen DIR'")
            }
            switch standing {
            case .member: list.members.insert(String(words[1]))
            case .viewer: list.viewers.insert(String(words[1]))
            }
        }
        return list
    }
}

/// What one process proves itself with and whom it lets in: its key pair, the key every
/// listening socket of the cluster holds (the members' public key), and, for members,
/// the `allowed` file its listening sockets check peers against.
package struct Credentials: Sendable {
    package let folder: String
    package let standing: Standing
    package let keys: CurveKeyPair
    /// The public key of every socket that listens: the members'.
    package let clusterKey: String
    /// The allowlist a member's listening sockets check; nil for a viewer, which listens nowhere.
    package let allowlist: String?

    /// Refuses a key folder given with `--insecure`, which says to run open on purpose.
    package static func checkFlags(keys: String?, insecure: Bool) throws {
        if keys != nil && insecure {
            throw TesseraError("--keys and --insecure contradict each other", fix: "give one of them")
        }
    }

    /// This process's credentials as a member of the cluster, where it has a key folder.
    package static func member(keys folder: String?) throws -> Credentials? {
        try folder.map { try load(folder: $0, as: .member) }
    }

    /// Warns on stderr, once per endpoint, when `endpoints` reach past this machine with
    /// no `keys` and not `insecure` on purpose: anyone on that network could then join
    /// the run or steer it (`risk`).
    package static func warnIfOpen(_ endpoints: [String?], keys: String?, insecure: Bool, role: String, exposes risk: String) {
        guard keys == nil, !insecure else { return }
        for endpoint in endpoints.compactMap({ $0 }) where !Endpoint.isLoopback(endpoint) {
            Files.writeToStandardError("""
                warning: tessera \(role) listens on \(endpoint) without keys: anyone who can reach it \(risk); \
                give --keys DIR ('tessera keygen DIR' makes one), or --insecure to run open on purpose

                """)
        }
    }

    /// A member needs `member.key` and `allowed`; a viewer `viewer.key` (or `member.key`)
    /// and `cluster.pub` (or `member.key`).
    package static func load(folder: String, as standing: Standing) throws -> Credentials {
        try CurveSupport.check()
        // Absolute, because local workers get the same folder and may start elsewhere.
        let folder = URL(fileURLWithPath: folder).standardizedFileURL.path
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw TesseraError("key folder \(folder) does not exist", fix: "make one with 'tessera keygen \(folder)'")
        }
        if let exposure = KeyFolder.exposure(of: folder, mode: info.st_mode, as: .folder) { throw exposure }
        let has = { (file: String) in FileManager.default.fileExists(atPath: KeyFolder.path(folder, file)) }
        switch standing {
        case .member:
            guard has(KeyFolder.memberKey) else {
                throw TesseraError("\(folder) has no \(KeyFolder.memberKey), which members of a cluster need",
                                   fix: "give the folder 'tessera keygen' wrote (a viewer's folder cannot join a cluster)")
            }
            let keys = try keyPair(folder, KeyFolder.memberKey)
            let list = KeyFolder.path(folder, KeyFolder.allowed)
            _ = try Allowlist.read(list)
            return Credentials(folder: folder, standing: .member, keys: keys, clusterKey: keys.publicKey, allowlist: list)
        case .viewer:
            let own = has(KeyFolder.viewerKey) ? KeyFolder.viewerKey : KeyFolder.memberKey
            guard has(own) else {
                throw TesseraError("\(folder) has neither \(KeyFolder.viewerKey) nor \(KeyFolder.memberKey)",
                                   fix: "give the folder 'tessera keygen' wrote")
            }
            let keys = try keyPair(folder, own)
            let clusterKey = has(KeyFolder.clusterKey) ? try publicKey(folder, KeyFolder.clusterKey) : keys.publicKey
            return Credentials(folder: folder, standing: .viewer, keys: keys, clusterKey: clusterKey, allowlist: nil)
        }
    }

    /// The file this process's own key pair came from, for messages.
    package var keyFile: String { KeyFolder.path(folder, standing == .member ? KeyFolder.memberKey : KeyFolder.viewerKey) }

    private static func keyPair(_ folder: String, _ file: String) throws -> CurveKeyPair {
        let path = KeyFolder.path(folder, file)
        let fields = try fields(path, secret: true)
        guard let publicKey = fields["public-key"], let secretKey = fields["secret-key"] else {
            throw malformed(path, "it needs a public-key and a secret-key line")
        }
        do {
            return try CurveKeyPair.checked(publicKey: publicKey, secretKey: secretKey)
        } catch let error as TesseraError {
            throw malformed(path, error.description)
        }
    }

    private static func publicKey(_ folder: String, _ file: String) throws -> String {
        let path = KeyFolder.path(folder, file)
        guard let key = try fields(path, secret: false)["public-key"], CurveKey.isWellFormed(key) else {
            throw malformed(path, "it needs a public-key line with 40 Z85 characters")
        }
        return key
    }

    /// `name = "value"` lines; `#` starts a comment.
    private static func fields(_ path: String, secret: Bool) throws -> [String: String] {
        var fields: [String: String] = [:]
        for (number, line) in try KeyFolder.read(path, secret: secret).split(separator: "\n").enumerated() {
            let text = line.trimmingWhitespace
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace }
            guard parts.count == 2, parts[1].count >= 2, parts[1].first == "\"", parts[1].last == "\"" else {
                throw malformed(path, "line \(number + 1) is not name = \"value\"")
            }
            fields[String(parts[0])] = String(parts[1].dropFirst().dropLast())
        }
        return fields
    }

    private static func malformed(_ path: String, _ problem: String) -> TesseraError {
        TesseraError("\(path) is not a Tessera key file: \(problem)", fix: "make new keys with 'tessera keygen DIR'")
    }
}
