import Foundation
import Testing
import TesseraCore
@testable import TesseraWire

/// A peer that floods a port with messages it refuses costs a few lines of log, and
/// every refusal is still counted in them.
@Suite struct RefusalFloodTests {
    /// Before: one line per refused message, 200,000 lines (19 MB) for 200,000 one-byte messages.
    @Test func aFloodOfOneByteMessagesIsCountedNotLoggedOneByOne() throws {
        let flood = 200_000
        let cluster = try WireDefenceTests.Cluster(generations: 300) { endpoint in
            let stranger = try StrangePeer(connectingTo: endpoint)
            for _ in 0..<flood { try stranger.send(bytes: [0x54]) }
            try stranger.abandon()
        }
        try cluster.expectFinishedLikeGolly()
        let lines = cluster.coordinator.errorText.split(separator: "\n").filter { $0.contains("refused") }
        #expect(lines.count <= 6, "\(lines.prefix(10))")
        // Each line said whole is one refusal; a count says how many it stands for.
        let counted = lines.reduce(0) { sum, line in
            sum + (line.firstMatch(of: /refused (\d+) more messages?/).map { Int($0.1)! } ?? 1)
        }
        #expect(counted == flood, "\(lines)")
    }
}

/// How refusals are said and counted, by the clock passed in.
@Suite struct RefusalCounterTests {
    let start = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test func theFirstFewAreSaidThenCountedOnceAnInterval() {
        var counter = RefusalCounter(place: "the port", burst: 2, interval: .seconds(10))
        #expect(counter.refuse("refused a message: 0", at: at(0)) == ["refused a message: 0"])
        #expect(counter.refuse("refused a message: 1", at: at(1))
                    == ["refused a message: 1; more refusals on the port are counted, not logged one by one"])
        for second in 2...8 { #expect(counter.refuse("refused a message: \(second)", at: at(Double(second))).isEmpty) }
        #expect(counter.due(at: at(11.9)) == nil)
        #expect(counter.due(at: at(12)) == "refused 7 more messages on the port in the last 10 s (the latest: refused a message: 8)")
        #expect(counter.due(at: at(30)) == nil, "nothing new to say")
        // A flood that goes on is counted only: one line an interval.
        var said: [String] = []
        for second in 13...23 { said += counter.refuse("refused a message: \(second)", at: at(Double(second))) }
        #expect(said == ["refused 10 more messages on the port in the last 10 s (the latest: refused a message: 22)"])
        #expect(counter.due(at: at(23), final: true) == "refused 1 more message on the port in the last 0 s (the latest: refused a message: 23)")
        // After a quiet interval the first few are said whole again.
        #expect(counter.refuse("refused a message: 40", at: at(40)) == ["refused a message: 40"])
    }
}
