import Dispatch
import FoundationEssentials
import Synchronization

/// A result that tasks wait for and any thread supplies, once: the one slot behind
/// every "wait until it is in" in Tessera (halos, answers, a process's end, a wake-up).
///
/// A result supplied before anyone waits is kept for them; waiting is
/// cancellation-aware (a cancelled waiter gets `CancellationError` at once, and the
/// others keep waiting). So a missed wake-up or a cancelled run is never a hang.
/// Thread-safe through its lock, hence `Sendable`.
package final class Completion<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [Int: @Sendable (Result<Value, any Error>) -> Void] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether a result is in.
    package var isDone: Bool { state.withLock { $0.result != nil } }

    /// Supplies the result; the first one wins. Returns whether this call supplied it.
    @discardableResult
    package func resolve(_ result: Result<Value, any Error>) -> Bool {
        let waiters = state.withLock { state -> [@Sendable (Result<Value, any Error>) -> Void]? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        waiters?.forEach { $0(result) }
        return waiters != nil
    }

    @discardableResult
    package func succeed(_ value: Value) -> Bool { resolve(.success(value)) }

    @discardableResult
    package func fail(_ error: any Error) -> Bool { resolve(.failure(error)) }

    /// Waits for the result.
    package func value() async throws -> Value {
        let waiter = newWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let now = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    // Checked under the lock: a cancellation handler that ran before the
                    // continuation was stored found nothing to resume.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[waiter] = { continuation.resume(with: $0) }
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: waiter) }?(.failure(CancellationError()))
        }
    }

    /// Blocks the calling thread until the result is in, or for `seconds` at most (nil
    /// when they pass first). Only for threads that are not the task pool's: a test's
    /// synchronous body, a thread of its own.
    package func waitBlocking(seconds: Double = .infinity) -> Result<Value, any Error>? {
        let waiter = newWaiter(), signal = DispatchSemaphore(value: 0)
        let now = state.withLock { state -> Result<Value, any Error>? in
            if let result = state.result { return result }
            state.waiters[waiter] = { _ in signal.signal() }
            return nil
        }
        if let now { return now }
        let deadline: DispatchTime = seconds.isFinite ? .now() + seconds : .distantFuture
        if signal.wait(timeout: deadline) == .timedOut {
            // The result may have come in since; either way this waiter is done.
            return state.withLock { state in
                state.waiters.removeValue(forKey: waiter)
                return state.result
            }
        }
        return state.withLock { $0.result }
    }

    private func newWaiter() -> Int {
        state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
    }
}

extension Completion where Value == Void {
    @discardableResult
    package func succeed() -> Bool { resolve(.success(())) }
}

extension Completion {
    /// The result of `blocking`, computed on a thread of its own named `name`: a call
    /// that blocks (waitpid, poll) must never hold one of the task pool's few threads.
    package static func onOwnThread(named name: String, _ blocking: @escaping @Sendable () -> Value) -> Completion {
        let completion = Completion()
        OwnThread.start(named: name) { completion.succeed(blocking()) }
        return completion
    }
}
