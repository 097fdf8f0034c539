import FerryOneDrive
import FerryProviders

/// OneDrive's removal capability: a file a listing named (by id) is deleted, which OneDrive keeps in its recycle bin
/// (30 days for personal accounts), so a sync's deletion can be undone; one already gone is done.
typealias OneDriveRemover = ListedItemRemover<OneDriveAPI, OneDriveLocation>

extension OneDriveRemover {
    init(tokens: AccountTokenProvider) {
        self.init(
            tokens: tokens, action: "deleting",
            removeItem: { client, id, token in try await client.deleteItem(id: id, accessToken: token) },
            isGone: { $0.code == .notFound })
    }
}
