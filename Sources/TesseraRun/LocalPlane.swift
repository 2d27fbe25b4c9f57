import TesseraCore
import TesseraPatterns

/// Golly's unbounded plane stepped in this process as a sparse map of tiles
/// (`SparsePlane`): no window, no atlas, nothing the size of the pattern's extent.
actor LocalPlane {
    private let plane: SparsePlane
    /// Threads a generation's tiles are shared among, when enough are due.
    private let threads: Int
    /// Due tiles worth sharing among threads: a tile takes about 0.1 µs, a task a few.
    private static let sharedFrom = 256
    /// Generations stepped on one thread between looks at cancellation and at how
    /// many tiles are due.
    private static let slice: UInt64 = 16

    init(_ setup: RunSetup, threads: Int = CPUAffinity.usableCount) throws {
        plane = try SparsePlane(parts: setup.startingParts, rule: setup.rule, generation: setup.generation)
        self.threads = max(1, threads)
    }

    var population: Int { plane.population }

    /// Advances `generations` generations; a cancelled task stops between slices.
    /// Nothing else reads the plane while a generation's tiles are stepped on other
    /// threads: the run that owns it awaits this.
    func advance(_ generations: UInt64) async throws {
        var left = generations
        while left > 0 {
            try Task.checkCancellation()
            if plane.dueCount == 0 {
                // Nothing alive, or still lifes and blinkers only: the rest costs nothing.
                plane.advance(left)
                return
            }
            if threads > 1, plane.dueCount >= Self.sharedFrom, let work = plane.work() {
                await Self.share(work, among: threads)
                plane.finish()
                left -= 1
            } else {
                let slice = min(left, Self.slice)
                plane.advance(slice)
                left -= slice
            }
        }
    }

    /// Runs `work` in `threads` ranges at once, as child tasks.
    private static func share(_ work: SparsePlane.Work, among threads: Int) async {
        let size = (work.count + threads - 1) / threads
        await withTaskGroup(of: Void.self) { group in
            for start in stride(from: 0, to: work.count, by: size) {
                group.addTask { work.run(start..<min(start + size, work.count)) }
            }
        }
    }

    /// The live cells, in parts (Golly's coordinates): one grid where their bounding box
    /// is small, else runs of tiles.
    func liveParts() -> [PlacedCells] {
        guard let box = plane.bounds else { return [] }
        let (area, overflow) = box.width.multipliedReportingOverflow(by: box.height)
        if !overflow, area <= Self.largestWholePart {
            return [PlacedCells(cells: plane.cells(in: box), left: box.left, top: box.top)]
        }
        return plane.liveParts()
    }

    /// Bounding boxes up to this many cells (2 MiB) are read as one grid.
    private static let largestWholePart = 1 << 24

    /// Writes the live cells placed where they are (`#CXRLE Pos=x,y`), so Golly reopens
    /// them as the same pattern on its unbounded plane.
    func write(_ output: BoardOutput) throws {
        try output.write(parts: liveParts(), rule: plane.rule, generation: plane.generation)
    }
}
