import FoundationEssentials
import TesseraRun

/// Speed-up (left axis) and efficiency (right axis) against workers, with the ideal
/// speed-up line, as SVG.
package enum ScalingPlot {
    package static func svg(_ points: [ScalingPoint]) -> String {
        let (w, h) = (640.0, 420.0)
        let (left, right, top, bottom) = (60.0, 70.0, 50.0, 50.0)
        let maxWorkers = Double(points.map(\.workers).max() ?? 1)
        let maxSpeedup = (max(maxWorkers, points.map(\.speedup).max() ?? 1) * 1.1).rounded(.up)
        func x(_ v: Double) -> Double { left + (w - left - right) * v / maxWorkers }
        func y(_ v: Double, _ scale: Double) -> Double { h - bottom - (h - top - bottom) * v / scale }
        func text(_ x: Double, _ y: Double, _ anchor: String, _ body: String, _ extra: String = "") -> String {
            "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\"\(extra)>\(body)</text>\n"
        }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        if let first = points.first {
            let board = first.mode == "weak" ? "\(first.width) cells wide, growing with the workers" : "\(first.width)x\(first.height)"
            svg += text(w / 2, 24, "middle", "\(first.mode) scaling, \(board), \(first.generations) generations", " font-size=\"14\"")
        }
        svg += "<path d=\"M\(left),\(top) V\(h - bottom) H\(w - right) V\(top)\" fill=\"none\" stroke=\"black\"/>\n"
        svg += text(w / 2, h - 12, "middle", "workers")
        svg += text(16, h / 2, "middle", "speed-up (solid)", " transform=\"rotate(-90 16 \(h / 2))\"")
        svg += text(w - 16, h / 2, "middle", "efficiency (dashed)", " transform=\"rotate(90 \(w - 16) \(h / 2))\"")
        for workers in Set(points.map(\.workers)).sorted() {
            svg += text(x(Double(workers)), h - bottom + 16, "middle", "\(workers)")
        }
        let step = max(1.0, (maxSpeedup / 8).rounded(.up))
        for v in stride(from: 0.0, through: maxSpeedup, by: step) {
            svg += text(left - 6, y(v, maxSpeedup) + 4, "end", "\(Int(v))")
        }
        let efficiencyTop = 1.2
        for v in [0.0, 0.25, 0.5, 0.75, 1.0] {
            svg += text(w - right + 6, y(v, efficiencyTop) + 4, "start", String(cFormat: "%.2f", v))
            svg += "<line x1=\"\(left)\" y1=\"\(y(v, efficiencyTop))\" x2=\"\(w - right)\" y2=\"\(y(v, efficiencyTop))\" stroke=\"#eee\"/>\n"
        }
        svg += "<line x1=\"\(x(0))\" y1=\"\(y(0, maxSpeedup))\" x2=\"\(x(maxWorkers))\" y2=\"\(y(maxWorkers, maxSpeedup))\" stroke=\"#999\" stroke-dasharray=\"2,4\"/>\n"
        svg += text(x(maxWorkers) - 4, y(maxWorkers, maxSpeedup) - 6, "end", "ideal speed-up", " fill=\"#999\"")
        let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
        for (i, halo) in Set(points.map { $0.series ?? 0 }).sorted().enumerated() {
            let series = points.filter { ($0.series ?? 0) == halo }.sorted { $0.workers < $1.workers }
            let color = colors[i % colors.count]
            let speed = series.map { "\(x(Double($0.workers))),\(y($0.speedup, maxSpeedup))" }.joined(separator: " ")
            let efficiency = series.map { "\(x(Double($0.workers))),\(y($0.efficiency, efficiencyTop))" }
                .joined(separator: " ")
            svg += "<polyline points=\"\(speed)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            svg += "<polyline points=\"\(efficiency)\" fill=\"none\" stroke=\"\(color)\" stroke-dasharray=\"6,3\"/>\n"
            for p in series {
                svg += "<circle cx=\"\(x(Double(p.workers)))\" cy=\"\(y(p.speedup, maxSpeedup))\" r=\"3\" fill=\"\(color)\"/>\n"
                svg += "<circle cx=\"\(x(Double(p.workers)))\" cy=\"\(y(p.efficiency, efficiencyTop))\" r=\"3\" fill=\"white\" stroke=\"\(color)\"/>\n"
            }
            svg += text(left + 10, top + 16 + Double(i) * 16, "start", halo == 0 ? "default halo" : "halo \(halo)",
                        " fill=\"\(color)\"")
        }
        return svg + "</svg>\n"
    }
}
