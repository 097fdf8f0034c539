import ArgumentParser
import FerryArchive
import FerryCore
import FerryStore
import Foundation
import Logging

/// `ferry archive`: move finished jobs out of PostgreSQL into checksummed files, list them, bring them back.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Move finished jobs' events out of PostgreSQL into archive files, list them, restore them.",
        discussion: """
            Jobs that succeeded, failed or were cancelled before the cut-off leave the event log and the \
            projection, whole (every event of a job, or none), into gzip-compressed JSON Lines files (one job \
            with its events per line) with a SHA-256 manifest each. Jobs of batches that still have unfinished \
            jobs stay until the batch completes; a batch's completion record stays in ferry.batch_events. Safe to \
            run while workers work and to run again after a crash at any point. Runs as the schema owner.

            Examples:
              ferry archive --finished-before 30d --to /var/lib/ferry/archive
              ferry archive --keep 30d --to /var/lib/ferry/archive   # the same
              ferry archive list
              ferry archive restore \\
                  /var/lib/ferry/archive/ferry-archive-20261124T101500Z-….jsonl.gz
            """,
        subcommands: [Run.self, Restore.self, List.self],
        defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Archive jobs that finished before a cut-off (the default subcommand).")

        @Option(help: ArgumentHelp(
            "Archive jobs that finished before this: an age (30d, 12h, 15m, 0s) or an ISO 8601 time.", valueName: "age|time"))
        var finishedBefore: String?

        @Option(help: ArgumentHelp("Keep this much history in PostgreSQL (the same as --finished-before).", valueName: "age"))
        var keep: String?

        @Option(help: ArgumentHelp("Directory for the archive files (created if missing).", valueName: "dir"), completion: .directory)
        var to: String

        @Option(help: "Jobs per archive file.")
        var jobsPerFile = 50_000

        @Option(help: "Stop after writing this many files (default: until nothing is left).")
        var maxFiles: Int?

        @Option(help: ArgumentHelp(
            "Sign each manifest with HMAC-SHA256 under the key in this file (at least 32 bytes).", valueName: "file"), completion: .file())
        var signingKey: String?

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                let cutoff = try resolveCutoff()
                guard (1...1_000_000).contains(jobsPerFile) else {
                    throw ValidationIssue(field: "--jobs-per-file", problem: "must be between 1 and 1000000", fix: "give for example 50000")
                }
                let directory = URL(fileURLWithPath: to).standardizedFileURL.path
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw ArchiveError(.io, "cannot create \(directory)", fix: "check the path and its permissions")
                }
                let store = connection.makeStore(poolSize: 2)
                defer { store.client.close() }
                let archiver = Archiver(
                    store: store, directory: directory, logger: Logger(label: "ferry.archive"),
                    signingKey: try signingKey.map(ArchiveSigningKey.init(file:)))
                let report = try await archiver.run(finishedBefore: cutoff, jobsPerFile: jobsPerFile, maxFiles: maxFiles)
                if json {
                    print(JSONValue.object([
                        "jobs": .int(Int64(report.jobs)), "events": .int(Int64(report.events)),
                        "files": .array(report.written.map { .string($0.file) }),
                        "recovered": .array(report.recovered.map { .string($0) }),
                        "discarded": .array(report.discarded.map { .string($0) }),
                    ]).jsonText)
                    return
                }
                for file in report.recovered { print("finished interrupted archive \(file)") }
                for file in report.discarded { print("removed uncommitted leftover \(file)") }
                for chunk in report.written {
                    print("\(chunk.file): \(chunk.jobs) jobs, \(chunk.events) events, \(chunk.bytes) bytes, sha256 \(chunk.sha256)")
                }
                print("archived \(report.jobs) jobs (\(report.events) events) in \(report.written.count) file(s)")
            }
        }

        private func resolveCutoff() throws -> Date {
            switch (finishedBefore, keep) {
            case (nil, nil):
                throw ValidationIssue(field: "--finished-before", problem: "is required", fix: "give an age such as 30d, or --keep 30d")
            case (.some, .some):
                throw ValidationIssue(field: "--keep", problem: "and --finished-before say the same thing", fix: "give only one of them")
            case (let text?, nil), (nil, let text?):
                let field = finishedBefore == nil ? "--keep" : "--finished-before"
                guard let date = ScheduleTime.parseAgo(text, now: Date()) else {
                    throw ValidationIssue(field: field, problem: "'\(text)' is not an age or a time",
                                          fix: "give an age (30d, 12h, 15m, 0s) or an ISO 8601 time with a zone")
                }
                return date
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring an archive file's jobs and their history back into the event log.",
            discussion: """
                The file is not trusted. It must be recorded in this database's ferry.archives, and its SHA-256, \
                size, job and event counts must be what the archiver recorded (its manifest, FILE.manifest.json, \
                must agree too). Every job must be finished (succeeded, failed or cancelled), and every job row \
                must be exactly the fold of its events. All of its jobs come back in one transaction, or none: any \
                difference writes nothing and exits 65. Restoring the same file again does nothing.

                An archive made by another database (or whose record was lost) is refused unless --foreign is \
                given; it is then checked against its manifest, with every other check as above. With \
                --signing-key FILE the manifest must carry a valid signature under that key (ferry archive \
                --signing-key FILE signs them): the way to trust a foreign archive's manifest.

                Examples:
                  ferry archive restore \\
                  /var/lib/ferry/archive/ferry-archive-20261124T101500Z-….jsonl.gz
                """)

        @Argument(help: ArgumentHelp("An archive file written by ferry archive.", valueName: "file"),
            completion: .file(extensions: ["jsonl.gz"]))
        var file: String

        @Flag(help: "Accept an archive this database has no record of (checked against its manifest, in full).")
        var foreign = false

        @Option(help: ArgumentHelp(
            "Require the manifest's signature to be valid under the key in this file (see ferry archive --signing-key).",
            valueName: "file"), completion: .file())
        var signingKey: String?

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runReporting {
                let path = URL(fileURLWithPath: file).standardizedFileURL.path
                let key = try signingKey.map(ArchiveSigningKey.init(file:))
                return try await connection.withStore { store in
                    switch try await ArchiveRestorer(store: store).restore(path, allowForeign: foreign, signingKey: key) {
                    case .restored(let jobs, let events): print("restored \(jobs) jobs (\(events) events) from \(path)")
                    case .alreadyRestored: print("already restored: \(path)")
                    }
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List archive files, newest first.")

        @Option(help: "Show at most this many.")
        var limit = 100

        @Flag(help: "Print JSON: an array of archive files, newest first.")
        var json = false

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runReporting {
                return try await connection.withStore { store in
                    let records = try await store.archive.all(limit: max(1, limit))
                    if json { return print(JSONValue.array(records.map(\.json)).jsonText) }
                    print(
                        TablePrinter.render(
                            headers: ["CREATED", "STATE", "JOBS", "EVENTS", "BYTES", "FILE"],
                            rows: records.map {
                                [ScheduleTime.iso8601($0.createdAt), $0.state.rawValue, "\($0.jobs)", "\($0.events)", "\($0.bytes)", $0.file]
                            }))
                }
            }
        }
    }
}
