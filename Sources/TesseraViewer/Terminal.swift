import FoundationEssentials
import Glibc
import TesseraCore

/// The controlling terminal in raw mode on the alternate screen, restored on every way
/// out: a normal exit, Ctrl-C (read as a key), and crashes. SIGTERM and SIGHUP end the
/// viewer through whoever handles them (`Signals`), which then restores it.
package enum Terminal {
    /// The settings to restore. Written once before any handler is installed and only
    /// read afterwards, from signal handlers too, which is why it is a plain global.
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active = false

    package static var isInteractive: Bool { isatty(0) == 1 && isatty(1) == 1 }

    /// Columns and rows, from the terminal itself, so a resize shows at the next frame.
    package static var size: (columns: Int, rows: Int) {
        var ws = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 else { return (80, 24) }
        return (Int(ws.ws_col), Int(ws.ws_row))
    }

    package static func enter() {
        guard !active, tcgetattr(0, &saved) == 0 else { return }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST)  // keep \n → \r\n for anything printed
        tcsetattr(0, TCSAFLUSH, &raw)
        active = true
        Files.writeToStandardOutput("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
        atexit { Terminal.restore() }
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE] {
            Glibc.signal(signal) { number in
                Terminal.restore()
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// Leaves the alternate screen and puts the settings back (async-signal-safe).
    package static func restore() {
        guard active else { return }
        active = false
        let reset = "\u{1B}[?25h\u{1B}[?1049l"
        _ = reset.withCString { Glibc.write(1, $0, strlen($0)) }
        tcsetattr(0, TCSAFLUSH, &saved)
    }
}

/// A key the viewer understands.
package enum Key: Equatable, Sendable {
    case character(Character)
    case up, down, left, right
    case interrupt
}

/// Reads keys from standard input on its own thread (a blocking read never touches
/// the cooperative pool).
package enum Keyboard {
    package static func keys() -> AsyncStream<Key> {
        let (stream, continuation) = AsyncStream.makeStream(of: Key.self)
        OwnThread.start(named: "tessera-keys") {
            var pending: [UInt8] = []
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 {
                pending.append(byte)
                while let (key, used) = parse(pending) {
                    pending.removeFirst(used)
                    if let key { continuation.yield(key) }
                }
            }
            continuation.finish()
        }
        return stream
    }

    /// One key from the front of `bytes` and how many bytes it used; nil until complete.
    static func parse(_ bytes: [UInt8]) -> (Key?, Int)? {
        guard let first = bytes.first else { return nil }
        if first == 3 { return (.interrupt, 1) }
        if first == 0x1B {
            guard bytes.count >= 3 else { return bytes.count == 2 && bytes[1] != UInt8(ascii: "[") ? (nil, 2) : nil }
            guard bytes[1] == UInt8(ascii: "[") else { return (nil, 2) }
            switch bytes[2] {
            case UInt8(ascii: "A"): return (.up, 3)
            case UInt8(ascii: "B"): return (.down, 3)
            case UInt8(ascii: "C"): return (.right, 3)
            case UInt8(ascii: "D"): return (.left, 3)
            default: return (nil, 3)
            }
        }
        return (.character(Character(Unicode.Scalar(first))), 1)
    }
}
