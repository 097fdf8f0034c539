import FerryGoogleDrive

extension GoogleDriveFile: ListedItem {}
