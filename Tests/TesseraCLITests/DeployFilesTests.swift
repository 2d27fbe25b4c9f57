import Foundation
import Testing

/// deploy/'s files for other schedulers, checked offline as far as this machine can:
/// the systemd units by `systemd-analyze verify`, the Kubernetes manifests against the
/// API schemas by `kubernetes-validate --strict`. (Neither is run on a real init system
/// or cluster here.) Each check is shown to catch a broken copy too.
@Suite struct DeployFilesTests {
    static let deploy = Harness.packageRoot.appendingPathComponent("deploy")

    /// A program on PATH.
    static func program(_ name: String) -> URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The units, copied with ExecStart pointing at the tessera just built (verify wants
    /// the binary to exist), and an instance of the worker template.
    static func verifyUnits(editing edit: (String) -> String = { $0 }) throws -> Harness.Result {
        let dir = try Harness.temporaryDirectory()
        for name in ["tessera-coordinator.service", "tessera-worker@.service"] {
            let text = try String(contentsOf: deploy.appendingPathComponent("systemd/\(name)"), encoding: .utf8)
            try edit(text.replacingOccurrences(of: "/usr/local/bin/tessera", with: Harness.tessera.path))
                .write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("tessera-worker@0.service").path,
                                                   withDestinationPath: "tessera-worker@.service")
        return try Harness.run(try #require(program("systemd-analyze")), [
            "verify", dir.appendingPathComponent("tessera-coordinator.service").path,
            dir.appendingPathComponent("tessera-worker@0.service").path,
        ])
    }

    @Test(.enabled(if: program("systemd-analyze") != nil, "systemd-analyze is not installed (deploy/install-deps.sh installs it)"))
    func systemdUnitsVerify() throws {
        let verified = try Self.verifyUnits()
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        // Unknown keys only warn: none may appear.
        #expect(!(verified.stdout + verified.stderr).contains("tessera"), "\(verified.stdout)\(verified.stderr)")
        let broken = try Self.verifyUnits { $0.replacingOccurrences(of: "Type=exec", with: "Type=sometimes") }
        #expect(broken.status != 0 || broken.stderr.contains("Failed to parse"), "a bad Type= must not pass")
    }

    @Test(.enabled(if: program("kubernetes-validate") != nil, "kubernetes-validate is not installed (deploy/install-deps.sh installs it)"))
    func kubernetesManifestsValidate() throws {
        let validate = try #require(Self.program("kubernetes-validate"))
        let manifest = Self.deploy.appendingPathComponent("k8s/tessera.yaml")
        let checked = try Harness.run(validate, ["--strict", manifest.path])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        for kind in ["service/tessera", "job/tessera", "networkpolicy/tessera"] {
            #expect(checked.stdout.contains("passed for resource \(kind)") || checked.stderr.contains("passed for resource \(kind)"),
                    "\(checked.stdout)\(checked.stderr)")
        }
        // --strict catches a misspelt field.
        let dir = try Harness.temporaryDirectory()
        let broken = dir.appendingPathComponent("broken.yaml")
        try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "completionMode:", with: "completionMod:")
            .write(to: broken, atomically: true, encoding: .utf8)
        #expect(try Harness.run(validate, ["--strict", broken.path]).status != 0)
    }

    /// The manifest's commands are ones tessera takes: each line's flags, with the
    /// shell's variables filled in, parse (`--help` would not check them).
    @Test func kubernetesCommandsParse() throws {
        let text = try String(contentsOf: Self.deploy.appendingPathComponent("k8s/tessera.yaml"), encoding: .utf8)
        let lines = text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .filter { $0.contains("exec tessera ") }
            .map { $0.replacingOccurrences(of: "\"", with: "").split(separator: " ").map(String.init) }
        #expect(lines.count == 2)
        let dir = try Harness.temporaryDirectory()
        let keys = try SecurityTests.keygen("keys", in: dir)
        for line in lines {
            var arguments = Array(line.drop { $0 != "tessera" }.dropFirst())
            arguments = arguments.map {
                $0.replacingOccurrences(of: "$WORKERS", with: "4").replacingOccurrences(of: "$POD_IP", with: "127.0.0.1")
                    .replacingOccurrences(of: "$JOB_COMPLETION_INDEX", with: "1").replacingOccurrences(of: "/keys", with: keys.path)
                    .replacingOccurrences(of: "tessera-0.tessera", with: "127.0.0.1")
                    .replacingOccurrences(of: "0.0.0.0:7470", with: "127.0.0.1:*").replacingOccurrences(of: ":7480", with: ":*")
            }
            // A coordinator that waits a moment for workers, or a worker with nobody to talk to.
            arguments = arguments.map { $0 == "300" ? "0.2" : $0 == "60" ? "0.2" : $0 }
            let result = try Harness.tessera(arguments)
            #expect(!result.stderr.contains("see 'tessera --help'"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("workers connected in time") || result.stderr.contains("went silent"),
                    "\(arguments): \(result.stderr)")
        }
    }
}
