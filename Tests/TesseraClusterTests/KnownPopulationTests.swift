import Testing
import TesseraCore
@testable import TesseraCluster
@testable import TesseraWire

extension CoordinatorStateTests {
    /// A soup's tiles are made on the workers: their population is known only from the
    /// workers' reports, and a run of no generations must ask for them (`countPopulation`).
    @Test func aSoupsPopulationIsKnownOnlyOnceEveryTileIsReported() throws {
        var state = ready()
        #expect(!state.knowsPopulation)
        _ = try state.begin(.advance(generations: 0))
        let tiles = Self.tiling.tiles
        _ = state.receive(.done(op: 1, WorkerReport(populations: [tiles[0]: 3, tiles[1]: 4])), from: a, now: at(1))
        #expect(!state.knowsPopulation, "worker b has not reported yet")
        #expect(state.receive(.done(op: 1, WorkerReport(populations: [tiles[2]: 5, tiles[3]: 6])), from: b, now: at(1))
                    == [.completed(.advanced)])
        #expect(state.knowsPopulation && state.population == 18 && state.generation == 10)
    }
}
