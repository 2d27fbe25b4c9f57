/// A run that writes its output every `every` generations (`--every` with `--output`),
/// each file numbered by its generation (`BoardOutput.numbered`), and the last
/// generation's file at its end.
struct NumberedFiles: Sendable {
    let every: UInt64

    /// Generations from `done` to the next file, in a run of `generations`.
    func stretch(from done: UInt64, of generations: UInt64) -> UInt64 {
        min(every - done % every, generations - done)
    }

    /// Whether a file is written once `done` of the run's `generations` are.
    func isDue(after done: UInt64, of generations: UInt64) -> Bool {
        done % every == 0 || done == generations
    }
}
