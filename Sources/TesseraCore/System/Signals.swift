import CTesseraSystem
import FoundationEssentials
import Glibc
import Dispatch
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

    /// Who listens to which signal, and each signal's dispatch source, made once and
    /// kept: libdispatch installs its process-wide handler only for a signal's first
    /// source, and some time after it is resumed, so the handler cannot be swapped out
    /// and back without losing it (once, a run's second stream never caught SIGTERM).
    private struct Registry: ~Copyable {
        var listeners: [Int: (numbers: [Int32], continuation: AsyncStream<Int32>.Continuation)] = [:]
        var next = 0
        var sources: [Int32: SignalSource] = [:]
    }

    private static let registry = Mutex(Registry())

    /// The signals `numbers` as they arrive. Their default actions are off while any
    /// stream for them lives; one that arrives while none does takes its default action.
    package static func stream(_ numbers: [Int32] = stopping) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let id = registry.withLock { registry in
            let id = registry.next
            registry.next += 1
            registry.listeners[id] = (numbers, continuation)
            for number in numbers where registry.sources[number] == nil {
                signal(number, SIG_IGN)
                registry.sources[number] = SignalSource(number) { deliver(number) }
            }
            return id
        }
        continuation.onTermination = { _ in registry.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    private static func deliver(_ number: Int32) {
        let listening = registry.withLock { $0.listeners.values.filter { $0.numbers.contains(number) }.map(\.continuation) }
        guard !listening.isEmpty else {
            // No stream: the action the signal would have had if none had ever been made
            // (for every signal streamed here, the end of the process). Sent to the
            // process, not raised: this runs on a Dispatch thread, which blocks every
            // signal, so a signal raised here would wait on it for ever.
            signal(number, SIG_DFL)
            kill(getpid(), number)
            return
        }
        for continuation in listening { continuation.yield(number) }
    }

    /// Whether a stream for `number` lives: then the signal is caught, else it takes its
    /// default action.
    package static func isCaught(_ number: Int32) -> Bool {
        registry.withLock { $0.listeners.values.contains { $0.numbers.contains(number) } }
    }
}

extension Signals {
    /// `body`'s result, with the stopping signals noted instead of ending the process:
    /// `body` asks `noted` between steps of its work and stops where one has come.
    ///
    /// For work on the main thread of a process that never started the task pool: a
    /// stream needs a task to read it and Dispatch's sources, whose threads block every
    /// signal (so a handler like this one would never run in a process that has them).
    /// What each signal did before comes back when `body` returns.
    package static func noting<T, E: Error>(_ numbers: [Int32] = stopping, _ body: () throws(E) -> T) throws(E) -> T {
        let started = numbers.withUnsafeBufferPointer { tessera_start_noting($0.baseAddress, CInt($0.count)) }
        precondition(started == 0, "at most 8 signals are noted at once")
        defer { tessera_stop_noting() }
        return try body()
    }

    /// The first stopping signal to come while `noting` runs, if any has.
    package static var noted: Int32? {
        let number = tessera_noted_signal()
        return number == 0 ? nil : number
    }
}

/// A signal's dispatch source, resumed on creation and never cancelled. Dispatch
/// sources are thread-safe, and this wrapper only keeps one alive.
private final class SignalSource: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    init(_ number: Int32, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
    }
}
