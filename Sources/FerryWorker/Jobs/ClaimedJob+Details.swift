import FerryCore
import FerryStore

extension ClaimedJob {
    /// The job's details as the provider's typed struct. Details that do not decode fail the job for good: it
    /// was enqueued wrong, and no retry will fix it.
    public func details<Details: Decodable>(as type: Details.Type) throws -> Details {
        do {
            return try JSONValue.decode(type, from: assignment.spec)
        } catch {
            throw JobFailure.permanent("bad_details", "the job's details cannot be read (\(error))")
        }
    }
}
