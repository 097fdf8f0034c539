import FerryStore
import Foundation
import Postgres
import Synchronization

/// What `/ready` answers: whether this worker can take jobs now.
///
/// Ready means the worker is running (it found the schema it needs and registered) and, checked live, the
/// database answers and its schema is at least `expectedSchema`. The live check is one small query on the
/// worker's pool, reused for a second and given up after `timeout`, so a flood of probes or a hung network
/// costs the database nothing and never blocks the probe.
public final class WorkerReadiness: Sendable {
    /// Where the worker is in its life.
    public enum Phase: Sendable, Equatable {
        /// Waiting for PostgreSQL or for `ferry migrate`; the text says which.
        case starting(String)
        case running
        case stopping
    }

    /// One answer of `/ready`.
    public struct Answer: Sendable, Equatable {
        public var ready: Bool
        public var detail: String
    }

    let store: FerryStore
    let expectedSchema: Int
    let timeout: Duration
    let cacheFor: Duration
    private let state: Mutex<(phase: Phase, cached: (answer: Answer, at: ContinuousClock.Instant)?)>
    /// Why the database refuses the worker's writes, while it does (the live check reads, which a read-only
    /// server still answers).
    private let writeRefusal = Mutex<String?>(nil)

    public init(
        store: FerryStore, expectedSchema: Int = FerryRelease.schemaVersion, timeout: Duration = .seconds(2),
        cacheFor: Duration = .seconds(1)
    ) {
        self.store = store
        self.expectedSchema = expectedSchema
        self.timeout = timeout
        self.cacheFor = cacheFor
        self.state = Mutex((.starting("starting"), nil))
    }

    public var phase: Phase { state.withLock { $0.phase } }

    public func waiting(_ reason: String) { set(.starting(reason)) }
    public func workerRunning() { set(.running) }
    public func workerStopping() { set(.stopping) }

    /// The worker found the database refusing its writes (`reason` says why), or accepting them again (nil): not
    /// ready meanwhile, since it claims nothing.
    public func databaseRefusesWrites(_ reason: String?) { writeRefusal.withLock { $0 = reason } }

    private func set(_ phase: Phase) {
        state.withLock {
            $0.phase = phase
            $0.cached = nil
        }
    }

    /// The current answer: from the phase, else from a live check of the database (cached for `cacheFor`).
    public func check() async -> Answer {
        let now = ContinuousClock.now
        let (phase, cached) = state.withLock { ($0.phase, $0.cached) }
        switch phase {
        case .starting(let reason): return Answer(ready: false, detail: reason)
        case .stopping: return Answer(ready: false, detail: "stopping: draining running jobs")
        case .running: break
        }
        if let refusal = writeRefusal.withLock({ $0 }) {
            return Answer(ready: false, detail: "database refuses writes (\(refusal)): claiming nothing until it accepts them")
        }
        if let cached, now - cached.at < cacheFor { return cached.answer }
        let answer = await liveCheck()
        state.withLock { state in
            if state.phase == .running { state.cached = (answer, ContinuousClock.now) }
        }
        return answer
    }

    private func liveCheck() async -> Answer {
        let expected = expectedSchema
        let store = self.store
        let result = await Self.first(within: timeout) { try await store.appliedSchemaVersion() }
        switch result {
        case nil:
            return Answer(ready: false, detail: "database did not answer within \(timeout)")
        case .failure(let error):
            return Answer(ready: false, detail: "database unreachable (\(Self.publicReason(error)))")
        case .success(let found) where found < expected:
            return Answer(ready: false, detail: "schema \(found) is older than \(expected); run `ferry migrate`")
        case .success(let found):
            return Answer(ready: true, detail: "ready (schema \(found))")
        }
    }

    /// What `/ready` may say about a failure to anyone who can reach it: the kind and SQLSTATE, never libpq's text
    /// (it names the server's host and port and the login role). The worker's log keeps the whole reason.
    static func publicReason(_ error: any Error) -> String {
        guard let error = FerryStoreError(classifying: error) else { return "error" }
        return error.code.rawValue + (error.sqlState.map { " [SQLSTATE \($0)]" } ?? "")
    }

    /// The result of `body`, or nil when it takes longer than `limit`. `body` keeps running in the background
    /// (a libpq call cannot be interrupted), but the caller does not wait for it.
    static func first<T: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let (answers, continuation) = AsyncStream<Result<T, any Error>?>.makeStream()
        Task {
            do { continuation.yield(.success(try await body())) } catch { continuation.yield(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.yield(nil)
        }
        defer {
            timer.cancel()
            continuation.finish()
        }
        for await answer in answers { return answer }
        return nil
    }
}
