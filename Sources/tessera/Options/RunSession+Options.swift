import TesseraCore
import TesseraExport
import TesseraPatterns
import TesseraRun

extension RunSession {
    /// The mode and limits that the run options ask for.
    mutating func configure(run: RunOptions, cluster: ClusterOptions, output: BoardOutput?, view: Bool = false,
                            externalPresenter: Bool = false) throws {
        self.output = output
        connectTimeout = cluster.connectTimeout?.duration ?? connectTimeout
        silence = cluster.silence?.duration ?? silence
        balancing = cluster.balancing
        restarts = cluster.maxRestarts ?? ClusterOptions.defaultRestarts
        showsProgress = !view
        if externalPresenter {
            mode = .externalPresenter
        } else if run.recordsFrames {
            mode = .record(try FrameRecording(folder: run.frames, gif: run.gif, every: run.every ?? 1,
                                              generations: run.generationCount))
        } else if view {
            mode = .viewHere
        } else if let endpoint = run.viewListen {
            mode = .serveViewers(endpoint: endpoint)
        }
    }
}
