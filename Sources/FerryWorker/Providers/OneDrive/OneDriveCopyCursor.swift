/// Where a folder copy from OneDrive stands, walked breadth first folder by folder.
typealias OneDriveCopyCursor = FolderWalkCursor<OneDrivePaging>
