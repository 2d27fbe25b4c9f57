import FoundationEssentials
import Glibc
import TesseraRun

/// Each compared file's speed-up over the faster bgolly engine, files in order of it,
/// on a log scale with the line of equal speed, as SVG: red where the cells differ.
package enum CorpusPlot {
    package static func svg(_ rows: [CorpusRow], generations: UInt64) -> String {
        let points = rows.filter { $0.speedup != nil }.sorted { $0.speedup! < $1.speedup! }
        let (w, h) = (720.0, 420.0)
        let (left, right, top, bottom) = (70.0, 20.0, 50.0, 40.0)
        // Whole decades, 1x among them.
        let logs: [Double] = points.map { log10($0.speedup!) } + [0]
        let low: Double = logs.min()!.rounded(.down)
        let high: Double = max(logs.max()!.rounded(.up), low + 1)
        let count = Double(max(points.count, 1))
        func x(_ i: Int) -> Double { left + (w - left - right) * (Double(i) + 0.5) / count }
        func y(_ log: Double) -> Double { h - bottom - (h - top - bottom) * (log - low) / (high - low) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        svg += "<text x=\"\(w / 2)\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">speed-up over the faster bgolly engine, \(points.count) files, \(generations) generations</text>\n"
        svg += "<path d=\"M\(left),\(top) V\(h - bottom) H\(w - right)\" fill=\"none\" stroke=\"black\"/>\n"
        for decade in stride(from: low, through: high, by: 1) {
            let label = decade >= 0 ? String(cFormat: "%.0fx", pow(10, decade)) : String(cFormat: "%gx", pow(10, decade))
            svg += "<line x1=\"\(left)\" y1=\"\(y(decade))\" x2=\"\(w - right)\" y2=\"\(y(decade))\" stroke=\"\(decade == 0 ? "#999" : "#eee")\"/>\n"
            svg += "<text x=\"\(left - 6)\" y=\"\(y(decade) + 4)\" text-anchor=\"end\">\(label)</text>\n"
        }
        svg += "<text x=\"\(w / 2)\" y=\"\(h - 12)\" text-anchor=\"middle\">files, slowest to fastest against bgolly</text>\n"
        for (i, row) in points.enumerated() {
            let color = row.outcome == .matched ? "#1f77b4" : "#d62728"
            svg += "<circle cx=\"\(x(i))\" cy=\"\(y(log10(row.speedup!)))\" r=\"3\" fill=\"\(color)\"><title>\(row.file): "
                + String(cFormat: "%.2fx", row.speedup!) + "</title></circle>\n"
        }
        return svg + "</svg>\n"
    }
}
