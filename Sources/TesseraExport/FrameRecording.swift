#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import TesseraCluster
import TesseraCore

/// `--frames DIR` and `--gif FILE`: the whole board (or the unbounded plane's live cells)
/// every `every` generations, reduced inside the tiles to at most 1024 dots a side; a
/// rule of more states in a colour a state, where the run shows them.
package struct FrameRecording: Sendable {
    package static let maxFrames: UInt64 = 100_000

    package let folder: String?
    package let gif: String?
    package let every: UInt64

    /// Checks the request, and that the folder can be made, before any work is spent on
    /// frames; `record` makes it.
    package init(folder: String?, gif: String?, every: UInt64, generations: UInt64) throws {
        guard every >= 1 else { throw TesseraError("--every 0 exports nothing", fix: "give --every 1 or more") }
        guard generations / every + 1 <= Self.maxFrames else {
            throw TesseraError("\(generations / every + 1) frames is too many", fix: "raise --every or lower --generations")
        }
        if let gif {
            guard gif.lowercased().hasSuffix(".gif") else {
                throw TesseraError("--gif '\(gif)' is not a .gif file name", fix: "name it *.gif")
            }
            try AtomicFile.checkWritable(gif)
        }
        if let folder { try Files.checkFolderCanBeMade(folder, fix: "give --frames a folder in a place you may write") }
        (self.folder, self.gif, self.every) = (folder, gif, every)
    }

    /// Records `generations` generations of a started cluster: a frame of the board as
    /// it is, then one every `every` generations. A bounded board is all in every frame;
    /// on the unbounded plane (`followsLife`) each frame fits the live cells, as `0` does
    /// in the viewer, on a square canvas of at least 256 dots a side: the view zooms out
    /// as they spread.
    package func record(_ cluster: any Universe, generations: UInt64, followsLife: Bool = false) async throws {
        let board = await cluster.board
        let side = min(1024, max(256, board.width, board.height))
        let (dots, rows) = followsLife ? (side, side) : (min(board.width, 1024), min(board.height, 1024))
        let scale = max(1, min(8, 512 / max(dots, rows)))
        // A folder made here and left empty by a failure goes again (rmdir takes only an empty one).
        let made = folder.map { !Files.exists($0) } ?? false
        if let folder {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw TesseraError("cannot create folder \(folder)", fix: "check the path and permissions")
            }
        }
        @Sendable func fitting(_ board: (x: Int, y: Int, width: Int, height: Int)) -> Viewport {
            Viewport.fitting(x: board.x, y: board.y, width: board.width, height: board.height, dots: dots, rows: rows)
        }
        let whole = fitting(board)
        let view: @Sendable () async -> Viewport
        if followsLife {
            view = { fitting(await cluster.board) }
        } else {
            view = { whole }
        }
        do {
            try await record(cluster, generations: generations, view: view, canvas: (dots, rows), scale: scale)
        } catch {
            if made, let folder { rmdir(folder) }
            throw error
        }
    }

    private func record(_ cluster: any Universe, generations: UInt64, view: @Sendable () async -> Viewport,
                        canvas: (dots: Int, rows: Int), scale: Int) async throws {
        let animation = try gif.map { try GIFAnimation(path: $0, width: canvas.dots, height: canvas.rows, scale: scale) }
        var done: UInt64 = 0, index = 0
        while true {
            let viewport = await view()
            let (dots, states) = try await cluster.frameAndStates(viewport)
            if let folder {
                let path = folder + String(cFormat: "/frame-%06d.png", index)
                if let states {
                    try ImageFiles.writePNG(states: states.dots, width: dots.width, states: states.states, scale: scale, to: path)
                } else {
                    try ImageFiles.writePNG(dots, scale: scale, to: path)
                }
            }
            try animation?.add(dots, states: states)
            index += 1
            guard done < generations else { break }
            let step = min(every, generations - done)
            try await cluster.advance(step)
            done += step
        }
        try animation?.finish()
    }
}
