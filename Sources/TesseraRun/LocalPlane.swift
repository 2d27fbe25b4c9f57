import TesseraCore
import TesseraPatterns

/// Golly's unbounded plane stepped in this process as a sparse map of tiles
/// (`SparsePlane`): no window, no atlas, nothing the size of the pattern's extent.
actor LocalPlane {
    private let plane: SparsePlane
    /// Generations stepped between looks at cancellation.
    private static let slice: UInt64 = 256

    init(_ setup: RunSetup) throws {
        plane = try SparsePlane(parts: setup.startingParts, rule: setup.rule, generation: setup.generation)
    }

    var generation: UInt64 { plane.generation }
    var population: Int { plane.population }
    var bounds: CellBounds? { plane.bounds }
    var tileCount: Int { plane.tileCount }

    /// Advances `generations` generations; a cancelled task stops between slices.
    func advance(_ generations: UInt64) throws {
        var left = generations
        while left > 0 {
            try Task.checkCancellation()
            let slice = min(left, Self.slice)
            plane.advance(slice)
            left -= slice
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
