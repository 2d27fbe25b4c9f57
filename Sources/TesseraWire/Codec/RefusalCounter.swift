import Synchronization
import TesseraCore

/// Refusals of messages a peer may send as often as it likes (200,000 one-byte messages
/// were 200,000 lines, 19 MB): the first `burst` after a quiet `interval` are said
/// whole, the rest counted and said in one line once an interval has passed.
package struct RefusalCounter: Sendable {
    /// Where the refused messages arrived, in the counting line.
    package let place: String
    package let burst: Int
    package let interval: Duration
    /// Said whole since the last quiet interval.
    private var said = 0
    /// Counted and not yet said, since `since`, the latest described by `latest`.
    private var unsaid = 0
    private var since: ContinuousClock.Instant?
    private var latest = ""
    private var lastRefused: ContinuousClock.Instant?

    package init(place: String, burst: Int = 3, interval: Duration = .seconds(10)) {
        (self.place, self.burst, self.interval) = (place, burst, interval)
    }

    /// Notes the refusal `line` describes, at `now`; returns the lines to log.
    package mutating func refuse(_ line: String, at now: ContinuousClock.Instant) -> [String] {
        var lines = due(at: now).map { [$0] } ?? []
        if let lastRefused, now - lastRefused >= interval { said = 0 }
        lastRefused = now
        if said < burst {
            said += 1
            lines.append(said == burst ? "\(line); more refusals on \(place) are counted, not logged one by one" : line)
            return lines
        }
        if since == nil { since = now }
        unsaid += 1
        latest = line
        return lines
    }

    /// The line that counts the refusals not yet said, once an interval has passed
    /// since the first of them, or at once when `final`; nil when none is due.
    package mutating func due(at now: ContinuousClock.Instant, final: Bool = false) -> String? {
        guard let since, unsaid > 0, final || now - since >= interval else { return nil }
        defer { (self.since, unsaid) = (nil, 0) }
        return "refused \(unsaid) more message\(unsaid == 1 ? "" : "s") on \(place) in the last \(Format.duration((now - since).seconds))"
            + " (the latest: \(latest))"
    }
}

extension Wire {
    /// Each place's counter, and the role its lines are logged as.
    private static let refusals = Mutex<[String: (role: String, counter: RefusalCounter)]>([:])

    /// Logs, as `role`, the refusal `line` describes of a message that arrived at
    /// `place` (a lane's name): the first few whole, the rest counted (`RefusalCounter`).
    package static func logRefusal(_ line: String, at place: String, as role: String) {
        let lines = refusals.withLock { refusals in
            var entry = refusals[place] ?? (role, RefusalCounter(place: place))
            defer { refusals[place] = entry }
            return entry.counter.refuse(line, at: .now)
        }
        for line in lines { log(role, line) }
    }

    /// Logs the counts of refusals not yet said whose interval has passed; with `final`
    /// (the process's sockets are closed: nothing more can come), every count.
    package static func logCountedRefusals(final: Bool = false) {
        let now = ContinuousClock.now
        let lines = refusals.withLock { refusals in
            refusals.keys.sorted().compactMap { place in
                refusals[place]!.counter.due(at: now, final: final).map { (refusals[place]!.role, $0) }
            }
        }
        for (role, line) in lines { log(role, line) }
    }
}
