import TesseraCluster
import TesseraCore

extension RunRequest {
    /// The keys a config file may set: the long flags of the command this request is for.
    package var configKeys: [String] {
        let common = ["pattern", "size", "topology", "rule", "soup", "seed", "tiles", "halo",
                      "workers", "connect-timeout", "silence", "no-balance", "max-restarts",
                      "generations", "output", "report", "view-listen", "frames", "every", "gif",
                      "checkpoint", "checkpoint-every", "resume", "keys", "insecure"]
        return switch cluster {
        case .here: common + ["head-start", "algorithm", "memory", "step"]
        case .awaited: common + ["listen"]
        }
    }

    /// Reads the config file at `path` into what the flags left out (flags win), then
    /// checks the whole request again.
    package mutating func apply(configAt path: String) throws {
        try apply(ConfigFile(path: path, allowed: configKeys))
    }

    package mutating func apply(_ config: ConfigFile) throws {
        pattern = pattern ?? config["pattern"]
        size = try size ?? config["size"].map(BoardSize.init(parsing:))
        topology = try topology ?? config["topology"].map { text in
            guard let topology = Topology(rawValue: text.lowercased()) else {
                throw TesseraError("\(config.path): unknown topology '\(text)'", fix: "write topology = \"torus\", \"plane\" or \"infinite\"")
            }
            return topology
        }
        rule = try rule ?? config["rule"].map(RuleChoice.init(parsing:))
        tiles = try tiles ?? config["tiles"].map(TileGrid.init(parsing:))
        soup = try soup ?? config.number("soup", as: Double.self)
        seed = try seed ?? config.number("seed", as: UInt64.self)
        halo = try halo ?? config.number("halo", as: Int.self)

        workers = try workers ?? config.number("workers", as: Int.self)
        connectTimeout = try connectTimeout ?? config["connect-timeout"].map { try Seconds(parsing: $0, flag: "connect-timeout") }
        silence = try silence ?? config["silence"].map { try Seconds(parsing: $0, flag: "silence") }
        if config["no-balance"] == "true", balancing == .standard { balancing = .off }
        maxRestarts = try maxRestarts ?? config.number("max-restarts", as: Int.self)

        generations = try generations ?? config.number("generations", as: UInt64.self)
        output = output ?? config["output"]
        report = report || config["report"] == "true"
        viewListen = viewListen ?? config["view-listen"]
        frames = frames ?? config["frames"]
        every = try every ?? config.number("every", as: UInt64.self)
        gif = gif ?? config["gif"]

        checkpoint = checkpoint ?? config["checkpoint"]
        checkpointEvery = try checkpointEvery ?? config["checkpoint-every"].map(CheckpointSchedule.Interval.init(parsing:))
        resume = resume ?? config["resume"]

        keys = keys ?? config["keys"]
        insecure = insecure || config["insecure"] == "true"

        switch cluster {
        case .here:
            headStart = try headStart ?? config.value("head-start", Bool.init, problem: "is neither true nor false",
                                                      fix: "write head-start = true or false")
            algorithm = try algorithm ?? config.value("algorithm", Algorithm.init(rawValue:), problem: "is not an algorithm",
                                                      fix: "write algorithm = \"tiles\", \"hashlife\" or \"auto\"")
            memory = try memory ?? config.value("memory", { Int($0) }, problem: "is not a size in MiB", fix: "write memory = 512")
            step = try step ?? config.value("step", { UInt64($0) }, problem: "is not a number of generations", fix: "write step = 1024")
        case .awaited(let listen, let externalPresenter):
            cluster = .awaited(listen: listen ?? config["listen"], externalPresenter: externalPresenter)
        }
        try validate()
    }
}
