import CTesseraSystem
import TesseraCore

/// What a worker asked to leave (SIGTERM) tells `tessera worker --drain`: whether its
/// tiles went to the others, or why not. It goes as one datagram to the drain, if one
/// listens (`tessera_drain_answer`); a plain `kill -TERM` hears nothing.
package enum DrainAnswer: Sendable, Equatable {
    /// Its tiles went to the others, and it left.
    case handedOff
    /// It held no tiles (it had none yet, or had joined and got none), and left.
    case heldNone
    /// The run ended before its tiles moved; it left with the run.
    case runEnded
    /// The coordinator keeps it: no other worker can take its tiles.
    case stays(String)
    /// It ended otherwise (the run stopped, the coordinator was lost): why.
    case ended(String)

    /// The datagram's text.
    package var text: String {
        switch self {
        case .handedOff: "handed-off"
        case .heldNone: "held-none"
        case .runEnded: "run-ended"
        case .stays(let reason): "stays " + reason
        case .ended(let why): "ended " + why
        }
    }

    package init?(text: String) {
        let (word, rest) = (text.prefix { $0 != " " }, String(text.drop { $0 != " " }.dropFirst()))
        switch word {
        case "handed-off": self = .handedOff
        case "held-none": self = .heldNone
        case "run-ended": self = .runEnded
        case "stays": self = .stays(rest)
        case "ended": self = .ended(rest)
        default: return nil
        }
    }

    /// Tells whoever drains this process, if anyone does.
    package func send() {
        _ = tessera_drain_answer(text)
    }
}
