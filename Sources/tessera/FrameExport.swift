import Foundation
import TesseraCluster
import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraTiles

/// `--frames DIR` and `--gif FILE`: the whole board every `--every` generations, reduced
/// inside the tiles to at most 1024 dots a side.
enum FrameExport {
    static let maxFrames: UInt64 = 100_000

    static func validate(_ run: RunOptions, generations: UInt64) throws {
        guard run.frames != nil || run.gif != nil else { return }
        let every = run.every ?? 1
        guard every >= 1 else { throw TesseraError("--every 0 exports nothing", fix: "give --every 1 or more") }
        guard generations / every + 1 <= maxFrames else {
            throw TesseraError("\(generations / every + 1) frames is too many", fix: "raise --every or lower --generations")
        }
        if let gif = run.gif {
            guard gif.lowercased().hasSuffix(".gif") else {
                throw TesseraError("--gif '\(gif)' is not a .gif file name", fix: "name it *.gif")
            }
            try AtomicFile.checkWritable(gif)
        }
        if let frames = run.frames {
            do {
                try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
            } catch {
                throw TesseraError("cannot create folder \(frames)", fix: "check the path and permissions")
            }
        }
    }

    static func record(_ coordinator: Coordinator, setup: Setup, run: RunOptions,
                       generations: UInt64) async throws -> RunOutcome {
        try await coordinator.start()
        let shape = setup.shape
        let view = Viewport.fitting(width: shape.width, height: shape.height,
                                    dots: min(shape.width, 1024), rows: min(shape.height, 1024))
        let scale = max(1, min(8, 512 / max(view.width, view.height)))
        let animation = try run.gif.map { try GIFAnimation(path: $0, width: view.width, height: view.height, scale: scale) }
        let every = run.every ?? 1
        var done: UInt64 = 0, index = 0
        while true {
            let dots = try await coordinator.frame(view)
            if let folder = run.frames {
                try ImageFiles.writePNG(dots, scale: scale, to: folder + String(format: "/frame-%06d.png", index))
            }
            try animation?.add(dots)
            index += 1
            guard done < generations else { break }
            let step = min(every, generations - done)
            try await coordinator.advance(step)
            done += step
        }
        try animation?.finish()
        return try await coordinator.finish()
    }
}
