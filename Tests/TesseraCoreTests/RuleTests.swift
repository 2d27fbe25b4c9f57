import Testing
@testable import TesseraCore

@Suite struct RuleTests {
    @Test(arguments: [
        ("B3/S23", "B3/S23"), ("b3/s23", "B3/S23"), ("S23/B3", "B3/S23"), ("23/3", "B3/S23"),
        ("B36/S23", "B36/S23"), ("B3678/S34678", "B3678/S34678"), ("B2/S", "B2/S"),
        ("B1357/S1357", "B1357/S1357"), ("life", "B3/S23"), ("B3S23", "B3/S23"),
    ])
    func parsesGollyNotations(text: String, canonical: String) throws {
        #expect(try Rule(parsing: text).description == canonical)
    }

    @Test func lifeMasks() throws {
        let rule = try Rule(parsing: "B3/S23")
        #expect(rule == .life)
        #expect(rule.birth == 0b1000 && rule.survive == 0b1100)
    }

    @Test(arguments: ["B9/S23", "B3/S2x", "", "B3/S23/X", "hello", "3/23/4", "BB3/S23"])
    func rejectsMalformed(text: String) {
        #expect(throws: TesseraError.self) { try Rule(parsing: text) }
    }

    @Test func rejectsB0WithAReason() {
        #expect { try Rule(parsing: "B03/S23") } throws: { error in
            "\(error)".contains("B0")
        }
    }

    @Test func boundedGridSuffix() throws {
        let (rule, torus) = try BoardShape.parseRule("B36/S23:T640,480")
        #expect(rule.description == "B36/S23")
        #expect(torus == BoardShape(width: 640, height: 480, topology: .torus))
        let (_, plane) = try BoardShape.parseRule("B3/S23:P7,5")
        #expect(plane == BoardShape(width: 7, height: 5, topology: .plane))
        #expect(plane?.gollySuffix == ":P7,5")
        #expect(try BoardShape.parseRule("B3/S23").1 == nil)
        for bad in ["B3/S23:T0,5", "B3/S23:K5,5", "B3/S23:T5,", "B3/S23:"] {
            #expect(throws: TesseraError.self) { try BoardShape.parseRule(bad) }
        }
    }

    @Test func gollyCoordinatesOfABoard() {
        let odd = BoardShape(width: 7, height: 5, topology: .torus)
        #expect(odd.left == -3 && odd.top == -2)
        let even = BoardShape(width: 640, height: 480, topology: .plane)
        #expect(even.left == -320 && even.top == -240)
    }
}
