import Testing
import TesseraCore
@testable import TesseraCluster

/// The balancing policy alone: loads in, moves out.
@Suite struct GreedyRefineTests {
    /// A 4×4 tiling, rows 0–1 on worker 0 and rows 2–3 on worker 1, as dealt.
    static let tiles = (0..<4).flatMap { row in (0..<4).map { TileID(column: $0, row: row) } }
    static let dealt = Dictionary(uniqueKeysWithValues: tiles.map { ($0, $0.row < 2 ? 0 : 1) })

    func loads(_ load: (TileID) -> Double) -> [TileID: Double] {
        Dictionary(uniqueKeysWithValues: Self.tiles.map { ($0, load($0)) })
    }

    func perWorker(_ loads: [TileID: Double], _ owners: [TileID: Int], workers: Int = 2) -> [Double] {
        var total = Array(repeating: 0.0, count: workers)
        for (tile, w) in owners { total[w] += loads[tile] ?? 0 }
        return total
    }

    /// A soup in the top-left quarter: all the work on worker 0. After the moves the
    /// busier worker carries at most the tolerance over the average.
    @Test func aLopsidedLoadIsEvened() {
        let load = loads { $0.column < 2 && $0.row < 2 ? 1.0 : 0.01 }
        let moves = GreedyRefine().moves(loads: load, owners: Self.dealt, workers: [0, 1])
        var owners = Self.dealt
        for (tile, to) in moves { owners[tile] = to }
        let after = perWorker(load, owners), average = after.reduce(0, +) / 2
        #expect(after.max()! <= 1.10 * average)
        #expect(moves.count <= 3, "few moves: \(moves)")
        #expect(moves.values.allSatisfy { $0 == 1 })
    }

    @Test func anEvenLoadMovesNothing() {
        let noisy = loads { Double(($0.row * 4 + $0.column) % 3) * 0.01 + 1 }
        #expect(GreedyRefine().moves(loads: noisy, owners: Self.dealt, workers: [0, 1]).isEmpty)
        #expect(GreedyRefine().moves(loads: loads { _ in 0 }, owners: Self.dealt, workers: [0, 1]).isEmpty)
        #expect(GreedyRefine().moves(loads: loads { _ in 1 }, owners: Self.dealt, workers: [0]).isEmpty)
    }

    /// One tile carrying all the work cannot be split: nothing gains, nothing moves,
    /// and a worker is never left without a tile.
    @Test func anIndivisibleLoadStays() {
        let one = loads { $0 == TileID(column: 0, row: 0) ? 5 : 0 }
        let moves = GreedyRefine().moves(loads: one, owners: Self.dealt, workers: [0, 1])
        #expect(moves.isEmpty, "\(moves)")
        let lonely: [TileID: Int] = [TileID(column: 0, row: 0): 0, TileID(column: 1, row: 0): 1]
        #expect(GreedyRefine().moves(loads: [TileID(column: 0, row: 0): 9, TileID(column: 1, row: 0): 0],
                                     owners: lonely, workers: [0, 1]).isEmpty)
    }

    /// Between tiles that even the load alike, the one next to the receiver's tiles goes.
    @Test func aNeighbourOfTheReceiverGoesFirst() {
        let even = loads { $0.row < 2 ? 1 : 0.2 }
        func neighbours(_ tile: TileID) -> [TileID] {
            [TileID(column: tile.column, row: tile.row + 1), TileID(column: tile.column, row: tile.row - 1)]
        }
        let moves = GreedyRefine().moves(loads: even, owners: Self.dealt, workers: [0, 1], neighbours: neighbours)
        #expect(moves.count == 3)
        var owners = Self.dealt
        for (tile, to) in moves { owners[tile] = to }
        // Each moved tile borders worker 1's other tiles: a column of them, from row 1 up.
        #expect(moves.keys.allSatisfy { tile in neighbours(tile).contains { owners[$0] == 1 } }, "\(moves)")
        #expect(moves.keys.contains { $0.row == 1 })
    }

    /// A worker that just joined holds nothing and takes tiles; one that is leaving (not
    /// among the takers) is given none.
    @Test func aNewcomerTakesTilesAndALeaverNone() {
        let load = loads { _ in 1 }
        let moves = GreedyRefine().moves(loads: load, owners: Self.dealt, workers: [0, 1, 2])
        #expect(moves.values.allSatisfy { $0 == 2 } && moves.count >= 4, "\(moves)")
        let none = GreedyRefine().moves(loads: loads { $0.row < 2 ? 1 : 0 }, owners: Self.dealt, workers: [0])
        #expect(none.isEmpty)
    }

    /// Tiles that moved lately stay: the policy picks others, and never leaves a worker
    /// without a tile by counting on a move it may not make.
    @Test func tilesThatMayNotMoveStay() {
        let load = loads { $0.column < 2 && $0.row < 2 ? 1.0 : 0.01 }
        let staying: Set = [TileID(column: 0, row: 1), TileID(column: 1, row: 1)]
        let moves = GreedyRefine().moves(loads: load, owners: Self.dealt, workers: [0, 1], staying: staying)
        #expect(!moves.isEmpty && moves.keys.allSatisfy { !staying.contains($0) }, "\(moves)")
    }

    @Test func threeWorkersShareOneBusyOnesTiles() {
        let owners = Dictionary(uniqueKeysWithValues: Self.tiles.map { ($0, $0.row < 2 ? 0 : $0.row - 1) })
        let load = loads { $0.row < 2 ? 1 : 0 }
        let moves = GreedyRefine().moves(loads: load, owners: owners, workers: [0, 1, 2])
        var after = owners
        for (tile, to) in moves { after[tile] = to }
        let total = perWorker(load, after, workers: 3)
        #expect(total.sorted() == [2, 3, 3], "eight equal tiles, three workers: \(total)")
    }
}
