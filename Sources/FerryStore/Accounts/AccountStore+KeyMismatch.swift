import FerryCore
import Foundation
import Postgres

/// An account whose secrets a worker's key does not open, although that key opens the other accounts.
extension AccountStore {
    /// Holds `name` when its secrets are sealed with a stray key: its stored key fingerprint is not `box`'s, while
    /// other accounts are sealed with `box`'s key (so this worker holds the database's key and the account is the
    /// odd one, sealed by an account command run with another key). The account becomes `needs_reauth` with a
    /// reason naming both fingerprints and the fix, and a `needs_reauth` account event with code
    /// `secret_key_mismatch`: its jobs show as held, not deferred for ever, and workers restart past it.
    ///
    /// When no other account is sealed with `box`'s key, this worker's key is the stale one (a rotation re-sealed
    /// everything while it ran): nothing is changed, so workers with the new key go on running the account's jobs.
    ///
    /// - Returns: the reason the account is held (also when it was held already), or nil when it was left alone.
    public func holdSealedWithAnotherKey(_ name: String, box: SecretBox, by actor: String) async throws -> String? {
        do {
            return try await client.withTransaction { connection -> String? in
                guard
                    let row = try connection.query(
                        "SELECT key_id, status, status_reason FROM ferry.accounts WHERE name = $1 FOR NO KEY UPDATE", [name]
                    ).first
                else { return nil }
                let sealedWith = try row.decode(String?.self, at: 0)
                let status = try row.decode(String.self, at: 1)
                if status != AccountRecord.Status.active.rawValue {
                    return try row.decode(String?.self, at: 2) ?? status
                }
                // Re-sealed under this key since it failed to open (a login or rekey in between): nothing to hold.
                guard let sealedWith, sealedWith != box.key.id else { return nil }
                let othersUseThisKey = try connection.query(
                    "SELECT EXISTS (SELECT 1 FROM ferry.accounts WHERE name <> $1 AND key_id = $2 AND \(Self.hasSealedValue))",
                    [name, box.key.id]
                ).first!.decode(Bool.self, at: 0)
                guard othersUseThisKey else { return nil }
                let reason = Self.strayKeyReason(sealedWith: sealedWith, databaseKey: box.key.id)
                _ = try connection.query(
                    """
                    UPDATE ferry.accounts SET status = 'needs_reauth', status_reason = $2, updated_at = now() WHERE name = $1
                    """, [name, reason])
                _ = try connection.query(
                    """
                    INSERT INTO ferry.account_events (account, type, data)
                    VALUES ($1, 'needs_reauth', jsonb_build_object('reason', $2::text, 'code', 'secret_key_mismatch',
                                                                   'sealed_with_key_id', $3::text, 'key_id', $4::text,
                                                                   'by', $5::text))
                    """, [name, reason, sealedWith, box.key.id, actor])
                return reason
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Fingerprints only, never key material; the fix works without the stray key too (remove, add again).
    static func strayKeyReason(sealedWith: String, databaseKey: String) -> String {
        "its secrets are sealed with key fingerprint \(sealedWith), not with the key of the other accounts and the workers "
            + "(fingerprint \(databaseKey)); fix: re-seal it with ferry account rekey --old-key-file FILE (FILE holding key "
            + "\(sealedWith)) under the workers' key, or remove the account and add it again with the workers' key"
    }
}
