import FerryOneDrive

extension OneDriveDownload: RangedDownload {}
