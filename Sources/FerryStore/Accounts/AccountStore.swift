import FerryCore
import Foundation
import Postgres

/// The account aggregate: credentials sealed at rest, history in `ferry.account_events`, and one token
/// refresher per account across the whole fleet. Reached as `store.accounts`.
public struct AccountStore: Sendable {
    let client: PostgresClient

    static func sealContext(_ account: String, _ field: String) -> String { "ferry.accounts/\(account)/\(field)" }

    /// Adds an account. Without a refresh token it waits for `ferry account login` (status `needs_reauth`).
    public func add(_ account: NewAccount, box: SecretBox, by actor: String) async throws {
        let seal = { (value: String?, field: String) throws -> PostgresBytes? in
            try value.map { PostgresBytes(try box.seal($0, context: Self.sealContext(account.name, field))) }
        }
        let linked = account.refreshToken != nil || account.linkedWithoutLogin
        let secrets = account.secrets.isEmpty ? nil : AccountSecrets.text(account.secrets)
        let binds: [any PostgresBindable] = [
            account.name, account.provider, account.appKey, try seal(secrets, AccountSecrets.field),
            try seal(account.refreshToken, "refresh_token"), try seal(account.accessToken, "access_token"),
            account.accessTokenExpiresAt, box.key.id, account.apiURL, account.contentURL, account.authorizeURL,
            account.providerAccountID, linked ? "active" : "needs_reauth",
            linked ? nil : "not linked yet", account.maxConcurrent ?? 4,
            PostgresJSON(text: JSONValue.object(account.settings).jsonText),
            PostgresJSON(text: JSONValue.object([
                "provider": .string(account.provider), "by": .string(actor), "linked": .bool(linked),
                "app_key": account.appKey.map(JSONValue.string) ?? .null, "settings": .object(account.settings),
            ]).jsonText),
        ]
        do {
            try await client.withTransaction { connection in
                _ = try connection.query(
                    """
                    INSERT INTO ferry.accounts (name, provider, app_key, secrets_sealed, refresh_token_sealed,
                        access_token_sealed, access_token_issued_at, access_token_expires_at, key_id, api_url,
                        content_url, authorize_url, provider_account_id, status, status_reason, max_concurrent, settings)
                    VALUES ($1, $2, $3, $4::bytea, $5::bytea, $6::bytea, CASE WHEN $6::bytea IS NULL THEN NULL ELSE now() END,
                        $7::timestamptz, $8, $9, $10, $11, $12, $13, $14, $15::integer, $16::jsonb)
                    """, Array(binds.prefix(16)))
                _ = try connection.query(
                    "INSERT INTO ferry.account_events (account, type, data) VALUES ($1, 'added', $2)",
                    [account.name, binds[16]])
            }
        } catch let error as PostgresError where error.sqlState == .uniqueViolation {
            throw FerryStoreError(
                .accountExists, "account '\(account.name)' exists already",
                fix: "pick another name, or link it again with ferry account login \(account.name)")
        } catch let error as PostgresError where error.sqlState == .checkViolation {
            throw FerryStoreError(
                .credentials, "account '\(account.name)' was refused (constraint \(error.constraint ?? "?"))",
                fix: "names are letters, digits, _ . - (up to 63); see ferry account add --help for the providers")
        } catch {
            throw Self.ownerOnly("ferry account add", error)
        }
    }

    /// Stores fresh credentials from a login and makes the account usable again: its held jobs become claimable.
    public func link(
        _ name: String, refreshToken: String, accessToken: String?, accessTokenExpiresAt: Date?,
        providerAccountID: String?, box: SecretBox, by actor: String
    ) async throws {
        let binds: [any PostgresBindable] = [
            name, PostgresBytes(try box.seal(refreshToken, context: Self.sealContext(name, "refresh_token"))),
            try accessToken.map { PostgresBytes(try box.seal($0, context: Self.sealContext(name, "access_token"))) },
            accessTokenExpiresAt, box.key.id, providerAccountID,
            PostgresJSON(text: JSONValue.object([
                "by": .string(actor), "provider_account_id": providerAccountID.map(JSONValue.string) ?? .null,
                "access_token_expires_at": accessTokenExpiresAt.map { .string(ScheduleTime.iso8601($0)) } ?? .null,
            ]).jsonText),
        ]
        let updated: Bool
        do {
            updated = try await linkRow(binds)
        } catch {
            throw Self.ownerOnly("ferry account login", error)
        }
        guard updated else { throw Self.unknownAccount(name) }
    }

    private func linkRow(_ binds: [any PostgresBindable]) async throws -> Bool {
        let name = binds[0]
        return try await client.withTransaction { connection in
            let result = try connection.query(
                """
                UPDATE ferry.accounts
                   SET refresh_token_sealed = $2::bytea, access_token_sealed = $3::bytea,
                       access_token_issued_at = CASE WHEN $3::bytea IS NULL THEN NULL ELSE now() END,
                       access_token_expires_at = $4::timestamptz, key_id = $5,
                       provider_account_id = coalesce($6, provider_account_id),
                       status = 'active', status_reason = NULL, updated_at = now()
                 WHERE name = $1
                """, Array(binds.prefix(6)))
            guard result.affectedRows == 1 else { return false }
            _ = try connection.query(
                "INSERT INTO ferry.account_events (account, type, data) VALUES ($1, 'linked', $2)", [name, binds[6]])
            // Held jobs of this account are claimable now: wake the workers.
            _ = try connection.query("SELECT pg_notify('ferry_jobs', '')")
            return true
        }
    }

    /// Every account, without secrets.
    public func all() async throws -> [AccountRecord] {
        try await records(where: "TRUE", [])
    }

    /// One account, without secrets.
    public func named(_ name: String) async throws -> AccountRecord? {
        try await records(where: "a.name = $1", [name]).first
    }

    private func records(where condition: String, _ binds: [any PostgresBindable]) async throws -> [AccountRecord] {
        // translate: on a database without the schema, "run ferry migrate", not a raw SQLSTATE.
        do {
            return try await selectRecords(where: condition, binds)
        } catch {
            throw FerryStore.translate(error)
        }
    }

    private func selectRecords(where condition: String, _ binds: [any PostgresBindable]) async throws -> [AccountRecord] {
        try await client.withConnection { connection in
            try connection.query(
                """
                SELECT a.name, a.provider, a.app_key, a.status, a.status_reason, a.api_url, a.content_url,
                       a.authorize_url, a.provider_account_id, a.max_concurrent, a.has_secrets,
                       a.has_refresh_token, a.access_token_expires_at, a.created_at, a.updated_at,
                       (SELECT count(*) FROM ferry.jobs j
                         WHERE j.account = a.name AND j.state IN ('queued', 'running')) AS unfinished_jobs,
                       a.settings::text AS settings
                  FROM ferry.account_status a
                 WHERE \(condition)
                 ORDER BY a.name
                """, binds
            ).rows.map(AccountRecord.init(row:))
        }
    }

    /// The account's recent history, newest last.
    public func events(of name: String, limit: Int = 20) async throws -> [AccountEvent] {
        do {
            return try await selectEvents(of: name, limit: limit)
        } catch {
            throw FerryStore.translate(error)
        }
    }

    private func selectEvents(of name: String, limit: Int) async throws -> [AccountEvent] {
        try await client.withConnection { connection in
            try connection.query(
                """
                SELECT type, data::text AS data, recorded_at FROM (
                    SELECT position, type, data, recorded_at FROM ferry.account_events
                     WHERE account = $1 ORDER BY position DESC LIMIT $2) e
                 ORDER BY position
                """, [name, limit]
            ).rows.map {
                AccountEvent(
                    type: try $0.decode(column: "type"), data: try $0.decode(column: "data"),
                    recordedAt: try $0.decode(column: "recorded_at"))
            }
        }
    }

    /// Removes an account that no unfinished job uses.
    public func remove(_ name: String, by actor: String) async throws {
        let outcome: Int?
        do {
            outcome = try await removeRow(name, by: actor)
        } catch {
            throw Self.ownerOnly("ferry account remove", error)
        }
        switch outcome {
        case nil: throw Self.unknownAccount(name)
        case let count? where count > 0:
            throw FerryStoreError(
                .accountInUse, "account '\(name)' still has \(count) unfinished job(s)",
                fix: "wait for them, or cancel them (ferry cancel …) before removing the account")
        default: return
        }
    }

    private func removeRow(_ name: String, by actor: String) async throws -> Int? {
        try await client.withTransaction { connection -> Int? in
            guard try connection.query("SELECT 1 FROM ferry.accounts WHERE name = $1 FOR UPDATE", [name]).first != nil else {
                return nil
            }
            let unfinished = try connection.query(
                "SELECT count(*) FROM ferry.jobs WHERE account = $1 AND state IN ('queued', 'running')", [name]
            ).first!.decode(Int.self, at: 0)
            guard unfinished == 0 else { return unfinished }
            _ = try connection.query("DELETE FROM ferry.accounts WHERE name = $1", [name])
            _ = try connection.query(
                "INSERT INTO ferry.account_events (account, type, data) VALUES ($1, 'removed', jsonb_build_object('by', $2::text))",
                [name, actor])
            return 0
        }
    }

    /// Changes an account's cap and endpoints in place, recorded as an `updated` account event naming the fields
    /// (values too: none is secret). Takes effect at the next claim of every worker; workers waiting on the old cap
    /// are woken (`NOTIFY ferry_jobs`). Returns the account as it is now.
    @discardableResult
    public func update(_ name: String, _ changes: AccountChanges, by actor: String) async throws -> AccountRecord {
        let changed: Bool
        do {
            changed = try await updateRow(name, changes, by: actor)
        } catch {
            throw Self.ownerOnly("ferry account update", error)
        }
        guard changed, let account = try await named(name) else { throw Self.unknownAccount(name) }
        return account
    }

    private func updateRow(_ name: String, _ changes: AccountChanges, by actor: String) async throws -> Bool {
        try await client.withTransaction { connection -> Bool in
            let result = try connection.query(
                """
                UPDATE ferry.accounts
                   SET max_concurrent = coalesce($2, max_concurrent), api_url = coalesce($3, api_url),
                       content_url = coalesce($4, content_url), authorize_url = coalesce($5, authorize_url),
                       settings = CASE WHEN $7::bigint IS NULL THEN s.settings
                                       WHEN $7::bigint = 0 THEN s.settings - 'bwlimit'
                                       ELSE s.settings || jsonb_build_object('bwlimit', $7::bigint) END
                                  || CASE WHEN $8::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('endpoint_url', $8::text) END,
                       updated_at = now()
                  FROM (SELECT CASE WHEN $6::float8 IS NULL THEN a.settings
                                    WHEN $6::float8 = 0 THEN a.settings - 'tps_limit'
                                    ELSE a.settings || jsonb_build_object('tps_limit', $6::float8) END AS settings
                          FROM ferry.accounts a WHERE a.name = $1) s
                 WHERE name = $1
                """, [name, changes.maxConcurrent, changes.apiURL, changes.contentURL, changes.authorizeURL, changes.tpsLimit,
                      changes.bandwidthLimit, changes.endpointURL])
            guard result.affectedRows == 1 else { return false }
            _ = try connection.query(
                """
                INSERT INTO ferry.account_events (account, type, data)
                SELECT $1, 'updated', jsonb_strip_nulls(jsonb_build_object(
                           'by', $2::text, 'max_concurrent', $3::integer, 'api_url', $4::text, 'content_url', $5::text,
                           'authorize_url', $6::text, 'tps_limit', $7::float8, 'bwlimit', $8::bigint, 'endpoint_url', $9::text))
                """, [name, actor, changes.maxConcurrent, changes.apiURL, changes.contentURL, changes.authorizeURL, changes.tpsLimit,
                      changes.bandwidthLimit, changes.endpointURL])
            _ = try connection.query("SELECT pg_notify('ferry_jobs', '')")
            return true
        }
    }

    /// The account's requests-per-second limit (`settings.tps_limit`), or nil for none.
    public func requestLimit(of name: String) async throws -> Double? {
        let rows = try await client.withConnection { connection in
            try connection.query("SELECT (settings->>'tps_limit')::float8 FROM ferry.accounts WHERE name = $1", [name]).rows
        }
        return try rows.first?.decode(Double?.self, at: 0)
    }

    /// The account's bandwidth limit in bytes per second for the whole fleet (`settings.bwlimit`), or nil for none.
    public func bandwidthLimit(of name: String) async throws -> Int64? {
        do {
            let rows = try await client.withConnection { connection in
                try connection.query("SELECT (settings->>'bwlimit')::bigint FROM ferry.accounts WHERE name = $1", [name]).rows
            }
            return try rows.first?.decode(Int64?.self, at: 0)
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Forgets the tokens after a sign-out; jobs are held until the next login.
    public func markRevoked(_ name: String, revokedAtProvider: Bool, by actor: String) async throws {
        let changed: Bool
        do {
            changed = try await revokeRow(name, revokedAtProvider: revokedAtProvider, by: actor)
        } catch {
            throw Self.ownerOnly("ferry account revoke", error)
        }
        guard changed else { throw Self.unknownAccount(name) }
    }

    private func revokeRow(_ name: String, revokedAtProvider: Bool, by actor: String) async throws -> Bool {
        try await client.withTransaction { connection in
            let result = try connection.query(
                """
                UPDATE ferry.accounts
                   SET refresh_token_sealed = NULL, access_token_sealed = NULL, access_token_issued_at = NULL,
                       access_token_expires_at = NULL, status = 'revoked', status_reason = 'signed out',
                       updated_at = now()
                 WHERE name = $1
                """, [name])
            guard result.affectedRows == 1 else { return false }
            _ = try connection.query(
                """
                INSERT INTO ferry.account_events (account, type, data)
                VALUES ($1, 'revoked', jsonb_build_object('by', $2::text, 'at_provider', $3::boolean))
                """, [name, actor, revokedAtProvider])
            return true
        }
    }

    /// The account's opened credentials (no lock; see `refreshAccessToken` for changing them).
    public func credentials(for name: String, box: SecretBox) async throws -> AccountCredentials {
        let sealed = try await client.withConnection { connection in
            try connection.query("SELECT \(SealedAccountRow.columns) FROM ferry.accounts WHERE name = $1", [name])
                .first.map(SealedAccountRow.init(row:))
        }
        guard let sealed else { throw Self.unknownAccount(name) }
        return try sealed.open(box)
    }

    /// Gets a fresh access token, refreshing it if needed: under a row lock on the account, so across every worker
    /// on every machine only one refresh per account runs at a time and the others reuse its result.
    ///
    /// - Parameters:
    ///   - stale: a token the provider just rejected as expired; it is refreshed even if it looks fresh.
    ///   - refresh: asks the provider (called with the lock held, at most once).
    /// - Returns: credentials with a fresh access token.
    /// - Throws: `FerryStoreError(.accountNeedsReauthorization)` when the account is (or just became) unusable.
    public func refreshAccessToken(
        account name: String, box: SecretBox, replacing stale: String?, by actor: String,
        refresh: (AccountCredentials) async throws -> AccountTokenRefresh
    ) async throws -> AccountCredentials {
        enum Outcome: Sendable { case fresh(AccountCredentials), rejected(String) }
        let outcome: Outcome = try await client.withHeldTransaction { transaction in
            let sealed = try await transaction.run { connection in
                // A refresher that hangs must not freeze every other worker of the account forever.
                try connection.execute("SET LOCAL lock_timeout = '90s'")
                return try connection.query(
                    "SELECT \(SealedAccountRow.columns) FROM ferry.accounts WHERE name = $1 FOR NO KEY UPDATE", [name]
                ).first.map(SealedAccountRow.init(row:))
            }
            guard let sealed else { throw Self.unknownAccount(name) }
            var credentials = try sealed.open(box)
            guard credentials.status == .active else { return .rejected(credentials.statusReason ?? credentials.status.rawValue) }
            // Someone refreshed while we waited for the lock: use theirs.
            if credentials.accessTokenIsFresh(), credentials.accessToken != stale { return .fresh(credentials) }
            guard credentials.refreshToken != nil else {
                throw FerryStoreError(.credentials, "account '\(name)' has no refresh token", fix: "run ferry account login \(name)")
            }
            switch try await refresh(credentials) {
            case .granted(let token, let expiresAt, let offered):
                let sealedToken = PostgresBytes(try box.seal(token, context: Self.sealContext(name, "access_token")))
                // A rotated refresh token replaces the stored one; the same one sent back changes nothing.
                let rotated = offered.flatMap { $0.isEmpty || $0 == credentials.refreshToken ? nil : $0 }
                let sealedRefresh = try rotated.map { PostgresBytes(try box.seal($0, context: Self.sealContext(name, "refresh_token"))) }
                let keyID = box.key.id
                let issuedAt = try await transaction.run { connection in
                    let issued = try connection.query(
                        """
                        UPDATE ferry.accounts
                           SET access_token_sealed = $2, access_token_issued_at = now(), access_token_expires_at = $3,
                               key_id = $4, refresh_token_sealed = coalesce($5::bytea, refresh_token_sealed), updated_at = now()
                         WHERE name = $1
                        RETURNING access_token_issued_at
                        """, [name, sealedToken, expiresAt, keyID, sealedRefresh]
                    ).first!.decode(Date.self, at: 0)
                    _ = try connection.query(
                        """
                        INSERT INTO ferry.account_events (account, type, data)
                        VALUES ($1, 'token_refreshed', jsonb_build_object('expires_at', $2::timestamptz, 'by', $3::text,
                                                                          'refresh_token_rotated', $4::boolean))
                        """, [name, expiresAt, actor, rotated != nil])
                    return issued
                }
                if let rotated { credentials.refreshToken = rotated }
                credentials.accessToken = token
                credentials.accessTokenExpiresAt = expiresAt
                credentials.accessTokenIssuedAt = issuedAt
                return .fresh(credentials)
            case .rejected(let reason):
                try await transaction.run { connection in
                    _ = try connection.query(
                        """
                        UPDATE ferry.accounts
                           SET access_token_sealed = NULL, access_token_issued_at = NULL,
                               access_token_expires_at = NULL, status = 'needs_reauth', status_reason = $2,
                               updated_at = now()
                         WHERE name = $1
                        """, [name, reason])
                    _ = try connection.query(
                        """
                        INSERT INTO ferry.account_events (account, type, data)
                        VALUES ($1, 'needs_reauth', jsonb_build_object('reason', $2::text, 'by', $3::text))
                        """, [name, reason, actor])
                }
                return .rejected(reason)
            }
        }
        switch outcome {
        case .fresh(let credentials): return credentials
        case .rejected(let reason): throw Self.needsReauthorization(name, reason)
        }
    }

    static func unknownAccount(_ name: String) -> FerryStoreError {
        FerryStoreError(.unknownAccount, "no account named '\(name)'", fix: "check the name with ferry account list")
    }

    static func needsReauthorization(_ name: String, _ reason: String) -> FerryStoreError {
        FerryStoreError(
            .accountNeedsReauthorization, "account '\(name)' needs re-authorization (\(reason))",
            fix: "run ferry account login \(name); its jobs are held until then")
    }
}
