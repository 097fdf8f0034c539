/// The resumable state of a Drive folder listing (`skippedOwn` counts Google Docs items skipped for want of an
/// export format, or one their type has).
typealias GoogleDriveListingCursor = FolderListingCursor<GoogleDrivePaging>
