import Testing
import TesseraCore
@testable import TesseraCluster
import TesseraWire

/// What cannot work is refused before anything starts: more tiles than a board is cut
/// into, more workers than a run has or than this machine runs. No process, no socket.
@Suite struct RunBoundsTests {
    static let board = BoardShape(width: 1024, height: 1024, topology: .torus)

    func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    /// Before: 1000x1000 tiles on a 1024² board were accepted (the limit was 2^20), and
    /// grew each worker to gigabytes without finishing a round.
    @Test func aBoardIsCutIntoAtMost4096Tiles() throws {
        #expect(try Tiling(shape: Self.board, columns: 64, rows: 64).tiles.count == Tiling.maxTiles)
        #expect(try Tiling(shape: Self.board, columns: 1024, rows: 4).tiles.count == 4096)
        let problem = refusal { _ = try Tiling(shape: Self.board, columns: 1000, rows: 1000) }
        #expect(problem == "1000x1000 tiles are 1000000, more than the 4096 a board is cut into (each tile costs memory and time every round beside its cells): give fewer --tiles, e.g. 64x64, or leave them out: one tile per worker")
        #expect(refusal { _ = try Tiling(shape: Self.board, columns: 65, rows: 64) }?.contains("4160, more than the 4096") == true)
    }

    /// A machine starts 16 local workers a CPU at most, within its process limit (each
    /// worker's threads count against it) and never more than a run has.
    @Test func localWorkersAreBoundedByTheCPUsAndTheProcessLimit() {
        #expect(WorkerCount.localLimit(cpus: 2, processLimit: nil) == 32)
        #expect(WorkerCount.localLimit(cpus: 0, processLimit: nil) == 16, "at least one CPU")
        #expect(WorkerCount.localLimit(cpus: 1024, processLimit: nil) == maxWorkers)
        #expect(WorkerCount.localLimit(cpus: 2, processLimit: 96365) == 32)
        #expect(WorkerCount.localLimit(cpus: 2, processLimit: 100) == 10, "ten threads a worker on two CPUs")
        #expect(WorkerCount.localLimit(cpus: 2, processLimit: 3) == 1)
    }

    /// Before: --workers 100000 started processes by the hundred and went on.
    @Test func aWorkerCountPastTheLimitIsRefusedNamingTheLimit() {
        #expect(refusal { try WorkerCount.checkLocal(32, cpus: 2, processLimit: nil) } == nil)
        #expect(refusal { try WorkerCount.checkLocal(100000, cpus: 2, processLimit: nil) }
            == "--workers 100000 is more than this machine runs: at most 32 local workers (16 for each of its 2 CPUs): give --workers 32 or fewer, or start more on other machines with 'tessera coordinator' here and 'tessera worker --coordinator ENDPOINT' there")
        #expect(refusal { try WorkerCount.checkLocal(11, cpus: 2, processLimit: 100) }?
            .contains("at most 10 local workers (its process limit (ulimit -u) of 100 threads, about 10 for each worker)") == true)
        #expect(refusal { try WorkerCount.checkLocal(5000, cpus: 1024, processLimit: nil) }?
            .contains("at most 4096 local workers (the most a run can have)") == true)
        // Workers started elsewhere: only what a run carries bounds them.
        #expect(refusal { try WorkerCount.check(4096) } == nil)
        #expect(refusal { try WorkerCount.check(4097) } == "--workers 4097 is more than the 4096 workers a run can have: give --workers 4096 or fewer")
    }
}
