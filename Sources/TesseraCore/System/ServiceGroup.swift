/// A process's lifecycle as one task group, in the shape of swift-service-lifecycle's
/// `ServiceGroup` (a few lines where that package would bring swift-log and
/// swift-async-algorithms into every process): the services run as children beside a
/// main body, and when the body ends, however it ends, they are cancelled and awaited, so
/// none outlives it. Signals reach their handler from a child of the same group, in order.
///
///     var group = ServiceGroup()
///     group.add { await coordinator.serve() }
///     group.onSignals { signal in await coordinator.cancel("interrupted") }
///     let outcome = try await group.run { try await coordinator.advance(generations) }
package struct ServiceGroup: Sendable {
    private var services: [@Sendable () async -> Void] = []

    package init() {}

    /// A child that runs until it ends by itself or the body ends.
    package mutating func add(_ service: @escaping @Sendable () async -> Void) {
        services.append(service)
    }

    /// A child that hands each of `signals` that arrives to `handler`, one at a time,
    /// until the body ends. The signals are caught from the moment `run` starts.
    package mutating func onSignals(_ signals: [Int32] = Signals.stopping, _ handler: @escaping @Sendable (Int32) async -> Void) {
        add {
            for await signal in Signals.stream(signals) { await handler(signal) }
        }
    }

    /// Runs `body` in this task with the services beside it; its result (or its error)
    /// once every service has stopped.
    package func run<T, E: Error>(isolation: isolated (any Actor)? = #isolation,
                                  _ body: () async throws(E) -> T) async throws(E) -> T {
        let result = await withTaskGroup(of: Void.self, returning: Result<T, E>.self, isolation: isolation) { group in
            for service in services { group.addTask(operation: service) }
            defer { group.cancelAll() }
            do throws(E) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The first value one of `contenders` gives; the others are then cancelled and
    /// awaited. A contender that ends with nil drops out; nil when every one did.
    package static func first<T: Sendable>(of contenders: [@Sendable () async -> T?]) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            for contender in contenders { group.addTask(operation: contender) }
            defer { group.cancelAll() }
            for await result in group {
                if let result { return result }
            }
            return nil
        }
    }
}
