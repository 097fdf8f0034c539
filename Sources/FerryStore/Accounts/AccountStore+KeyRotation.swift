import FerryCore
import Foundation
import Postgres

/// The secret key against the database: checking that a key opens what is sealed, and re-sealing under a new key.
extension AccountStore {
    /// Opens every sealed account secret with `box`; throws ``SecretKeyError`` (`doesNotOpen`, naming the
    /// accounts and key fingerprints, never a secret) when any was sealed with another key. A worker checks this
    /// at start: with the wrong key it would fail every job of those accounts for good.
    ///
    /// A value that does not open although its fingerprint is this key's is damage, not a wrong key: that
    /// account's jobs fail on their own (and `ferry account login` repairs it), so it does not stop the check.
    ///
    /// - Parameter skippingHeld: a worker passes true: an account that is not active (held for a login, or for
    ///   secrets sealed with a stray key, see ``holdSealedWithAnotherKey(_:box:by:)``) is not opened until a person
    ///   acts, so a key that does not open it does not stop the worker; such accounts are returned instead. The
    ///   account commands pass false: everything sealed must open with the key they would seal with.
    /// - Returns: the accounts skipped (not active, and not opened by this key).
    @discardableResult
    public func checkSecretKey(_ box: SecretBox, skippingHeld: Bool = false) async throws -> [String] {
        let rows = try await sealedRows()
        var refused = [SealedAccountRow]()
        var skipped = [String]()
        for row in rows {
            do throws(SecretBoxError) {
                _ = try row.openAll(box)
            } catch {
                if error.code == .damaged { continue }
                if skippingHeld, row.status != AccountRecord.Status.active.rawValue {
                    skipped.append(row.name)
                } else {
                    refused.append(row)
                }
            }
        }
        guard refused.isEmpty else {
            let accounts = refused.map(\.name)
            let sealedWith = Array(Set(refused.compactMap(\.keyID))).sorted()
            throw SecretKeyError(
                skippingHeld
                    ? .doesNotOpen(accounts: accounts, sealedWith: sealedWith, keyID: box.key.id)
                    : .notTheDatabaseKey(accounts: accounts, sealedWith: sealedWith, keyID: box.key.id))
        }
        return skipped
    }

    /// Re-seals every account secret sealed with `old`'s key under `new`'s key, in one transaction, and appends an
    /// `updated` account event (`{"change": "rekeyed", …}`, with the two key fingerprints) for each account
    /// changed. Accounts already sealed with the new key are left alone, so an interrupted rotation can simply be
    /// run again. Returns the names of the accounts re-sealed.
    ///
    /// An account stored before schema 30 holds its one secret in the old column; when `upgrade` maps that secret
    /// to its kind's named secrets (the kind knows what the value was), it is sealed in the new shape instead.
    ///
    /// Throws ``SecretKeyError`` (`oldKeyDoesNotOpen`) and changes nothing when an account opens with neither key.
    public func rekey(
        from old: SecretBox, to new: SecretBox, by actor: String,
        upgrade: @escaping @Sendable (_ provider: String, _ legacySecret: String) -> [String: String]? = { _, _ in nil }
    ) async throws -> [String] {
        do {
            return try await client.withTransaction { connection -> [String] in
                // Row locks: a worker refreshing a token waits, and then reads the re-sealed row.
                let rows = try connection.query(
                    "SELECT \(SealedAccountRow.columns) FROM ferry.accounts WHERE \(Self.hasSealedValue) ORDER BY name FOR UPDATE"
                ).rows.map(SealedAccountRow.init(row:))
                var resealed = [String]()
                var refused = [SealedAccountRow]()
                for row in rows {
                    if row.keyID == new.key.id, (try? row.openAll(new)) != nil { continue }
                    var secrets: [String: String]
                    do throws(SecretBoxError) {
                        secrets = try row.openAll(old)
                    } catch {
                        refused.append(row)
                        continue
                    }
                    if secrets[AccountSecrets.field] == nil, let legacy = secrets["app_secret"],
                        let named = upgrade(row.provider, legacy)
                    {
                        secrets[AccountSecrets.field] = AccountSecrets.text(named)
                        secrets["app_secret"] = nil
                    }
                    try Self.reseal(row, secrets, under: new, from: old, by: actor, connection)
                    resealed.append(row.name)
                }
                guard refused.isEmpty else {
                    throw SecretKeyError(.oldKeyDoesNotOpen(
                        accounts: refused.map(\.name), sealedWith: Array(Set(refused.compactMap(\.keyID))).sorted(),
                        keyID: old.key.id))
                }
                // Accounts released from a hold below have jobs claimable again: wake the workers.
                if !resealed.isEmpty { try connection.query("SELECT pg_notify('ferry_jobs', '')") }
                return resealed
            }
        } catch {
            throw Self.ownerOnly("ferry account rekey", error)
        }
    }

    /// Writes one account's opened `secrets` sealed under `new`, with its `updated` event. An account a worker held
    /// because its secrets were sealed with a stray key (its latest status event is `needs_reauth` with code
    /// `secret_key_mismatch`) opens with the workers' key now: it is active again (`released_hold` in the event).
    private static func reseal(
        _ row: SealedAccountRow, _ secrets: [String: String], under new: SecretBox, from old: SecretBox, by actor: String,
        _ connection: PostgresConnection
    ) throws {
        let sealed = try SealedAccountRow.sealedFields.map { field -> PostgresBytes? in
            try secrets[field].map { PostgresBytes(try new.seal($0, context: Self.sealContext(row.name, field))) }
        }
        try connection.query(
            """
            UPDATE ferry.accounts
               SET secrets_sealed = $2::bytea, app_secret_sealed = $3::bytea, refresh_token_sealed = $4::bytea,
                   access_token_sealed = $5::bytea, key_id = $6, updated_at = now()
             WHERE name = $1
            """, [row.name, sealed[0], sealed[1], sealed[2], sealed[3], new.key.id])
        let released = try connection.query(
            """
            UPDATE ferry.accounts SET status = 'active', status_reason = NULL
             WHERE name = $1 AND status = 'needs_reauth'
               AND (SELECT e.data->>'code' FROM ferry.account_events e
                     WHERE e.account = $1 AND e.type IN ('added', 'linked', 'needs_reauth', 'revoked')
                     ORDER BY e.position DESC LIMIT 1) = 'secret_key_mismatch'
            """, [row.name]
        ).affectedRows == 1
        try connection.query(
            """
            INSERT INTO ferry.account_events (account, type, data)
            VALUES ($1, 'updated', jsonb_build_object('change', 'rekeyed', 'by', $2::text,
                                                      'from_key_id', $3::text, 'to_key_id', $4::text,
                                                      'released_hold', $5::boolean))
            """, [row.name, actor, row.keyID ?? old.key.id, new.key.id, released])
    }

    /// Accounts that hold at least one sealed value.
    static let hasSealedValue =
        """
        (secrets_sealed IS NOT NULL OR app_secret_sealed IS NOT NULL OR refresh_token_sealed IS NOT NULL
         OR access_token_sealed IS NOT NULL)
        """

    private func sealedRows() async throws -> [SealedAccountRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(SealedAccountRow.columns) FROM ferry.accounts WHERE \(Self.hasSealedValue) ORDER BY name"
                ).rows.map(SealedAccountRow.init(row:))
            }
        } catch {
            throw Self.ownerOnly("checking FERRY_SECRET_KEY against the stored secrets", error)
        }
    }
}
