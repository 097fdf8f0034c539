import FerryCore
import FerryStore
import Foundation

/// Job ids given on the command line: a whole UUID, or (as the dashboard and the shell completions take them) any
/// start of one that only one job in the database has.
enum JobID {
    /// The most candidates an ambiguous prefix's refusal counts exactly (beyond it, "more than").
    static let candidateLimit = 20

    /// A whole UUID; throws for anything else (a prefix needs the database: ``resolve(_:in:)``).
    static func parse(_ text: String) throws -> UUID {
        guard let id = UUID(uuidString: text) else {
            throw ValidationIssue(field: "job", problem: "not a job id", fix: "give the UUID printed by ferry enqueue")
        }
        return id
    }

    /// The hex digits of a job id's start (dashes dropped, lowercase), or nil when the text cannot start one.
    static func prefixDigits(_ text: String) -> String? {
        let digits = text.lowercased().filter { $0 != "-" }
        guard (1...32).contains(digits.count), digits.allSatisfy(\.isHexDigit), text.count <= 36 else { return nil }
        return digits
    }

    /// Checks before connecting that `text` is a job id or could start one.
    static func validate(_ text: String) throws {
        if UUID(uuidString: text) != nil || prefixDigits(text) != nil { return }
        throw ValidationIssue(
            field: "job", problem: "not a job id", fix: "give the UUID printed by ferry enqueue, or a start of it such as 0193a0c4")
    }

    /// The job `text` names: a whole UUID as is (a missing job is the command's to report), or the one job whose id
    /// starts with these digits. A start no job has is `not_found`; one several jobs have is refused with their count.
    static func resolve(_ text: String, in store: FerryStore) async throws -> UUID {
        if let id = UUID(uuidString: text) { return id }
        guard let digits = prefixDigits(text) else { return try parse(text) }
        let matches = try await store.reads.searchJobs(.idPrefix(digits), limit: candidateLimit + 1).map(\.jobID)
        switch matches.count {
        case 0:
            throw FerryStoreError(.notFound, "no job id starts with \(text)")
        case 1:
            return matches[0]
        default:
            let count = matches.count > candidateLimit ? "more than \(candidateLimit)" : "\(matches.count)"
            let some = matches.prefix(3).map { $0.uuidString.lowercased() }.joined(separator: ", ") + (matches.count > 3 ? ", …" : "")
            throw ValidationIssue(
                field: "job", problem: "\(text) is the start of \(count) job ids (\(some)), not one",
                fix: "give more of the id, or the whole UUID")
        }
    }
}
