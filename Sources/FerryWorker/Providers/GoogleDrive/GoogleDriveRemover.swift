import FerryGoogleDrive
import FerryProviders
import Logging

/// Drive's removal capability: a file a listing named (by id) goes to the trash, as rclone's Drive backend does by
/// default, so a sync's deletion can be undone for 30 days; one already gone is done.
struct GoogleDriveRemover: RemoteRemover {
    let tokens: AccountTokenProvider

    func remove(_ entry: RemoteEntry, logger: Logger) async throws {
        let location = try GoogleDriveLocation(entry.reference, field: "remote", line: nil)
        guard case .id(let id) = location.target else {
            throw JobFailure.permanent("not_listed", "\(location.text) names no listed file: a sync deletes only what it listed")
        }
        let caller = GoogleDriveCaller(account: location.account, tokens: tokens, logger: logger)
        do {
            try await caller.call("trashing") { client, token in try await client.trashFile(id: id, accessToken: token) }
        } catch let error as GoogleDriveError where error.code == .notFound {
            return
        } catch let error as GoogleDriveError {
            throw error.jobFailure(doing: "trashing \(location.text)")
        }
    }
}
