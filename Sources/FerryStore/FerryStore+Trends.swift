import Foundation
import Postgres

extension FerryStore {
    /// Rolls the jobs finished since the last rollup into the trend counters (`ferry.roll_up_trends`); returns
    /// how many. Workers call it with their counter fold; one at a time does the work.
    @discardableResult
    public func rollUpTrends() async throws -> Int {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT ferry.roll_up_trends() AS rolled", []).rows[0].decode(Int.self, column: "rolled")
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
