import Foundation
import Testing

/// A soup's tiles are made on the workers: the summary's population is theirs, even
/// when no generation was run.
@Suite struct SoupPopulationTests {
    /// Before: `--generations 0 --workers 2` on a soup printed population 0.
    @Test(arguments: ["1", "2"])
    func generationZeroOnWorkersCountsTheSoup(workers: String) throws {
        let soup = ["run", "--soup", "0.35", "--seed", "11", "--size", "256x256", "--generations", "0"]
        let inProcess = try Harness.tessera(soup + ["--workers", "0"])
        let onWorkers = try Harness.tessera(soup + ["--workers", workers, "--tiles", "2x2"])
        #expect(inProcess.status == 0 && onWorkers.status == 0, "\(inProcess.stderr) \(onWorkers.stderr)")
        let population = { (text: String) in text.firstMatch(of: /population (\d+),/).map { Int($0.1)! } }
        let expected = try #require(population(inProcess.stdout), "\(inProcess.stdout)")
        #expect(expected > 20_000)
        #expect(population(onWorkers.stdout) == expected, "\(onWorkers.stdout)")
    }
}
