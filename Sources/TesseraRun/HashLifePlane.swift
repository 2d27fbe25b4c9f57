import TesseraCore
import TesseraHashLife
import TesseraPatterns

/// Golly's unbounded plane stepped by HashLife in this process, as viewers and frame
/// recordings see it (`--algorithm hashlife` with `--view`, `--view-listen`, `--frames`
/// or `--gif`): a frame is drawn from the squares (`HashLife.dots`), and the generations
/// between frames go by HashLife's steps, as Golly's hyperspeed does. The cells cannot
/// be changed: the plane has no board.
actor HashLifePlane: LocalUniverse {
    private var life: HashLife
    private let rule: Rule
    private let settings: HashLifeRun.Settings
    nonisolated let isEditable = false

    init(_ setup: RunSetup, settings: HashLifeRun.Settings) throws {
        (rule, self.settings) = (setup.rule, settings)
        life = try setup.startingTree.map { try HashLife(tree: $0, rule: setup.rule, generation: setup.generation, nodeLimit: settings.nodeLimit) }
            ?? HashLife(parts: setup.startingParts, rule: setup.rule, generation: setup.generation, nodeLimit: settings.nodeLimit)
    }

    var generation: UInt64 { life.generation }
    var tiles: (columns: Int, rows: Int) { (0, 0) }

    /// In steps of the size asked for (`--step`), else in `WholeBoard.hashLifeSteps`: 16
    /// generations doubling up to an eighth of the generations asked, then the count's
    /// digits.
    func advance(_ generations: UInt64) async throws {
        do {
            if settings.stepPower != nil {
                var left = generations
                while left > 0 {
                    let stretch = min(left, settings.stretch)
                    for power in settings.powers(of: stretch) {
                        try Task.checkCancellation()
                        try life.step(power: power)
                    }
                    left -= stretch
                }
            } else {
                _ = try WholeBoard<BitGrid>.hashLifeSteps(generations) { try life.step(power: $0) }
            }
        } catch is HashLife.OutOfNodes {
            throw TesseraError("HashLife needs more than its \(life.nodeLimit * HashLifeRun.bytesPerSquare >> 20) MiB (\(life.nodeLimit) squares) for the next step of this pattern",
                               fix: "give a larger --memory, or leave out --algorithm hashlife")
        }
    }

    func countPopulation() -> Int { Int(clamping: life.population) }
    /// The squares held, and the times they were collected, for the run's summary.
    var squares: (held: Int, collections: Int) { (life.nodeCount, life.collections) }
    func extent() -> (x: Int, y: Int, width: Int, height: Int) { Viewport.board(fitting: life.bounds) }
    func frame(_ viewport: Viewport) -> BitGrid { life.dots(in: viewport) }
    func fill() -> Double { 1 }

    func liveBounds() throws -> TileRect? { throw TesseraError.unboundedIsNotEditable }
    func cells(in rect: TileRect) throws -> BitGrid { throw TesseraError.unboundedIsNotEditable }
    func collect() throws -> BitGrid { throw TesseraError.unboundedIsNotEditable }
    func load(generation: UInt64, cells: @escaping @Sendable (TileRect) -> BitGrid) throws { throw TesseraError.unboundedIsNotEditable }

    /// Writes the cells as a run by HashLife writes them (`HashLifeRun.write`).
    func write(_ output: BoardOutput) throws { try HashLifeRun.write(&life, rule: rule, to: output) }
}
