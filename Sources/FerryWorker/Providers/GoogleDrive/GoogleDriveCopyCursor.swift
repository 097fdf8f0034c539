/// Where a folder copy from Drive stands: Drive lists one folder at a time, so the tree is walked breadth first.
typealias GoogleDriveCopyCursor = FolderWalkCursor<GoogleDrivePaging>
