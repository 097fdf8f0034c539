import ArgumentParser
import FerryCore
import FerryWorker

/// How the listing commands report what stopped a listing: a remote that does not parse or is not there, an account
/// that cannot be opened, a provider's refusal. Messages may quote what a service answered, so they are printed
/// terminal-safe; none holds a secret (``JobFailure`` and ``RemoteListingError`` never do).
enum ListingFailure {
    static func report(_ error: any Error) -> ExitCode {
        switch error {
        case let issue as ValidationIssue:
            printError(TablePrinter.printable("error: \(issue.field) \(issue.problem); \(issue.fix)"))
            return ExitCode(ExitStatus.invalidInput)
        case let error as RemoteListingError:
            printError(TablePrinter.printable("error: \(error)"))
            switch error.code {
            case .notFound: return ExitCode(ExitStatus.notFound)
            case .notListable: return ExitCode(ExitStatus.configuration)
            case .tooManyEntries, .tooDeep, .notReadable: return ExitCode(ExitStatus.invalidInput)
            }
        case let failure as JobFailure:
            printError(TablePrinter.printable("error: \(failure.description)"))
            if let fix = fixes[failure.code] { printError("  " + fix) }
            return ExitCode(status(of: failure))
        default:
            return CLIFailure.report(error)
        }
    }

    /// What to do about the failures a person can fix.
    static let fixes: [String: String] = [
        "account_unusable": "check the account's name (ferry account list) and its provider",
        "account_needs_login": "run ferry account login ACCOUNT",
        "secret_key_mismatch": "use the FERRY_SECRET_KEY the account was sealed with",
        "outside_local_roots": "give a folder you can read",
    ]

    static func status(of failure: JobFailure) -> Int32 {
        // A worker waits for a worker with the right key; a person at the command line fixes the key.
        if failure.code == "secret_key_mismatch" || failure.code == "account_unusable" { return ExitStatus.configuration }
        switch failure.kind {
        case .held: return ExitStatus.configuration
        case .rateLimited, .retryable, .shortage: return ExitStatus.temporaryFailure
        case .permanent:
            if failure.code == "account_unusable" || failure.code == "secret_key_mismatch" { return ExitStatus.configuration }
            return failure.code.hasSuffix("not_found") ? ExitStatus.notFound : ExitStatus.invalidInput
        }
    }
}

/// Runs a listing command's body, reporting failures the listing way.
func runListing(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw ListingFailure.report(error)
    }
}
