import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraPatterns

/// Runs the real `tessera` binary and Golly's `bgolly`, and compares boards as sets of
/// live cells in Golly coordinates.
enum Harness {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `tessera` built beside this test bundle.
    static let tessera: URL = {
        if let path = ProcessInfo.processInfo.environment["TESSERA_BIN"] { return URL(fileURLWithPath: path) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [beside, beside.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")] {
            let candidate = dir.appendingPathComponent("tessera")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return packageRoot.appendingPathComponent(".build/debug/tessera")
    }()

    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil, newProcessGroup: Bool = true) throws -> Result {
        let running = try RunningTessera(executable, arguments, in: directory, newProcessGroup: newProcessGroup)
        let status = running.waitUntilEnded()
        return Result(status: status, stdout: running.outputText, stderr: running.errorText)
    }

    /// Runs a program other than `tessera` in this process's group (tmux, a shell).
    static func spawn(_ executable: String, _ arguments: [String]) throws -> Result {
        try run(URL(fileURLWithPath: executable), arguments, newProcessGroup: false)
    }

    static func tessera(_ arguments: [String], in directory: URL? = nil) throws -> Result {
        try run(tessera, arguments, in: directory)
    }

    /// `generations`, or more where this machine runs `tessera run ARGUMENTS
    /// --generations N` in under `seconds`: enough, at the speed that run showed, to last
    /// half as long again. A test that interrupts a run mid-way (a worker killed, tiles
    /// moved by measured load) needs it to last, and a fast machine ended the runs these
    /// tests were sized for before the interruption came.
    static func generations(_ generations: Int, lasting seconds: Double, _ arguments: [String]) throws -> Int {
        let clock = ContinuousClock(), start = clock.now
        let run = try tessera(arguments + ["--generations", "\(generations)"])
        guard run.status == 0 else { throw TesseraError("a run to time failed: \(run.stderr)") }
        let took = (clock.now - start) / .seconds(1)
        guard took < seconds else { return generations }
        return Int((Double(generations) * 1.5 * seconds / max(took, 0.01)).rounded(.up))
    }

    /// A new directory for one test's files, removed when the test process exits: every
    /// run of the suite had left hundreds in /tmp. (Each stays directly in /tmp: ZeroMQ
    /// ipc:// paths inside must keep within the 107 bytes a socket's path may have.)
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        made.withLock { made in
            if made.isEmpty { atexit { Harness.removeTemporaryDirectories() } }
            made.append(url)
        }
        return url
    }

    private static let made = Mutex<[URL]>([])

    private static func removeTemporaryDirectories() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }

    struct Cell: Hashable { let x: Int, y: Int }

    /// Live cells of an RLE / .cells / Life 1.06 / macrocell file, placed as Golly
    /// places them (on a bounded grid, where a pattern with no position is centred).
    static func cells(ofPatternFile url: URL) throws -> Set<Cell> {
        var cells = Set<Cell>()
        for part in try PatternFile.load(url.path).withStatesMade().placedParts(on: .torus) {
            for y in 0..<part.cells.height {
                for x in 0..<part.cells.width where part.cells[x, y] { cells.insert(Cell(x: part.left + x, y: part.top + y)) }
            }
        }
        return cells
    }

    static let bgolly: URL? = ["/usr/bin/bgolly", "/usr/games/bgolly", "/usr/local/bin/bgolly"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }

    /// Golly's board after `generations`: bgolly's HashLife writes macrocell, the one
    /// output format of bgolly that keeps absolute positions.
    static func golly(_ input: URL, generations: Int) throws -> Set<Cell> {
        guard let bgolly else {
            throw TesseraError("bgolly is not installed", fix: "apt-get install golly (the oracle for these tests)")
        }
        let output = input.deletingPathExtension().appendingPathExtension("golly-\(generations).mc")
        let result = try run(bgolly, ["-q", "-q", "-h", "-m", "\(generations)", "-o", output.path, input.path])
        guard result.status == 0 else { throw TesseraError("bgolly failed: \(result.stderr)") }
        return try cells(ofPatternFile: output)
    }

    /// A soup as a patch on Golly's unbounded plane (`patch.rle`): the soup file of
    /// `rule`'s bounded grid, its suffix taken off (its `Pos` keeps it where it lay).
    static func soupPatch(density: String, seed: Int, rule: String, in dir: URL) throws -> URL {
        let soup = try soupFile(density: density, seed: seed, rule: rule, in: dir)
        guard let colon = rule.firstIndex(of: ":") else { throw TesseraError("a soup patch needs a bounded grid to cut it from") }
        let patch = dir.appendingPathComponent("patch.rle")
        try String(contentsOf: soup, encoding: .utf8).replacingOccurrences(of: String(rule[colon...]), with: "")
            .write(to: patch, atomically: true, encoding: .utf8)
        return patch
    }

    /// A soup as a pattern file: Tessera's generation-0 board for `rule` (with its
    /// bounded-grid suffix), which bgolly then runs as it is.
    static func soupFile(density: String, seed: Int, rule: String, in dir: URL, name: String = "soup.rle") throws -> URL {
        let url = dir.appendingPathComponent(name)
        let made = try tessera(["run", "--soup", density, "--seed", "\(seed)", "--rule", rule, "--generations", "0", "--output", url.path])
        guard made.status == 0 else { throw TesseraError("could not write the soup: \(made.stderr)") }
        return url
    }

    /// Golly's board after `generations` by QuickLife, for rules HashLife refuses (B0
    /// without S8): its RLE output has no position, so only the shape (`shape(of:)`).
    static func gollyQuickLife(_ input: URL, generations: Int) throws -> Set<Cell> {
        guard let bgolly else {
            throw TesseraError("bgolly is not installed", fix: "apt-get install golly (the oracle for these tests)")
        }
        let output = input.deletingPathExtension().appendingPathExtension("golly-\(generations).rle")
        let result = try run(bgolly, ["-q", "-q", "-m", "\(generations)", "-o", output.path, input.path])
        guard result.status == 0 else { throw TesseraError("bgolly failed: \(result.stderr)") }
        return shape(of: try cells(ofPatternFile: output))
    }

    /// A file's `rule =`, as written.
    static func ruleLine(of file: URL) throws -> Substring? {
        let header = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("x =") }
        return header.flatMap { line in line.range(of: "rule = ").map { line[$0.upperBound...] } }
    }

    /// A file's cells in states other than 0, row by row, as [x, y, state] with their box
    /// moved to start at (0, 0); a two-state file's in state 1. Only the occupied cells:
    /// a rule file's pattern may span thousands of cells a side, and a synchronous test
    /// holds one of the task pool's threads as long as it computes.
    static func statesShape(of file: URL) throws -> [[Int]] {
        let pattern = try PatternFile.load(file.path).withStatesMade()
        if let states = pattern.states {
            let occupied = states.occupied
            guard let box = occupied.liveBounds else { return [] }
            var cells: [[Int]] = []
            for y in box.y..<box.y + box.height {
                occupied.forEachLive(inRow: y) { x in cells.append([x - box.x, y - box.y, states[x, y]]) }
            }
            return cells
        }
        return shape(of: try cells(ofPatternFile: file)).sorted { ($0.y, $0.x) < ($1.y, $1.x) }.map { [$0.x, $0.y, 1] }
    }

    /// Runs `input` `generations` generations in Tessera and in bgolly (`engine`: its
    /// `-a` and what goes with it), each writing RLE into `dir`, and expects both to
    /// succeed (`context` names the case in a failure); their two results.
    static func runBoth(_ input: URL, generations: Int, bgolly engine: [String], in dir: URL,
                        context: String = "", flags: [String] = []) throws -> (ours: URL, theirs: URL) {
        guard let bgolly else { throw TesseraError("bgolly is not installed", fix: "apt-get install golly") }
        let name = input.lastPathComponent
        let (ours, theirs) = (dir.appendingPathComponent("ours-\(name).rle"), dir.appendingPathComponent("golly-\(name).rle"))
        let run = try tessera(["run", input.path, "--generations", "\(generations)", "--output", ours.path] + flags)
        #expect(run.status == 0, "\(context) \(run.stderr)")
        let golly = try Harness.run(bgolly, ["-q", "-q"] + engine + ["-m", "\(generations)", "-o", theirs.path, input.path])
        #expect(golly.status == 0, "\(context) \(golly.stderr)")
        return (ours, theirs)
    }

    /// `cells` moved so that their bounding box starts at (0, 0).
    static func shape(of cells: Set<Cell>) -> Set<Cell> {
        let left = cells.map(\.x).min() ?? 0, top = cells.map(\.y).min() ?? 0
        return Set(cells.map { Cell(x: $0.x - left, y: $0.y - top) })
    }
}

extension Harness {
    typealias Background = RunningTessera
}

/// A process (`tessera` unless told otherwise) left running while a test pokes at it.
///
/// Started as the product starts its own (`ChildProcess`), not by Foundation's `Process`:
/// that one learns of a child's end from a socket it hands the child, made without
/// close-on-exec, so a program started meanwhile by another test's thread could inherit
/// it and keep the child "running" as long as it lived itself; and a daemon (tmux's
/// server) holds it for good.
final class RunningTessera {
    let child: ChildProcess
    let stdout: URL
    let stderr: URL

    convenience init(_ arguments: [String], in directory: URL? = nil) throws {
        try self.init(Harness.tessera, arguments, in: directory)
    }

    init(_ executable: URL, _ arguments: [String], in directory: URL? = nil, newProcessGroup: Bool = true) throws {
        // Output goes to files, not pipes, so a chatty child can never block on a full pipe.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bg-\(UUID().uuidString)")
        stdout = base.appendingPathExtension("out")
        stderr = base.appendingPathExtension("err")
        child = try ChildProcess.spawn([executable.path] + arguments, newProcessGroup: newProcessGroup,
                                       output: stdout.path, errors: stderr.path,
                                       environment: ["SWIFT_BACKTRACE": "enable=no"], directory: directory?.path)
    }

    var pid: Int32 { child.pid }

    var isRunning: Bool { !child.hasEnded }
    /// The endpoint a coordinator prints while it waits for its workers.
    func workerEndpoint() throws -> String {
        try Processes.poll(timeout: 30, "the coordinator's endpoint") {
            outputText.firstMatch(of: /waiting for \d+ workers on (tcp:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) }
        }
    }

    /// The endpoint a run prints for viewers (`--view-listen`).
    func viewerEndpoint() throws -> String {
        try Processes.poll(timeout: 30, "the viewer endpoint") {
            outputText.firstMatch(of: /view --connect (tcp:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) }
        }
    }
    /// The pids of the `count` worker processes this run started.
    func workerPids(_ count: Int = 2) throws -> [Int32] {
        try Processes.poll(timeout: 30, "\(count) worker processes") {
            let children = Processes.children(of: pid)
            return children.count == count ? children : nil
        }
    }

    var errorText: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }
    var outputText: String { (try? String(contentsOf: stdout, encoding: .utf8)) ?? "" }

    /// Waits for exit (killing the process after `timeout`) and returns the status.
    func wait(timeout: Double) -> Int32 {
        if child.waitBlocking(seconds: timeout) == nil { kill(pid, SIGKILL) }
        return waitUntilEnded()
    }

    /// Waits for exit: its status, or the signal that ended it.
    func waitUntilEnded() -> Int32 {
        switch child.waitBlocking() {
        case .exited(let status): status
        case .signalled(let signal): signal
        case nil: -1
        }
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
        for child in Processes.children(of: pid) { kill(child, SIGKILL) }
        try? FileManager.default.removeItem(at: stdout)
        try? FileManager.default.removeItem(at: stderr)
    }
}

/// What /proc says about processes.
enum Processes {
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// SIGTERM to `pid` and every process below it, children first.
    static func terminateTree(_ pid: Int32) {
        for child in children(of: pid) { terminateTree(child) }
        kill(pid, SIGTERM)
    }

    static func alive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie has exited; only its parent's wait is missing.
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    /// The TCP ports `pid` listens on: its sockets (/proc/PID/fd) that the kernel's
    /// table (/proc/PID/net/tcp) shows in state LISTEN.
    static func listeningPorts(_ pid: Int32) -> [Int] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(fds.compactMap { fd -> String? in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? ""
            return target.firstMatch(of: /socket:\[(\d+)\]/).map { String($0.1) }
        })
        let table = (try? String(contentsOfFile: "/proc/\(pid)/net/tcp", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                  let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { return nil }
            return port
        }
    }

    /// CPU seconds the process has used (user + system).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Polls the operating system's view until `condition` returns a value (there is no
    /// event to wait on for another process's state), failing after `timeout` seconds.
    static func poll<T>(timeout: Double, _ what: String, _ condition: () -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = condition() { return value }
            usleep(20_000)
        }
        throw TesseraError("timed out waiting for \(what)")
    }
}
