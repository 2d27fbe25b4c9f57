import FoundationEssentials
import Glibc
import TesseraCore
import TesseraPatterns
import TesseraRun

/// Golly's `bgolly` run on the same board, to measure it side by side.
package enum GollyReference {
    package static var path: String? {
        ["/usr/bin/bgolly", "/usr/local/bin/bgolly", "/usr/games/bgolly"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// The bgolly engine that runs `rule`: QuickLife, or the family's own.
    package static func engine(for rule: Rule) -> String {
        rule.largerThanLife != nil ? "Larger than Life" : rule.generations != nil ? "Generations" : "QuickLife"
    }

    /// bgolly's cell-updates/s over `generations` of `soup` on `shape` (`engine(for:)`),
    /// with the time to read the pattern subtracted; nil when bgolly is not installed.
    package static func measure(soup: Soup, shape: BoardShape, rule: Rule, generations: UInt64) async throws -> Double? {
        guard let bgolly = path else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-\(getpid()).rle").path
        defer { unlink(file) }
        let board = soup.cells(x: shape.left, y: shape.top, width: shape.width, height: shape.height)
        var encoder = RLE.Encoder(shape: shape, rule: rule, generation: 0)
        try encoder.write(board, to: file)
        func time(_ generations: UInt64) async throws -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            let process = try ChildProcess.spawn([bgolly, "-q", "-q", "-a", engine(for: rule), "-m", "\(generations)", file], quiet: true)
            let ended = try await process.termination()
            guard ended == .exited(0) else {
                throw TesseraError("bgolly \(ended)", fix: "check the golly installation")
            }
            return (clock.now - start).seconds
        }
        let load = try await time(0)
        let total = try await time(generations)
        return Double(shape.cellCount) * Double(generations) / max(total - load, 1e-9)
    }
}
