import FoundationEssentials
import TesseraRun

/// A row of a bench's results, written as CSV and as JSON with the same columns, in
/// `Columns` order, units in their names.
package protocol ResultRow: Encodable {
    associatedtype Columns: CodingKey, CaseIterable
    /// The CSV fields, in `Columns` order; empty where there is no figure.
    var csvFields: [String] { get }
}

extension ResultRow {
    /// A header of the columns, then a line per row.
    package static func csv(_ rows: [Self]) -> String {
        ([Columns.allCases.map(\.stringValue).joined(separator: ",")] + rows.map { $0.csvFields.joined(separator: ",") })
            .joined(separator: "\n") + "\n"
    }

    /// An array of objects with the same keys, sorted.
    package static func json(_ rows: [Self]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(rows), as: UTF8.self) + "\n"
    }
}
