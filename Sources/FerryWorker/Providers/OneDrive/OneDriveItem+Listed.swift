import FerryOneDrive

extension OneDriveItem: ListedItem {}
