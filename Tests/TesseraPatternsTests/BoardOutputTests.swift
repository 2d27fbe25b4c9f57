import Foundation
import Testing
import TesseraCore
@testable import TesseraPatterns

@Suite struct BoardOutputTests {
    static let shape = BoardShape(width: 3000, height: 2000, topology: .plane)

    /// The board as `write` leaves it in `format`, given where its live cells lie, and
    /// the cells it asked for.
    func written(_ board: BitGrid, live: TileRect?, format: String) async throws -> (text: String, cellsRead: Int) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-output-\(getpid())-\(UUID()).\(format)").path
        defer { unlink(path) }
        let output = try BoardOutput(path: path, shape: Self.shape, rule: .life, name: "test")
        var read = 0
        try await output.write(generation: 7, live: live) { rect in
            read += rect.width * rect.height
            return board.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        }
        return (try String(contentsOfFile: path, encoding: .utf8), read)
    }

    /// Before: a few live cells on a huge board were written by reading every row of it
    /// (the 5206-generation acorn on a 65536² plane took 164 ms against bgolly's 20, all
    /// but 16 of them in the writer). Given where the live cells lie, the writer reads
    /// only that, and writes the very same file in every format.
    @Test(arguments: ["rle", "cells", "mc"])
    func onlyTheLiveCellsAreReadAndTheFileIsTheSame(format: String) async throws {
        var board = BitGrid(width: Self.shape.width, height: Self.shape.height)
        let spots = [(1234, 567), (1300, 600), (1250, 1400), (2999, 1999)]
        for (x, y) in spots { board[x, y] = true; board[x - 1, y] = true; board[x, y - 1] = true }
        let tight = board.liveBounds!
        let live = TileRect(x: tight.x, y: tight.y, width: tight.width, height: tight.height)
        let whole = try await written(board, live: TileRect(x: 0, y: 0, width: Self.shape.width, height: Self.shape.height), format: format)
        let sparse = try await written(board, live: live, format: format)
        #expect(sparse.text == whole.text)
        #expect(sparse.cellsRead == live.width * live.height)
        // Nothing alive: nothing read, and the file of an empty board.
        let empty = BitGrid(width: Self.shape.width, height: Self.shape.height)
        let none = try await written(empty, live: nil, format: format)
        #expect(none.cellsRead == 0)
        #expect(none.text == (try await written(empty, live: TileRect(x: 0, y: 0, width: Self.shape.width, height: Self.shape.height), format: format)).text)
    }

    /// A pattern written as parts side by side (HashLife's squares of a long glider
    /// stream) is the same file as the pattern written whole: a run of live cells that
    /// crosses from one part into the next is one run ("2o", as bgolly writes it, not "oo").
    @Test func partsSideBySideWriteTheSameRunsAsTheWhole() throws {
        var whole = BitGrid(width: 40, height: 6)
        for (x, y) in [(19, 0), (20, 0), (21, 0), (0, 2), (39, 2), (18, 4), (19, 4), (20, 5), (21, 5), (22, 5)] { whole[x, y] = true }
        let shape = BoardShape(width: 40, height: 6, topology: .infinite, left: -20, top: 3)
        let halves = [PlacedCells(cells: whole.cropped(x: 0, y: 0, width: 20, height: 6), left: -20, top: 3),
                      PlacedCells(cells: whole.cropped(x: 20, y: 0, width: 20, height: 6), left: 0, top: 3)]
        for format in ["rle", "cells"] {
            let one = try text([PlacedCells(cells: whole, left: -20, top: 3)], shape: shape, format: format)
            #expect(try text(halves, shape: shape, format: format) == one)
            if format == "rle" { #expect(one.contains("19b3o2$")) }
        }
    }

    /// Parts apart on the unbounded plane (a soup's gliders flown off, kept in windows of
    /// their own) are one `.cells` file of their box, as the box written whole; a box past
    /// a GiB of text is refused, naming the formats that hold it.
    @Test func partsApartAreOnePlainTextFileOfTheirBox() throws {
        var whole = BitGrid(width: 300, height: 700)
        let glider = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]
        for (x, y) in glider { whole[x, y] = true; whole[297 + x, 697 + y] = true; whole[150 + x, 300 + y] = true }
        let shape = BoardShape(width: 0, height: 0, topology: .infinite)
        let parts = [(0, 0), (297, 697), (150, 300)].map { PlacedCells(cells: whole.cropped(x: $0.0, y: $0.1, width: 3, height: 3), left: $0.0 - 5, top: $0.1 + 8) }
        let apart = try text(parts, shape: shape, format: "cells")
        #expect(apart == (try text([PlacedCells(cells: whole, left: -5, top: 8)], shape: shape, format: "cells")))
        #expect(apart.split(separator: "\n").count == 1 + 700)
        let far = [parts[0], PlacedCells(cells: parts[1].cells, left: 40_000, top: 40_000)]
        #expect(throws: TesseraError.self) { try text(far, shape: shape, format: "cells") }
        #expect(try text(far, shape: shape, format: "rle").contains("x = 40008, y = 39995"))
    }

    /// `parts` written by `BoardOutput` for a board of `shape`, as the file's text.
    func text(_ parts: [PlacedCells], shape: BoardShape, format: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-parts-\(getpid())-\(UUID()).\(format)").path
        defer { unlink(path) }
        try BoardOutput(path: path, shape: shape, rule: .life, name: "test").write(parts: parts, rule: .life, generation: 9)
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
