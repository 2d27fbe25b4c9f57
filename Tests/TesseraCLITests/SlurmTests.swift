import Foundation
import Testing

/// `deploy/slurm/tessera.sbatch` on a throwaway Slurm cluster (slurmctld and three
/// slurmd, in network namespaces where they can be made): a run checked against bgolly,
/// and a scaling sweep. The script does the checking; see deploy/slurm/test-cluster.sh.
@Suite struct SlurmTests {
    static var slurmAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/slurmctld")
    }

    @Test(.enabled(if: slurmAvailable, "needs root and Slurm (deploy/install-deps.sh installs slurmctld, slurmd, munge)"))
    func jobsOnAThrowawayClusterMatchGolly() throws {
        let script = Harness.packageRoot.appendingPathComponent("deploy/slurm/test-cluster.sh")
        let result = try Harness.spawn("/usr/bin/env", ["TESSERA=\(Harness.tessera.path)", script.path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("matches bgolly") && result.stdout.contains("slurm test passed"), "\(result.stdout)")
    }
}
