import FerryCore
import FerryProviders

extension AccountItemLocation {
    /// Parses a location stored in a claimed job (checked at enqueue already).
    init(job text: String) throws {
        do {
            try self.init(text, field: "location", line: nil)
        } catch {
            throw JobFailure.permanent(
                "bad_location",
                "the \(Self.serviceName) location is not \(Self.scheme):ACCOUNT:/path or \(Self.scheme):ACCOUNT:id:\(Self.idPlaceholder)")
        }
    }
}
