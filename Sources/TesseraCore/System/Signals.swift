import Foundation
import Synchronization

/// Signals that stop a run, delivered as a stream instead of a handler: whoever reads
/// it does so in a task of its own, as a child of the run's task group.
package enum Signals {
    /// Stops a run cleanly: the run exits 128 + the number.
    package static let stopping: [Int32] = [SIGINT, SIGTERM, SIGQUIT, SIGHUP]

    package static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGQUIT: "SIGQUIT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }

    /// Streams alive, by signal: a default action comes back only when the last ends
    /// (a bench runs several sessions side by side, each with its own stream).
    private static let listeners = Mutex<[Int32: Int]>([:])

    /// The signals `numbers` as they arrive. Their default actions are off while any
    /// stream for them lives and back on when the last ends.
    package static func stream(_ numbers: [Int32] = stopping) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        var sources: [any DispatchSourceSignal] = []
        for number in numbers {
            listeners.withLock { $0[number, default: 0] += 1 }
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let installed = SignalSources(sources)
        continuation.onTermination = { _ in
            installed.cancel()
            for number in numbers {
                listeners.withLock { counts in
                    counts[number, default: 1] -= 1
                    if counts[number] == 0 { signal(number, SIG_DFL) }
                }
            }
        }
        return stream
    }
}

/// Dispatch sources are thread-safe to cancel, which is all this wrapper does with them.
private final class SignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
