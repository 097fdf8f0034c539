import FerryTestSupport
import Foundation
import Postgres
import Testing

@testable import FerryWorker

/// How the worker tells a database that refuses writes (read-only, out of disk) from other errors, says so once,
/// and holds rescues until every worker could write a heartbeat again.
@Suite("database write refusals", .tags(.fast))
struct DatabaseWritesTests {
    static func serverError(_ state: SQLState) -> PostgresError {
        PostgresError(code: .server, reason: "rejected", sqlState: state)
    }

    @Test("25006 and 53100 are refusals (said once, announced); other errors and connection losses are not")
    func refusals() {
        let log = LogRecorder()
        let changes = ChangeLog()
        let writes = DatabaseWrites(logger: log.logger(label: "test")) { changes.append($0) }
        #expect(!writes.refused(Self.serverError(.uniqueViolation)))
        #expect(!writes.refused(PostgresError(code: .connectionLost, reason: "gone")))
        #expect(!writes.refused(CancellationError()))
        #expect(writes.accepting)
        #expect(writes.refused(Self.serverError(.readOnlySQLTransaction)))
        #expect(writes.refused(Self.serverError(.diskFull)))
        #expect(!writes.accepting && writes.refusal == .readOnlySQLTransaction)
        writes.accepted()
        writes.accepted()
        #expect(writes.accepting)
        #expect(writes.refused(Self.serverError(.diskFull)))
        #expect(changes.all == [.readOnlySQLTransaction, nil, .diskFull])
        let said = log.all.filter { $0.contains("the database refuses writes") }
        #expect(said.count == 2 && said[1].contains("disk is full"), "\(said)")
        #expect(log.all.filter { $0.contains("accepts writes again") }.count == 1)
    }

    @Test("no rescue while writes are refused, nor for the grace after they are accepted again")
    func rescueHeld() {
        let writes = DatabaseWrites(logger: LogRecorder().logger(label: "test"))
        #expect(writes.rescueAllowed(grace: .seconds(3600)), "never refused: rescue as usual")
        writes.refused(Self.serverError(.readOnlySQLTransaction))
        #expect(!writes.rescueAllowed(grace: .zero))
        writes.accepted()
        #expect(!writes.rescueAllowed(grace: .seconds(3600)))
        #expect(writes.rescueAllowed(grace: .zero))
    }
}
