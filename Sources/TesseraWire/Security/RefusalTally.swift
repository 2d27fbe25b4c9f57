/// Refusals a peer can cause as often as it likes: said in a line the first time, then
/// counted and said at most once every `interval`, so a stranger's flood costs a few
/// lines of log, not one a message.
package struct RefusalTally: Sendable {
    /// What to say now: the first refusal, or how many there were since the last line.
    package struct Report: Sendable, Equatable {
        package let count: Int
        package let first: Bool
    }

    package let interval: Duration
    private var lastSaid: ContinuousClock.Instant?
    private var unsaid = 0

    package init(interval: Duration = .seconds(10)) {
        self.interval = interval
    }

    /// Notes one refusal at `now`, and says whether a line is due.
    package mutating func refuse(at now: ContinuousClock.Instant) -> Report? {
        unsaid += 1
        if let lastSaid, now - lastSaid < interval { return nil }
        defer { (lastSaid, unsaid) = (now, 0) }
        return Report(count: unsaid, first: lastSaid == nil)
    }
}
