import TesseraCore

/// What tiles would spend a generation on a pattern, measured on this machine: the
/// pattern stepped for a few dozen generations in a sparse map on the calling thread.
/// A fixed cost per occupied square was wrong by a factor of two to seven between
/// patterns and machines: activity skipping leaves a circuit's still wires unstepped
/// (constructor-memory-tape: 7 ns an occupied square, a wick extruder's 29 on an AMD
/// EPYC, 50 on the Intel Xeon the constant came from).
enum TilesProbe {
    /// Generations stepped before the clock starts: a tile's first step counts as a
    /// change everywhere, and its neighbours wake with it.
    static let warmUp: UInt64 = 8
    /// Generations timed, at most.
    static let timed: UInt64 = 64
    /// CPU seconds the timed generations may take before the probe ends early (a huge
    /// pattern's generation may take milliseconds); at least one slice is timed.
    static let cap = 0.05
    static let slice: UInt64 = 8

    /// CPU seconds a generation of `parts` under `rule` costs tiles on one thread.
    static func secondsPerGeneration(of parts: [PlacedCells], rule: Rule, generation: UInt64) throws -> Double {
        let plane = try SparsePlane(parts: parts, rule: rule, generation: generation)
        plane.advance(warmUp)
        let start = CPUClock.thread
        var stepped: UInt64 = 0, seconds = 0.0
        repeat {
            plane.advance(slice)
            stepped += slice
            seconds = (CPUClock.thread - start).seconds
        } while stepped < timed && seconds < cap
        return seconds / Double(stepped)
    }
}
