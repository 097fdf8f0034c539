import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// The account a job enqueued from SQL uses, as its provider settles it: the named account, which must exist
    /// and belong to `provider`, or else the only usable account of `provider` (Flickr's API key).
    ///
    /// - Throws: `FerryStoreError` with code `unknownAccount`, naming the problem and the fix.
    public func settleAccount(named name: String?, provider: String) async throws -> String {
        do {
            return try await client.withConnection { connection in
                if let name {
                    let found = try connection.query("SELECT provider FROM ferry.accounts WHERE name = $1", [name])
                    guard let row = found.rows.first else {
                        throw FerryStoreError(
                            .unknownAccount, "unknown account '\(name)'",
                            fix: "add it with ferry account add \(name) --provider \(provider) …, or check the name with ferry account list")
                    }
                    let actual = try row.decode(String.self, column: "provider")
                    guard actual == provider else {
                        throw FerryStoreError(
                            .unknownAccount, "account '\(name)' is a \(actual) account, not \(provider)",
                            fix: "name a \(provider) account (see ferry account list)")
                    }
                    return name
                }
                let found = try connection.query(
                    "SELECT name FROM ferry.accounts WHERE provider = $1 AND status <> 'revoked' ORDER BY name LIMIT 2", [provider])
                let names = try found.rows.map { try $0.decode(String.self, column: "name") }
                guard names.count == 1 else {
                    throw FerryStoreError(
                        .unknownAccount, names.isEmpty ? "no \(provider) account to use" : "several \(provider) accounts; say which",
                        fix: names.isEmpty
                            ? "add one with ferry account add NAME --provider \(provider) (see ferry account add --help)"
                            : "pass \"account\" in the options of ferry.enqueue")
                }
                return names[0]
            }
        } catch let error as FerryStoreError {
            throw error
        } catch {
            throw Self.translate(error)
        }
    }
}
