import ArgumentParser
import TesseraCore
import TesseraRun

// Values the flags take. Their parsers (`BoardSize`, `RuleChoice`, `TileGrid`, `Seconds`)
// live beside `RunRequest`, which reads a config file through the same ones; a value
// that does not parse fails with one line that says what is wrong and how to write it.

extension Topology: ExpressibleByArgument {}

extension Kernel.Implementation: ExpressibleByArgument {}

extension Algorithm: ExpressibleByArgument {}

/// Parses what a flag's transform is given, as the parser's error if it is wrong.
func parsing<T>(_ parse: @escaping @Sendable (String) throws -> T) -> @Sendable (String) throws -> T {
    { text in
        do {
            return try parse(text)
        } catch let error as TesseraError {
            throw ValidationError(error.description)
        }
    }
}
