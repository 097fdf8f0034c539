import FerryCore
import FerryProviders

extension OneDriveLocation {
    /// Parses a location stored in a claimed job (checked at enqueue already).
    init(job text: String) throws {
        do {
            try self.init(text, field: "location", line: nil)
        } catch {
            throw JobFailure.permanent("bad_location", "the OneDrive location is not onedrive:ACCOUNT:/path or onedrive:ACCOUNT:id:ITEMID")
        }
    }
}
