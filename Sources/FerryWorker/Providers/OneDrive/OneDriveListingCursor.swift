/// The resumable state of a OneDrive folder listing.
typealias OneDriveListingCursor = FolderListingCursor<OneDrivePaging>
