import FerryDropbox
import FerryProviders
import Logging

/// Dropbox's removal capability: `files/delete_v2` of a file a listing named (its path); one already gone is done.
struct DropboxRemover: RemoteRemover {
    let tokens: AccountTokenProvider

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let location = try DropboxLocation(entry.reference, field: "remote", line: nil)
        let caller = DropboxCaller(account: location.account, tokens: tokens, logger: logger)
        do {
            try await caller.call("deleting") { client, token in try await client.delete(path: location.path, accessToken: token) }
        } catch let error as DropboxError where error.tag("path_lookup", "not_found") {
            return
        } catch let error as DropboxError {
            throw error.jobFailure(doing: "deleting \(location.path)")
        }
    }
}
