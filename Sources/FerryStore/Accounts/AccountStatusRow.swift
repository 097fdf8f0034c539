import FerryCore
import Postgres

/// One account as `ferry.account_status` shows it: never its secrets.
public struct AccountStatusRow: Sendable, Hashable {
    public var name: String
    public var provider: String
    /// `active`, `needs_reauth` or `revoked`.
    public var status: String
    public var statusReason: String?
    public var updatedAt: PostgresTimestamp
    /// The account's jobs wait until `ferry account login` makes it active again.
    public var needsLogin: Bool
    /// Queued jobs the account holds (`nil` for an active account).
    public var heldJobs: Int64?
    /// Jobs of the account that may run at once across the fleet.
    public var maxConcurrent: Int
    /// Requests per second (`tps_limit`) and bytes per second (`bwlimit`) for the whole fleet, when limited.
    public var requestLimit: Double?
    public var bandwidthLimit: Int64?

    static let columns = """
        name, provider, status, status_reason, updated_at, needs_login, held_jobs, max_concurrent,
        (settings->>'tps_limit')::float8 AS tps_limit, (settings->>'bwlimit')::bigint AS bwlimit
        """

    init(row: PostgresRow) throws {
        name = try row.decode(String.self, column: "name")
        provider = try row.decode(String.self, column: "provider")
        status = try row.decode(String.self, column: "status")
        statusReason = try row.decode(String?.self, column: "status_reason")
        updatedAt = try row.decode(PostgresTimestamp.self, column: "updated_at")
        needsLogin = try row.decode(Bool.self, column: "needs_login")
        heldJobs = try row.decode(Int64?.self, column: "held_jobs")
        maxConcurrent = Int(try row.decode(Int64.self, column: "max_concurrent"))
        requestLimit = try row.decode(Double?.self, column: "tps_limit")
        bandwidthLimit = try row.decode(Int64?.self, column: "bwlimit")
    }

    public var json: JSONValue {
        .object([
            "name": .string(name), "provider": .string(provider), "status": .string(status),
            "status_reason": statusReason.map(JSONValue.string) ?? .null, "updated_at": .string(updatedAt.iso8601),
            "needs_login": .bool(needsLogin), "held_jobs": heldJobs.map(JSONValue.int) ?? .null,
            "max_concurrent": .int(Int64(maxConcurrent)), "tps_limit": requestLimit.map(JSONValue.double) ?? .null,
            "bwlimit": bandwidthLimit.map(JSONValue.int) ?? .null,
        ])
    }
}
