import FerryCore
import FerryProviders

extension GoogleDriveLocation {
    /// Parses a location stored in a claimed job (checked at enqueue already).
    init(job text: String) throws {
        do {
            try self.init(text, field: "location", line: nil)
        } catch {
            throw JobFailure.permanent("bad_location", "the Google Drive location is not gdrive:ACCOUNT:/path or gdrive:ACCOUNT:id:FILEID")
        }
    }
}
