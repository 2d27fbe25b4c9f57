import Testing
import TesseraCore

/// The unbounded plane's window: room for the live cells to grow, and a move before
/// they could reach an edge.
@Suite struct PlaneWindowTests {
    @Test func aWindowLeavesAMarginAsWideAsThePatternOnEverySide() throws {
        let live = CellBounds(left: 1_000_000_000, top: -1_000_000_000, width: 1000, height: 10)
        let window = try PlaneWindow.around(live)
        #expect(window.topology == .infinite)
        #expect(window.width % 256 == 0 && window.height % 256 == 0)
        #expect(PlaneWindow.margin(of: live, in: window) >= 1000)
        #expect(!PlaneWindow.shouldMove(live, from: window), "a fresh window needs no move")
        // A tiny pattern still gets the least margin.
        let dot = CellBounds(left: -5, top: 3, width: 1, height: 1)
        #expect(PlaneWindow.margin(of: dot, in: try PlaneWindow.around(dot)) >= PlaneWindow.minMargin)
        #expect(try PlaneWindow.around(dot, minSide: 5000).width >= 5000)
    }

    @Test func theMarginCountsDeadRowsToTheNearestEdge() {
        let window = BoardShape(width: 100, height: 50, topology: .infinite, left: -10, top: 20)
        #expect(PlaneWindow.margin(of: CellBounds(left: -10, top: 30, width: 5, height: 5), in: window) == 0)
        #expect(PlaneWindow.margin(of: CellBounds(left: 0, top: 30, width: 5, height: 5), in: window) == 10)
        #expect(PlaneWindow.margin(of: CellBounds(left: 0, top: 60, width: 5, height: 7), in: window) == 3)
        #expect(PlaneWindow.margin(of: CellBounds(left: 80, top: 30, width: 5, height: 5), in: window) == 5)
    }

    @Test func aWindowMovesWhenTheMarginRunsLowOrThePatternShrinks() throws {
        let live = CellBounds(left: 0, top: 0, width: 300, height: 300)
        let window = try PlaneWindow.around(live)
        let margin = PlaneWindow.margin(of: live, in: window)
        let grown = CellBounds(left: live.left - margin + 10, top: 0, width: 300 + margin - 10, height: 300)
        #expect(PlaneWindow.shouldMove(grown, from: window))
        let shrunk = CellBounds(left: 100, top: 100, width: 2, height: 2)
        let big = try PlaneWindow.around(CellBounds(left: 0, top: 0, width: 20000, height: 20000))
        #expect(PlaneWindow.shouldMove(shrunk, from: big))
    }

    @Test func patternsPastTheLimitsAreRefusedWithAFix() {
        #expect(throws: TesseraError.self) { try PlaneWindow.around(CellBounds(left: 0, top: 0, width: 1 << 31, height: 1)) }
        #expect(throws: TesseraError.self) {
            try PlaneWindow.around(CellBounds(left: BoardShape.maxCoordinate, top: 0, width: 1, height: 1))
        }
    }
}
