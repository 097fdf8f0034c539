import FerryCore
import FerryProviders

extension S3Location {
    /// Parses a location stored in a claimed job (checked at enqueue already).
    init(job text: String) throws {
        do {
            try self.init(text, field: "location", line: nil)
        } catch {
            throw JobFailure.permanent("bad_location", "the location is not s3:ACCOUNT:bucket/key")
        }
    }
}
