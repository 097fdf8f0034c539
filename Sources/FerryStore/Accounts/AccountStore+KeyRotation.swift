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
    public func checkSecretKey(_ box: SecretBox) async throws {
        let rows = try await sealedRows()
        var refused = [SealedAccountRow]()
        for row in rows {
            do throws(SecretBoxError) {
                _ = try row.openAll(box)
            } catch {
                if error.code != .damaged { refused.append(row) }
            }
        }
        guard refused.isEmpty else {
            throw SecretKeyError(.doesNotOpen(
                accounts: refused.map(\.name), sealedWith: Array(Set(refused.compactMap(\.keyID))).sorted(),
                keyID: box.key.id))
        }
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
                    try connection.query(
                        """
                        INSERT INTO ferry.account_events (account, type, data)
                        VALUES ($1, 'updated', jsonb_build_object('change', 'rekeyed', 'by', $2::text,
                                                                  'from_key_id', $3::text, 'to_key_id', $4::text))
                        """, [row.name, actor, row.keyID ?? old.key.id, new.key.id])
                    resealed.append(row.name)
                }
                guard refused.isEmpty else {
                    throw SecretKeyError(.oldKeyDoesNotOpen(
                        accounts: refused.map(\.name), sealedWith: Array(Set(refused.compactMap(\.keyID))).sorted(),
                        keyID: old.key.id))
                }
                return resealed
            }
        } catch {
            throw FerryStore.translate(error)
        }
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
            throw FerryStore.translate(error)
        }
    }
}
