import Testing
import TesseraCore
@testable import TesseraCluster
@testable import TesseraWire

/// A worker asked to leave hears why it cannot, and tells its drain what became of it.
@Suite struct DrainAnswerTests {
    @Test func answersReadBackAsSent() {
        for answer: DrainAnswer in [.handedOff, .heldNone, .runEnded, .stays("no other worker could take its tiles"),
                                    .ended("its run was stopped: interrupted by SIGINT"), .stays(""), .ended("a b  c")] {
            #expect(DrainAnswer(text: answer.text) == answer, "\(answer)")
        }
        #expect(DrainAnswer(text: "handed") == nil && DrainAnswer(text: "") == nil)
    }
}

extension CoordinatorStateTests {
    /// Before: the coordinator only logged that the last worker stays; the worker, and
    /// whoever drained it, heard nothing.
    @Test func theLastWorkerIsToldItStays() throws {
        var state = ready()
        _ = state.receive(.leaving, from: a, now: at(1))
        let effects = state.receive(.leaving, from: b, now: at(1))
        #expect(sent(effects).map(\.0) == [.stays(reason: "no other worker could take its tiles")])
        #expect(sent(effects).map(\.1) == [b])
    }
}
