import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The store's reading of PostgreSQL's errors (`FerryStoreError(classifying:)`), which the CLI, the worker and the
/// client branch on instead of the driver's `PostgresError`.
@Suite("store errors from PostgreSQL", .tags(.fast))
struct StoreErrorMappingTests {
    static func server(_ state: SQLState, message: String = "msg", hint: String? = nil) -> PostgresError {
        PostgresError(code: .server, reason: "the server rejected the statement", sqlState: state, serverMessage: message, hint: hint)
    }

    @Test(
        "connection classes and shutdowns are connectionLost; 25006 readOnly; 53100 diskFull; 42501 permissionDenied; others database",
        arguments: [
            ("08006", FerryStoreError.Code.connectionLost), ("08001", .connectionLost), ("57P01", .connectionLost),
            ("57P02", .connectionLost), ("57P03", .connectionLost), ("25006", .readOnly), ("53100", .diskFull),
            ("42501", .permissionDenied), ("23505", .database), ("57014", .database), ("FY001", .database),
        ])
    func bySQLState(state: String, code: FerryStoreError.Code) throws {
        let mapped = try #require(FerryStoreError(classifying: Self.server(SQLState(state))))
        #expect(mapped.code == code)
        #expect(mapped.sqlState == state)
        #expect(FerryStoreError.code(of: Self.server(SQLState(state))) == code)
        #expect(mapped.refusesWrites == (code == .readOnly || code == .diskFull))
    }

    @Test("the driver's own kinds: a refused login, a failed connect with the server's first line as the fix, a lost connection")
    func byDriverCode() throws {
        let login = try #require(FerryStoreError(classifying: PostgresError(code: .loginRefused, reason: "password authentication failed")))
        #expect(login.code == .loginRefused && login.message == "password authentication failed")
        let failed = try #require(FerryStoreError(classifying: PostgresError(
            code: .connectionFailed, reason: "could not connect", serverMessage: "connection refused\n\tIs the server running?")))
        #expect(failed.code == .connectionLost && failed.fix == "connection refused")
        let lost = try #require(FerryStoreError(classifying: PostgresError(code: .connectionLost, reason: "server closed the connection")))
        #expect(lost.code == .connectionLost && lost.fix == nil && lost.sqlState == nil)
    }

    @Test("a privilege refusal keeps the server's message and hint (they name roles, never values); other messages stay out")
    func messages() throws {
        let denied = try #require(FerryStoreError(classifying: Self.server(.insufficientPrivilege, message: "permission denied for table jobs", hint: "log in as ferry_worker")))
        #expect(denied.message == "permission denied for table jobs" && denied.fix == "log in as ferry_worker")
        // A unique violation's server message may quote the value: the mapped error carries the safe description.
        let unique = try #require(FerryStoreError(classifying: Self.server(.uniqueViolation, message: "duplicate key value (secret-value)")))
        #expect(!unique.description.contains("secret-value"), "\(unique)")
    }

    @Test("the store's own errors pass through; errors from elsewhere are not the store's")
    func passThrough() {
        let own = FerryStoreError(.notFound, "no such job")
        #expect(FerryStoreError(classifying: own)?.code == .notFound)
        #expect(FerryStoreError(classifying: CancellationError()) == nil)
        #expect(FerryStoreError.code(of: URLError(.timedOut)) == nil)
    }

    @Test("no module outside FerryStore and Postgres catches PostgresError: they branch on FerryStoreError")
    func noDriverErrorsOutsideTheStore() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources").path
        var offenders = [String]()
        for module in try FileManager.default.contentsOfDirectory(atPath: sources) where !["FerryStore", "Postgres"].contains(module) {
            guard let walker = FileManager.default.enumerator(atPath: sources + "/" + module) else { continue }
            while let file = walker.nextObject() as? String {
                guard file.hasSuffix(".swift") else { continue }
                let text = try String(contentsOfFile: sources + "/" + module + "/" + file, encoding: .utf8)
                if text.contains("PostgresError") { offenders.append(module + "/" + file) }
            }
        }
        #expect(offenders.isEmpty, "use FerryStoreError(classifying:) or FerryStoreError.code(of:): \(offenders)")
    }
}
