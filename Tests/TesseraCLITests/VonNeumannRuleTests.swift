import Foundation
import Testing
import TesseraCore

/// JvN29, Nobili32 and Hutton32 against bgolly's JvN engine (`-a JvN`).
extension RuleFileTests {
    /// Golly's JvN29, Nobili32 and Hutton32 machines, 200 generations (stepped by
    /// HashLife, `StateHashLife`): bgolly's cells in bgolly's states, and its rule line.
    /// The replicators up to a million cells wide are read as squares (`StateTreeRows`).
    @Test(arguments: ["counter-demo.rle", "cell-coders-demo.rle", "read-arm-demo.rle", "construction-arm-demo.rle",
                      "small-JvN-self-replicator.rle", "Hutton-replicator.rle", "Boustrophedon-replicator.rle",
                      "NP-replicator.rle.gz", "N-compressed-replicator.rle", "NP-mutation.rle.gz", "JvN-loop-replicator.rle.gz"])
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
    @Test(arguments: ["JvN29", "Nobili32", "Hutton32"])
    func randomNeighbourhoodsStepAsGollys(rule: String) throws {
        let states = rule == "JvN29" ? 29 : 32
        var random = SplitMix64(seed: 29)
        let (across, down) = (100, 60)
        var grid = [[Int]](repeating: [Int](repeating: 0, count: 4 * across), count: 4 * down)
        for row in 0..<down {
            for column in 0..<across {
                let (x, y) = (4 * column + 1, 4 * row + 1)
                // Transmission and confluent states half the time: they are what signals;
                // sensitized ones a quarter, for what Hutton32's wire ends write.
                func state() -> Int {
                    switch random.next() % 4 {
                    case 0, 1: 9 + Int(random.next() % UInt64(states - 9))
                    case 2: 1 + Int(random.next() % 8)
                    default: Int(random.next() % UInt64(states))
                    }
                }
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

    /// The names Golly reads its JvN rules by are taken in any case, old ones too, and
    /// written as Golly writes them; a Nobili32 pattern's crossing states are refused
    /// under JvN29.
    @Test func oldNamesAreRead() throws {
        let dir = try Harness.temporaryDirectory()
        for (rule, golly) in [("hutton32", "Hutton32"), ("modJvN-32", "Hutton32"), ("jvn-29", "JvN29"), ("JVN-32", "Nobili32"), ("nobili32", "Nobili32")] {
            let input = dir.appendingPathComponent("\(rule).rle"), output = dir.appendingPathComponent("\(rule)-out.rle")
            try "x = 3, y = 1, rule = \(rule)\nIMO!\n".write(to: input, atomically: true, encoding: .utf8)
            let run = try Harness.tessera(["run", input.path, "--generations", "1", "--output", output.path])
            #expect(run.status == 0, "\(rule): \(run.stderr)")
            #expect(try Harness.ruleLine(of: output) == golly[...], "\(rule)")
        }
        // A Nobili32 crossing (state 30) run under JvN29, which has 29 states.
        let crossing = dir.appendingPathComponent("crossing.rle")
        try "x = 3, y = 1, rule = Nobili32\nIpFO!\n".write(to: crossing, atomically: true, encoding: .utf8)
        let run = try Harness.tessera(["run", crossing.path, "--generations", "100", "--rule", "JvN29"])
        #expect(run.status == 2 && run.stderr.contains("state 30, past the 29 states of JvN29"), "\(run.stderr)")
    }
}
