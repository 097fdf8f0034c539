import FerryProviders
import Logging

/// The removal capability of a bearer-token service whose listings name files by id (`SCHEME:ACCOUNT:id:ID`): the
/// entry's reference is parsed, its id removed through ``BearerCaller`` (one refresh on a refused token, transient
/// failures retried), and a file already gone counts as done. The provider names how it removes an item.
struct ListedItemRemover<API: BearerAPI, Location: AccountItemLocation>: RemoteRemover {
    let tokens: AccountTokenProvider
    /// What removing is called in logs and failures ("deleting").
    let action: String
    /// Removes the item with the id, with the access token.
    let removeItem: @Sendable (_ client: API.Client, _ id: String, _ accessToken: String) async throws -> Void
    /// Whether the failure says the item is gone already.
    let isGone: @Sendable (API.Failure) -> Bool

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let location = try Location(entry.reference, field: "remote", line: nil)
        guard case .id(let id) = location.target else {
            throw JobFailure.permanent("not_listed", "\(location.text) names no listed file: a sync deletes only what it listed")
        }
        let caller = BearerCaller<API>(account: location.account, tokens: tokens, logger: logger)
        do {
            try await caller.call(action) { client, token in try await removeItem(client, id, token) }
        } catch let error as API.Failure where isGone(error) {
            return
        } catch let error as API.Failure {
            throw error.jobFailure(doing: "\(action) \(location.text)")
        }
    }
}
