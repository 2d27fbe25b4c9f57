import Foundation
import Testing
@testable import TesseraCore

@Suite struct SignalsTests {
    /// A bench runs sessions side by side, each with a stream: the first to end must not
    /// give the signal back its default action (ending the process) under the other.
    @Test func aSignalStaysCaughtWhileAnyStreamLives() async {
        let number = SIGUSR2
        let started = AsyncStream.makeStream(of: Void.self)
        let listeners = (0..<2).map { _ in
            Task {
                let stream = Signals.stream([number])
                started.continuation.yield()
                for await _ in stream {}
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        #expect(Signals.isCaught(number))
        listeners[0].cancel()
        await listeners[0].value
        #expect(Signals.isCaught(number), "one stream still listens")
        listeners[1].cancel()
        await listeners[1].value
        #expect(!Signals.isCaught(number))
    }

    /// A run streams signals while it steps its head start, and again once its workers
    /// are up: a stream made after the last one ended must catch the signal again.
    /// libdispatch installs its handler once per signal, a little after the first
    /// source is resumed; once, the first stream's end put the default action back
    /// over it, the second found the signal ignored for good, and SIGTERM could not
    /// stop such a run. (The delivery itself is `aSignalAfterTheHandOverStopsTheRun`'s.)
    @Test func aStreamMadeAfterTheLastEndedCatchesTheSignalAgain() async throws {
        let number = SIGUSR1
        let started = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            let stream = Signals.stream([number])
            started.continuation.yield()
            for await _ in stream {}
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        try await handlerInstalled(number)
        first.cancel()
        await first.value
        #expect(!Signals.isCaught(number))
        let second = Signals.stream([number])
        #expect(Signals.isCaught(number))
        try await handlerInstalled(number)
        _ = second
    }

    /// Waits (at most 10 s) until `number` has a handler: neither its default action
    /// nor ignored.
    func handlerInstalled(_ number: Int32) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while [0, 1].contains(disposition(number)) {
            try #require(ContinuousClock.now < deadline, "no handler for signal \(number): \(disposition(number))")
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The signal's handler as a number: 1 is SIG_IGN.
    func disposition(_ number: Int32) -> Int {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }
}
