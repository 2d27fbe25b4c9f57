/// A failure the user can act on: `description` is one line that names the problem and
/// the fix. The CLI prints it and exits with status 2.
public struct TesseraError: Error, CustomStringConvertible, Equatable, Sendable {
    public let description: String

    public init(_ problem: String, fix: String? = nil) {
        description = fix.map { "\(problem): \($0)" } ?? problem
    }
}
