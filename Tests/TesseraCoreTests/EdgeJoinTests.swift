import Testing
@testable import TesseraCore

/// The borders Golly's lifealgo.cpp draws in its comments, one per way of joining edges:
/// the grid's cells are A, B, C, … row by row, and each border cell is the lower-case
/// letter of the grid cell it copies.
@Suite struct EdgeJoinTests {
    @Test(arguments: [
        (":C4,3", ["alkjid", "lABCDi", "hEFGHe", "dIJKLa", "idcbal"]),
        (":K4*,3", ["ilkjil", "dABCDa", "hEFGHe", "lIJKLi", "adcbad"]),
        (":K4,3*", ["dijkla", "lABCDi", "hEFGHe", "dIJKLa", "labcdi"]),
        // Golly's drawings of a Klein bottle's shift go one cell the other way from its
        // code, which is what bgolly runs (RuleFileTests checks the boards against it).
        (":K4*+1,3", ["lkjilk", "dABCDa", "hEFGHe", "lIJKLi", "dcbadc"]),
        (":K3,4*+1", ["ljklj", "iABCg", "fDEFd", "cGHIa", "lJKLj", "iabcg"]),
        (":T4+1,3", ["klijkl", "dABCDa", "hEFGHe", "lIJKLi", "abcdab"]),
        (":T4,3+1", ["hijkla", "lABCDe", "dEFGHi", "hIJKLa", "labcde"]),
        (":S3", ["aadgc", "aABCg", "bDEFh", "cGHIi", "gcfii"]),
    ])
    func fillsTheBorderAsGollyDraws(suffix: String, drawing: [String]) throws {
        let (_, shape) = try BoardShape.parseRule("B3/S23" + suffix)
        let board = try #require(shape)
        let edges = try #require(board.edges)
        #expect(board.gollySuffix == suffix)
        let (width, height) = (board.width, board.height)
        #expect(drawing.count == height + 2 && drawing.allSatisfy { $0.count == width + 2 })
        // Cell (x, y) holds its letter's number: A is 1.
        func letter(_ x: Int, _ y: Int) -> Int { y * width + x + 1 }
        var border: [Int: Int] = [:]
        edges.fillBorder(width: width, height: height, state: letter, set: { x, y, state in
            #expect(x == -1 || x == width || y == -1 || y == height, "(\(x), \(y)) is not on the border")
            border[(y + 1) * (width + 2) + x + 1] = state
        })
        for (row, line) in drawing.enumerated() {
            for (column, character) in line.enumerated() where character.isLowercase {
                let expected = Int(character.asciiValue! - Character("a").asciiValue!) + 1
                #expect(border[row * (width + 2) + column] == expected, "\(suffix): border cell at column \(column), row \(row)")
            }
        }
        #expect(border.count == 2 * (width + height) + 4)
    }

    @Test(arguments: [("B3/S23:T10+3,20", ":T10+3,20"), ("B3/S23:t10-13,20", ":T10-3,20"), ("B3/S23:K10,20", ":K10,20*"),
                      ("B3/S23:K9*+1,4", ":K9*,4"), ("B3/S23:k10*-3,4", ":K10*+1,4"), ("B3/S23:S7", ":S7"),
                      ("B3/S23:T10+10,4", ":T10,4"), ("B3/S23:T5", ":T5,5"), ("B3/S23:T5,", ":T5,5"),
                      ("B3/S23:T0,68", ":T0,68"), ("B3/S23:P0,30", ":P0,30"), ("B3/S23:p30,0", ":P30,0")])
    func readsSuffixesAsGolly(text: String, canonical: String) throws {
        let (_, shape) = try BoardShape.parseRule(text)
        #expect(try #require(shape).gollySuffix == canonical)
    }

    @Test(arguments: ["B3/S23:P10+1,4", "B3/S23:S10,10", "B3/S23:C10+1,4", "B3/S23:K10*,4*", "B3/S23:T10+1,4+1",
                      "B3/S23:T10*,4", "B3/S23:K10+1,4*", "B3/S23:Q10,10", "B3/S23:T10,4x", "B3/S23:P0,30+1", "B3/S23:P0,0"])
    func refusesWhatGollyRefuses(text: String) {
        #expect(throws: TesseraError.self) { try BoardShape.parseRule(text) }
    }
}
