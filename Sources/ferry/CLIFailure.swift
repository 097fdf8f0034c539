import ArgumentParser
import FerryArchive
import FerryCore
import FerryStore
import FerryWorker
import Foundation
import Postgres

/// Turns any error into a clear message on stderr and a documented exit code. Never a stack trace.
enum CLIFailure {
    static func report(_ error: any Error) -> ExitCode {
        // The store's reading of a database error (connection lost, read-only, refused login or privilege …).
        if !(error is FerryStoreError), let failure = FerryStoreError(classifying: error) { return report(failure) }
        switch error {
        case let exit as ExitCode:
            return exit
        case let issue as ValidationIssue:
            printError("error: \(issue)")
            return ExitCode(ExitStatus.invalidInput)
        case let issues as ValidationIssues:
            for issue in issues.issues { printError("error: \(issue)") }
            if issues.more > 0 { printError("error: … and \(issues.more) more problem(s)") }
            printError("nothing was enqueued")
            return ExitCode(ExitStatus.invalidInput)
        case let error as FerryStoreError:
            if let exit = reportDatabase(error) { return exit }
            printError("error: \(error)")
            switch error.code {
            case .notFound: return ExitCode(ExitStatus.notFound)
            case .unknownAccount: return ExitCode(ExitStatus.invalidInput)
            case .notMigrated, .migrationChanged, .migrationUnknown, .migrationFiles:
                return ExitCode(ExitStatus.notMigrated)
            case .versionConflict, .staleLease, .invalidTransition, .accountInUse: return ExitCode(ExitStatus.negative)
            case .accountExists: return ExitCode(ExitStatus.invalidInput)
            case .accountNeedsReauthorization, .credentials, .secretKeyMismatch: return ExitCode(ExitStatus.configuration)
            case .keyConflict: return ExitCode(ExitStatus.temporaryFailure)
            case .keyReused: return ExitCode(ExitStatus.invalidInput)
            case .archiveFile, .foreignArchive: return ExitCode(ExitStatus.invalidInput)
            case .restoreConflict: return ExitCode(ExitStatus.negative)
            case .scheduleExists: return ExitCode(ExitStatus.invalidInput)
            case .archived: return ExitCode(ExitStatus.archived)
            case .connectionUnavailable: return ExitCode(ExitStatus.temporaryFailure)
            case .ownerRequired: return ExitCode(ExitStatus.permissionDenied)
            case .connectionLost, .readOnly, .loginRefused, .permissionDenied: return ExitCode(ExitStatus.databaseUnavailable)
            case .diskFull, .database: return ExitCode(ExitStatus.internalError)
            }
        case let error as ArchiveError:
            printError("error: \(error)")
            switch error.code {
            case .io: return ExitCode(ExitStatus.ioError)
            case .corrupt: return ExitCode(ExitStatus.invalidInput)
            case .missing: return ExitCode(ExitStatus.notFound)
            case .usage: return ExitCode(ExitStatus.usage)
            }
        case let error as MetricsEndpointError:
            printError("error: \(error)")
            return ExitCode(ExitStatus.configuration)
        case let error as WorkerConfigurationError:
            printError("error: \(error)")
            return ExitCode(ExitStatus.configuration)
        case let error as SecretKeyError:
            printError("error: \(error)")
            return ExitCode(ExitStatus.configuration)
        case let error as AccountSetupError:
            printError("error: \(error)")
            return ExitCode(error.code == .unreachable ? ExitStatus.databaseUnavailable : ExitStatus.invalidInput)
        case let error as CLIUsageError:
            printError("error: \(error.message)")
            return ExitCode(ExitStatus.usage)
        case let failure as JobFailure:
            // A provider's answer met by the command itself (a sync's --dry-run lists the destination), reported as
            // the listing commands report it: its fix and an exit code that says what kind of problem it is.
            return ListingFailure.report(failure)
        default:
            printError("error: \(error)")
            return ExitCode(ExitStatus.internalError)
        }
    }

    /// What PostgreSQL's refusals say and the exit code they get; nil for the store's other errors.
    static func reportDatabase(_ error: FerryStoreError) -> ExitCode? {
        switch error.code {
        case .loginRefused:
            // Said at once: no wait (--wait-for-database, --wait-for-schema) makes a refused password good.
            printError("error: \(error.message)")
            printError("  check the password (in the URL, PGPASSWORD or ~/.pgpass), that the role may log in, and the database name")
            return ExitCode(ExitStatus.permissionDenied)
        case .connectionLost:
            printError("error: PostgreSQL is unavailable (\(error.message))")
            if let detail = error.fix { printError("  \(detail)") }
            printError("  set --database-url, FERRY_DATABASE_URL or DATABASE_URL (or the PG* variables) to a reachable server")
            return ExitCode(ExitStatus.databaseUnavailable)
        case .readOnly:
            // After a failover the old address may lead to a standby (or a demoted primary): nothing was written.
            printError("error: PostgreSQL is unavailable for writes (the server is read-only: a standby, or a failover under way) [SQLSTATE 25006]")
            printError("  point --database-url at the primary (a multi-host URL with target_session_attrs=read-write follows failovers), or give --wait-for-database 60s")
            return ExitCode(ExitStatus.databaseUnavailable)
        case .permissionDenied:
            // PostgreSQL's privilege refusals (and Ferry's, migration 0015) name objects, event types and roles,
            // never values: the message says what was refused and which role it needs.
            printError("error: \(error.message) [SQLSTATE 42501]")
            printError("  " + (error.fix ?? "the database role lacks a privilege: log in as a member of ferry_producer (enqueue, cancel, retry), ferry_worker (ferry worker) or ferry_reader (ferry status)"))
            return ExitCode(ExitStatus.permissionDenied)
        case .diskFull, .database:
            printError("error: \(error.message)" + (error.code == .diskFull ? " [SQLSTATE 53100]" : ""))
            return ExitCode(ExitStatus.internalError)
        default:
            return nil
        }
    }

    static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n").first ?? Substring(text))
    }
}

/// A usage mistake found after parsing (for example several files with a DEST lacking its trailing slash).
struct CLIUsageError: Error {
    var message: String
}

/// Several validation problems from one input, reported together.
struct ValidationIssues: Error {
    var issues: [ValidationIssue]
    var more: Int
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Runs a command body, reporting failures the documented way.
func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw CLIFailure.report(error)
    }
}
