import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Testing

/// `FerryStore.withTurn`: one holder of a scope at a time across connections (as across processes), other scopes
/// free, a failed body's error passed on and its turn ended.
@Suite("fleet-wide turns", .tags(.postgres))
struct TurnTests {
    /// Counts the bodies running at once.
    final class Holders: Sendable {
        private let state = Mutex((now: 0, most: 0))

        var most: Int { state.withLock { $0.most } }

        func hold() async throws {
            state.withLock { state in
                state.now += 1
                state.most = max(state.most, state.now)
            }
            // Long enough for the other client's request to arrive while this one holds the turn.
            try await Task.sleep(for: .milliseconds(20))
            state.withLock { $0.now -= 1 }
        }
    }

    @Test("turns of one scope never overlap across clients; another scope runs meanwhile; a body's error ends its turn")
    func turnsDoNotOverlap() async throws {
        let db = try await TestDatabase.make("turns")
        // Two clients: two processes' pools.
        let (first, second) = (db.store(), db.store())
        defer {
            first.client.close()
            second.client.close()
        }
        let inside = Holders()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { try await store.withTurn("dropbox-commit:a") { try await inside.hold() } }
            }
            try await group.waitForAll()
        }
        #expect(inside.most == 1, "two holders of one turn at once")

        // While one client holds scope a, the other takes scope b at once (it would wait forever on a).
        try await first.withTurn("dropbox-commit:a") {
            let taken = try await second.withTurn("dropbox-commit:b") { "b" }
            #expect(taken == "b")
        }
        // A failing body: its error comes out, and the turn is free again.
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await first.withTurn("dropbox-commit:a") { throw Refused() } }
        #expect(try await second.withTurn("dropbox-commit:a") { 7 } == 7)
    }
}
