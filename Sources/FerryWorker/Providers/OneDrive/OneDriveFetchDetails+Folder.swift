import FerryProviders

extension OneDriveFetchDetails: FolderFetchDetails {}
