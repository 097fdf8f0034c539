import FerryStore

extension AccountTokenProvider {
    /// `account`'s credentials for a job's call (`stale`: the token the provider just refused), with the store's
    /// refusals as what becomes of the job: an account that needs a login holds it; unusable credentials or an
    /// unknown account fail it; a key that does not open the account's secrets is ``keyMismatchFailure(account:_:)``.
    func jobCredentials(for account: String, afterRejecting stale: String? = nil) async throws -> AccountCredentials {
        do {
            if let stale { return try await credentials(for: account, afterRejecting: stale) }
            return try await credentials(for: account)
        } catch let error as FerryStoreError where error.code == .accountNeedsReauthorization {
            throw JobFailure.held("account_needs_login", error.description)
        } catch let error as FerryStoreError where error.code == .credentials || error.code == .unknownAccount {
            throw JobFailure.permanent("account_unusable", error.description)
        } catch let error as FerryStoreError where error.code == .secretKeyMismatch {
            throw await keyMismatchFailure(account: account, error)
        }
    }
}
