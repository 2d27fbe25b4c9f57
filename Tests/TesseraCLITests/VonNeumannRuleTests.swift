import Foundation
import Testing
import TesseraCore

/// JvN29 and Nobili32 against bgolly's JvN engine (`-a JvN`).
extension RuleFileTests {
    /// Golly's JvN29 and Nobili32 demonstrations small enough for a debug build, 200
    /// generations (stepped by HashLife, `StateHashLife`): bgolly's cells in bgolly's
    /// states, and its rule line. (The replicators a million cells wide are `tessera
    /// bench corpus`'s.)
    @Test(arguments: ["counter-demo.rle", "cell-coders-demo.rle", "read-arm-demo.rle", "construction-arm-demo.rle",
                      "small-JvN-self-replicator.rle"])
    func jvnDemonstrationsAreGollys(file: String) throws {
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent(file)
        try FileManager.default.copyItem(atPath: "\(Self.patterns)/Self-Rep/JvN/\(file)", toPath: input.path)
        let (ours, theirs) = try Harness.runBoth(input, generations: 200, bgolly: ["-a", "JvN"], in: dir)
        #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs))
        #expect(try Harness.ruleLine(of: ours) == Harness.ruleLine(of: theirs))
    }

    /// Every state meets random neighbours: 6000 plus-shaped neighbourhoods four cells
    /// apart (seeded), one generation, each rule, as bgolly steps them. The centres'
    /// next states are the rule's whole table at those inputs; the arms step too.
    @Test(arguments: ["JvN29", "Nobili32"])
    func randomNeighbourhoodsStepAsGollys(rule: String) throws {
        let states = rule == "JvN29" ? 29 : 32
        var random = SplitMix64(seed: 29)
        let (across, down) = (100, 60)
        var grid = [[Int]](repeating: [Int](repeating: 0, count: 4 * across), count: 4 * down)
        for row in 0..<down {
            for column in 0..<across {
                let (x, y) = (4 * column + 1, 4 * row + 1)
                // Transmission and confluent states half the time: they are what signals.
                func state() -> Int { random.next() % 2 == 0 ? 9 + Int(random.next() % UInt64(states - 9)) : Int(random.next() % UInt64(states)) }
                for (dx, dy) in [(0, 0), (0, -1), (-1, 0), (1, 0), (0, 1)] { grid[y + dy][x + dx] = state() }
            }
        }
        func letters(_ state: Int) -> String {
            state == 0 ? "." : state <= 24 ? String(UnicodeScalar(64 + state)!) : "p" + String(UnicodeScalar(64 + state - 24)!)
        }
        let body = grid.map { $0.map(letters).joined() }.joined(separator: "$\n") + "!\n"
        let dir = try Harness.temporaryDirectory()
        let input = dir.appendingPathComponent("neighbourhoods.rle")
        try "x = \(4 * across), y = \(4 * down), rule = \(rule)\n\(body)".write(to: input, atomically: true, encoding: .utf8)
        let (ours, theirs) = try Harness.runBoth(input, generations: 1, bgolly: ["-a", "JvN"], in: dir)
        #expect(try Harness.statesShape(of: ours) == Harness.statesShape(of: theirs))
    }

    /// Hutton32 (and its old name) is refused in one line that says what runs, with
    /// exit status 2; the names Golly reads JvN29 and Nobili32 by are taken in any case;
    /// a Nobili32 pattern's crossing states are refused under JvN29.
    @Test func hutton32IsRefusedAndOldNamesAreRead() throws {
        let dir = try Harness.temporaryDirectory()
        for (rule, accepted) in [("Hutton32", false), ("modJvN-32", false), ("jvn-29", true), ("JVN-32", true), ("nobili32", true)] {
            let input = dir.appendingPathComponent("\(rule).rle")
            try "x = 3, y = 1, rule = \(rule)\nIMO!\n".write(to: input, atomically: true, encoding: .utf8)
            let run = try Harness.tessera(["run", input.path, "--generations", "1"])
            if accepted {
                #expect(run.status == 0, "\(rule): \(run.stderr)")
            } else {
                #expect(run.status == 2 && run.stderr.split(separator: "\n").count == 1, "\(rule): \(run.stderr)")
                #expect(run.stderr.contains("JvN29 or Nobili32"), "\(rule): \(run.stderr)")
            }
        }
        // A Nobili32 crossing (state 30) run under JvN29, which has 29 states.
        let crossing = dir.appendingPathComponent("crossing.rle")
        try "x = 3, y = 1, rule = Nobili32\nIpFO!\n".write(to: crossing, atomically: true, encoding: .utf8)
        let run = try Harness.tessera(["run", crossing.path, "--generations", "100", "--rule", "JvN29"])
        #expect(run.status == 2 && run.stderr.contains("state 30, past the 29 states of JvN29"), "\(run.stderr)")
    }
}
