import Foundation
import Synchronization
import Testing
@testable import TesseraCore

/// The lifecycle primitive every process's run is built on: services never outlive the
/// body, whatever way it ends, and the first contender's value wins.
@Suite struct ServiceGroupTests {
    /// Counts services that saw their cancellation through to the end.
    final class Stopped: Sendable {
        private let count = Mutex(0)
        func note() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// A service that runs until cancelled, then notes that it stopped.
    private static func untilCancelled(_ stopped: Stopped, started: AsyncStream<Void>.Continuation) -> @Sendable () async -> Void {
        {
            started.yield()
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(60)) }
            stopped.note()
        }
    }

    @Test func servicesAreCancelledAndAwaitedWhenTheBodyReturns() async throws {
        let stopped = Stopped()
        let (started, up) = AsyncStream.makeStream(of: Void.self)
        var group = ServiceGroup()
        group.add(Self.untilCancelled(stopped, started: up))
        group.add(Self.untilCancelled(stopped, started: up))
        let result = await group.run {
            var iterator = started.makeAsyncIterator()
            _ = await iterator.next()
            _ = await iterator.next()
            return 42
        }
        #expect(result == 42)
        #expect(stopped.value == 2, "run returned before its services had stopped")
    }

    @Test func theBodysErrorComesOutOnceTheServicesStopped() async {
        struct Failure: Error {}
        let stopped = Stopped()
        let (started, up) = AsyncStream.makeStream(of: Void.self)
        var group = ServiceGroup()
        group.add(Self.untilCancelled(stopped, started: up))
        await #expect(throws: Failure.self) {
            try await group.run {
                var iterator = started.makeAsyncIterator()
                _ = await iterator.next()
                throw Failure()
            }
        }
        #expect(stopped.value == 1)
    }

    /// SIGURG, whose default action is to be ignored: a stray one harms no other test.
    /// The signal is sent until heard (libdispatch installs its handler some time after
    /// the stream starts, and one sent before is ignored), counted in rounds rather than
    /// by the clock: the suite's blocking tests may hold the task pool for minutes.
    @Test func aSignalReachesItsHandlerAndIsNotCaughtAfterwards() async throws {
        let number = SIGURG
        let heard = Mutex<Int32?>(nil)
        var group = ServiceGroup()
        group.onSignals([number]) { signal in heard.withLock { $0 = signal } }
        let got = try await group.run {
            for _ in 0..<20_000 where heard.withLock({ $0 }) == nil {
                if Signals.isCaught(number) { kill(getpid(), number) }
                try await Task.sleep(for: .milliseconds(1))
            }
            return heard.withLock { $0 }
        }
        #expect(got == number)
        #expect(!Signals.isCaught(number), "the signal service outlived the group")
    }

    @Test func theFirstValueWinsAndTheRestAreCancelled() async {
        let stopped = Stopped()
        let (started, up) = AsyncStream.makeStream(of: Void.self)
        let slow: @Sendable () async -> String? = {
            await Self.untilCancelled(stopped, started: up)()
            return "slow"
        }
        let fast: @Sendable () async -> String? = {
            var iterator = started.makeAsyncIterator()
            _ = await iterator.next()
            return "fast"
        }
        let dropsOut: @Sendable () async -> String? = { nil }
        #expect(await ServiceGroup.first(of: [slow, dropsOut, fast]) == "fast")
        #expect(stopped.value == 1, "the loser was left running")
        #expect(await ServiceGroup.first(of: [dropsOut, dropsOut]) == nil)
    }
}
