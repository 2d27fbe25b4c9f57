import Foundation
import Testing
@testable import TesseraCore

@Suite struct SignalsTests {
    /// The signal's handler as a number: 0 is SIG_DFL (a dispatch source puts its own).
    func disposition(_ number: Int32) -> Int {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }

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
        #expect(disposition(number) != 0)
        listeners[0].cancel()
        await listeners[0].value
        #expect(disposition(number) != 0, "one stream still listens")
        listeners[1].cancel()
        await listeners[1].value
        #expect(disposition(number) == 0)
    }
}
