import FerryGoogleDrive
import FerryProviders

/// Drive's removal capability: a file a listing named (by id) goes to the trash, as rclone's Drive backend does by
/// default, so a sync's deletion can be undone for 30 days; one already gone is done.
typealias GoogleDriveRemover = ListedItemRemover<GoogleDriveAPI, GoogleDriveLocation>

extension GoogleDriveRemover {
    init(tokens: AccountTokenProvider) {
        self.init(
            tokens: tokens, action: "trashing",
            removeItem: { client, id, token in try await client.trashFile(id: id, accessToken: token) },
            isGone: { $0.code == .notFound })
    }
}
