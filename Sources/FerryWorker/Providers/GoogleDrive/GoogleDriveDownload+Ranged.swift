import FerryGoogleDrive

extension GoogleDriveDownload: RangedDownload {}
