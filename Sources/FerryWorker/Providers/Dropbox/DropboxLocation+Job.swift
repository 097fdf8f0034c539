import FerryCore
import FerryProviders

extension DropboxLocation {
    /// Parses a location stored in a claimed job (checked at enqueue already).
    init(job text: String) throws {
        do {
            try self.init(text, field: "location", line: nil)
        } catch {
            throw JobFailure.permanent("bad_location", "\(text.hasPrefix("dropbox:") ? "the Dropbox location" : "the location") is not dropbox:ACCOUNT:/path")
        }
    }
}
