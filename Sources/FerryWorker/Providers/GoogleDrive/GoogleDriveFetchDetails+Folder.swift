import FerryProviders

extension GoogleDriveFetchDetails: FolderFetchDetails {}
