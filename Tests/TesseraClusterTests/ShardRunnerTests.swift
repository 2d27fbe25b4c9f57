import Testing
import TesseraCluster
import TesseraCore
import TesseraWire

/// Shards of a sparse plane as workers run them: each a `ShardRunner` behind a pump of
/// its own, trading bands over the in-memory network's halo routes.
@Suite struct ShardRunnerTests {
    static let token = HaloToken(high: 7, low: 8)

    /// A worker pump for each of `names`, all bound before `body` runs (a band sent to a
    /// name nobody binds yet would be dropped).
    static func withPumps<T>(_ names: ArraySlice<String>, coordinator: String, _ pumps: [MessagePump] = [],
                             _ body: ([MessagePump]) async throws -> T) async throws -> T {
        guard let name = names.first else { return try await body(pumps) }
        return try await MessagePump.with(.worker(coordinator: coordinator, listen: name, advertise: "")) { pump in
            try await withPumps(names.dropFirst(), coordinator: coordinator, pumps + [pump], body)
        }
    }

    /// A soup, and a sparse field of small patches that settle into still lifes,
    /// blinkers and gliders: most tiles step only some rows, and the shards' ghost
    /// tiles, cropped after every stretch, change under their neighbours' rows.
    @Test(arguments: [(false, 48), (false, 8), (true, 8), (true, 3)])
    func threeShardsTradingBandsOverTheNetworkStepAsOnePlane(sparse: Bool, depth: Int) async throws {
        let parts = sparse
            ? try (0..<400).map { i in
                PlacedCells(cells: try Soup(density: 0.5, seed: UInt64(100 + i)).cells(x: 0, y: 0, width: 6, height: 6),
                            left: -300 + (i % 20) * 30 + i % 7, top: -300 + (i / 20) * 30 + i % 5)
            }
            : [PlacedCells(cells: try Soup(density: 0.4, seed: 21).cells(x: 0, y: 0, width: 320, height: 320), left: -160, top: -100)]
        let reference = try SparsePlane(parts: parts, rule: .life)
        let map = ShardMap.splitting(reference.liveTiles, into: 3, least: 1)
        let names = (0..<3).map { "memory://shard-runner-test-\(sparse)-\(depth)-\($0)" }
        let shards = try await MessagePump.with(.coordinator(listen: "memory://shard-runner-coordinator-\(sparse)-\(depth)-*")) { coordinator in
            try await Self.withPumps(names[...], coordinator: coordinator.boundEndpoint) { pumps in
                try await withThrowingTaskGroup(of: (Int, [PlacedCells], Int).self) { group in
                    for me in 0..<3 {
                        let runner = try ShardRunner(me: me, map: map, rule: .life, board: nil, generation: 0, parts: parts)
                        let pump = pumps[me], identity = Self.token.identity(of: names[me])
                        group.addTask {
                            var services = ServiceGroup()
                            services.add {
                                for await incoming in pump.inbox {
                                    guard let sender = Self.token.endpoint(presenting: incoming.from),
                                          let from = names.firstIndex(of: sender),
                                          case .bands(let bands)? = try? Wire.decode(incoming.bytes, as: HaloMessage.self) else { continue }
                                    try? await runner.receive(bands, from: from)
                                }
                            }
                            return try await services.run {
                                try await runner.run(generations: 250, depth: depth) { other, bands in
                                    pump.send(HaloMessage.bands(bands), to: .peer(endpoint: names[other], presenting: identity))
                                }
                                return (me, await runner.liveTileParts(), await runner.tileCount)
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
        reference.advance(250)
        let joined = try SparsePlane(parts: shards.flatMap(\.1), rule: .life)
        #expect(joined.liveParts() == reference.liveParts())
        #expect(shards.filter { $0.2 > 0 }.count == 3, "every shard holds tiles")
    }

    /// A shard of hundreds of busy tiles shares each generation's among threads (as a
    /// worker started by hand on a machine of several cores does): the same cells as
    /// one plane stepped on one thread.
    @Test func aBusyShardSharedAmongThreadsStepsAsOnOne() async throws {
        let soup = try Soup(density: 0.4, seed: 5).cells(x: 0, y: 0, width: 1280, height: 1280)
        let parts = [PlacedCells(cells: soup, left: -640, top: -600)]
        let reference = try SparsePlane(parts: parts, rule: .life)
        #expect(reference.dueCount >= SparsePlane.sharedFrom)
        let map = ShardMap.splitting(reference.liveTiles, into: 1, least: 1)
        let runner = try ShardRunner(me: 0, map: map, rule: .life, board: nil, generation: 0, parts: parts, threads: 3)
        try await runner.run(generations: 100, depth: 32) { _, _ in }
        reference.advance(100)
        #expect(try SparsePlane(parts: await runner.liveTileParts(), rule: .life).liveParts() == reference.liveParts())
    }

    @Test func bandsFromNoOtherShardTwiceOrFromAfarAreRefused() async throws {
        let map = ShardMap.splitting((0..<8).map { TileKey(x: $0, y: 0) }, into: 2, least: 1)
        let runner = try ShardRunner(me: 0, map: map, rule: .life, board: nil, generation: 100, parts: [])
        let empty = Bands(generation: 100, parts: [])
        await #expect(throws: TesseraError.self) { try await runner.receive(empty, from: 0) }
        await #expect(throws: TesseraError.self) { try await runner.receive(empty, from: 2) }
        try await runner.receive(empty, from: 1)
        await #expect(throws: TesseraError.self) { try await runner.receive(empty, from: 1) }
        await #expect(throws: TesseraError.self) { try await runner.receive(Bands(generation: 99, parts: []), from: 1) }
        await #expect(throws: TesseraError.self) { try await runner.receive(Bands(generation: 200, parts: []), from: 1) }
        await #expect(throws: TesseraError.self) { try await runner.run(generations: 10, depth: 65) { _, _ in } }
    }
}
