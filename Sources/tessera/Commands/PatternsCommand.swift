import ArgumentParser
import TesseraPatterns

struct PatternsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "patterns", abstract: "Lists the built-in starting patterns.")

    func run() {
        for name in PatternLibrary.names {
            let pattern = PatternLibrary.pattern(named: name)!
            let title = pattern.comments.first { $0.hasPrefix("#N") }.map { String($0.dropFirst(3)) } ?? name
            let size = "\(pattern.cells.width)x\(pattern.cells.height)"
            print(name.padded(12)
                + size.padded(8)
                + "\(pattern.cells.population) cells  \(title)")
        }
    }
}
