import FerryOneDrive
import FerryProviders
import Logging

/// OneDrive's removal capability: a file a listing named (by id) is deleted, which OneDrive keeps in its recycle bin
/// (30 days for personal accounts), so a sync's deletion can be undone; one already gone is done.
struct OneDriveRemover: RemoteRemover {
    let tokens: AccountTokenProvider

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let location = try OneDriveLocation(entry.reference, field: "remote", line: nil)
        guard case .id(let id) = location.target else {
            throw JobFailure.permanent("not_listed", "\(location.text) names no listed file: a sync deletes only what it listed")
        }
        let caller = OneDriveCaller(account: location.account, tokens: tokens, logger: logger)
        do {
            try await caller.call("deleting") { client, token in try await client.deleteItem(id: id, accessToken: token) }
        } catch let error as OneDriveError where error.code == .notFound {
            return
        } catch let error as OneDriveError {
            throw error.jobFailure(doing: "deleting \(location.text)")
        }
    }
}
