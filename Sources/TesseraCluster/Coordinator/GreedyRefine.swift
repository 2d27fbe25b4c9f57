import TesseraCore

/// Which tiles to move so that no worker carries much more than its share, in the
/// manner of Charm++'s GreedyRefineLB: starting from where the tiles are, move one at a
/// time from the most loaded worker to the least loaded, the tile that best evens the
/// two, while the most loaded carries more than `tolerance` times the average and a move
/// still gains. Moves cost a hand-off each, so few moves, not a fresh deal.
package struct GreedyRefine: Sendable, Equatable {
    /// How far above the average load the busiest worker may stay.
    package var tolerance = 1.10
    /// The least share of the busiest worker's load a move must take off the busiest
    /// load of the pair, so that measurement noise moves nothing.
    package var leastGain = 0.10

    package init(tolerance: Double = 1.10, leastGain: Double = 0.10) {
        (self.tolerance, self.leastGain) = (tolerance, leastGain)
    }

    /// - Parameters:
    ///   - loads: what each tile cost lately (seconds of compute, say).
    ///   - owners: each tile's worker now.
    ///   - workers: the workers that may take tiles (a worker that holds none, one that
    ///     just joined, counts with no load).
    ///   - staying: tiles that may not move (they moved lately).
    ///   - neighbours: a tile's neighbours: between moves that even the load alike, one
    ///     next to the receiver's tiles keeps more halos in memory.
    /// - Returns: the tiles to move and their new workers. Every worker keeps a tile.
    package func moves(loads: [TileID: Double], owners: [TileID: Int], workers: [Int], staying: Set<TileID> = [],
                       neighbours: (TileID) -> [TileID] = { _ in [] }) -> [TileID: Int] {
        let takers = Set(workers)
        let size = (owners.values.max() ?? 0) + 1
        guard takers.count > 1, takers.allSatisfy({ $0 >= 0 && $0 < max(size, takers.max()! + 1) }) else { return [:] }
        var owner = owners
        var load = Array(repeating: 0.0, count: max(size, takers.max()! + 1)), count = load.map { _ in 0 }
        for (tile, w) in owners {
            load[w] += loads[tile] ?? 0
            count[w] += 1
        }
        let average = takers.reduce(0) { $0 + load[$1] } / Double(takers.count)
        guard average > 0 else { return [:] }
        for _ in 0..<owners.count {
            let heavy = takers.max { load[$0] < load[$1] || (load[$0] == load[$1] && $0 > $1) }!
            let light = takers.min { load[$0] < load[$1] || (load[$0] == load[$1] && $0 < $1) }!
            guard load[heavy] > tolerance * average, count[heavy] > 1 else { break }
            // The busier of the pair after the move: the lower, the better.
            func after(_ tile: TileID) -> Double { max(load[heavy] - (loads[tile] ?? 0), load[light] + (loads[tile] ?? 0)) }
            let candidates = owner.keys.filter { owner[$0] == heavy && !staying.contains($0) }.sorted()
            guard let best = candidates.map(after).min(), best < load[heavy] * (1 - leastGain) else { break }
            let near = candidates.filter { after($0) <= best + 0.01 * load[heavy] }
            let tile = near.max { a, b in
                neighbours(a).filter { owner[$0] == light }.count < neighbours(b).filter { owner[$0] == light }.count
            }!
            let cost = loads[tile] ?? 0
            (load[heavy], load[light]) = (load[heavy] - cost, load[light] + cost)
            (count[heavy], count[light]) = (count[heavy] - 1, count[light] + 1)
            owner[tile] = light
        }
        return owner.filter { owners[$0.key] != $0.value }
    }
}
