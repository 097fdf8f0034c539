import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Shell completions: names read from the database through the scripts' call back into ferry (quick, silent, as
/// a reader), files and directories left to the shell, and the words of enumerated options.
@Suite("ferry completions", .tags(.postgres, .process))
struct CompletionTests {
    /// What a completion script runs when the user presses TAB after `ferry COMMAND… [OPTION] TYPED`:
    /// `ferry ---completion COMMAND… -- ARGUMENT WORD_INDEX CURSOR ferry COMMAND… [OPTION] TYPED`. `argument` is an
    /// option's name or `positional@N`; `extra` words come before the option (`--database-url URL`, say).
    static func complete(
        _ command: [String], _ argument: String, typed: String, extra: [String] = [], databaseURL: String?,
        environment: [String: String] = [:]
    ) async throws -> FerryProcess.Result {
        let words = ["ferry"] + command + extra + (argument.hasPrefix("-") ? [argument] : []) + [typed]
        return try await FerryProcess.run(
            ["---completion"] + command + ["--", argument, String(words.count - 1), String(typed.count)] + words,
            databaseURL: databaseURL, environment: environment)
    }

    /// The values of an answer that must succeed silently. With a generous `FERRY_COMPLETION_TIMEOUT`: on a loaded
    /// CI machine starting a debug ferry and connecting took longer than the 3 s a TAB waits, and the answer was
    /// empty (the default bounds are checked in `unreachable`).
    static func values(
        _ command: [String], _ argument: String, typed: String, extra: [String] = [], databaseURL: String?
    ) async throws -> Set<String> {
        let result = try await complete(
            command, argument, typed: typed, extra: extra, databaseURL: databaseURL,
            environment: ["FERRY_COMPLETION_TIMEOUT": "60"])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(command) \(argument) \(typed): \(result.status) \(result.stderr)")
        return Set(result.lines)
    }

    @Test("batch, queue, account, schedule and job values come from the database, filtered by what is typed")
    func databaseValues() async throws {
        let db = try await TestDatabase.make("completion_values")
        var ids = [String]()
        for (batch, queue) in [("trip-2025", "photos"), ("trip-2026", "photos-slow"), ("work", "default")] {
            let enqueued = try await FerryProcess.run(
                ["enqueue", "fetch", "https://example.com/\(batch).jpg", "--to", "/srv/\(batch)/", "--batch", batch, "--queue", queue],
                databaseURL: db.url)
            #expect(enqueued.status == 0, "\(enqueued.stderr)")
            ids += enqueued.lines
        }
        for account in ["flickr-main", "flickr-spare", "other"] {
            let added = try await FerryProcess.run(
                ["account", "add", account, "--provider", "flickr", "--api-key-file", "-", "--no-verify"], databaseURL: db.url,
                stdin: "key\n", environment: DropboxAccounts.environment)
            #expect(added.status == 0, "\(added.stderr)")
        }
        for schedule in ["nightly", "nightly-2", "hourly"] {
            let added = try await FerryProcess.run(
                ["schedule", "add", schedule, "--every", "1h", "--", "fetch", "https://example.com/s.jpg", "--to", "/srv/s/"],
                databaseURL: db.url)
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try await FerryProcess.run(["schedule", "remove", "hourly"], databaseURL: db.url).status == 0)

        let url = db.url
        #expect(try await Self.values(["status"], "--batch", typed: "trip", databaseURL: url) == ["trip-2025", "trip-2026"])
        #expect(try await Self.values(["wait"], "--batch", typed: "", databaseURL: url) == ["trip-2025", "trip-2026", "work"])
        #expect(try await Self.values(["cancel"], "--batch", typed: "w", databaseURL: url) == ["work"])
        #expect(try await Self.values(["enqueue"], "--batch", typed: "nope", databaseURL: url) == [])
        #expect(try await Self.values(["enqueue"], "--queue", typed: "pho", databaseURL: url) == ["photos", "photos-slow"])
        #expect(try await Self.values(["queue", "pause"], "positional@0", typed: "photos-", databaseURL: url) == ["photos-slow"])
        #expect(try await Self.values(["worker"], "--queues", typed: "default,pho", databaseURL: url)
            == ["default,photos", "default,photos-slow"])
        #expect(try await Self.values(["account", "show"], "positional@0", typed: "flickr", databaseURL: url)
            == ["flickr-main", "flickr-spare"])
        #expect(try await Self.values(["enqueue"], "--account", typed: "o", databaseURL: url) == ["other"])
        // A removed schedule is not offered.
        #expect(try await Self.values(["schedule", "show"], "positional@0", typed: "", databaseURL: url) == ["nightly", "nightly-2"])
        #expect(try await Self.values(["schedule", "pause"], "positional@0", typed: "nightly-", databaseURL: url) == ["nightly-2"])

        // Job ids: any hex prefix (with or without its dashes), upper case too; a prefix no UUID has, nothing.
        let id = ids[0]
        #expect(try await Self.values(["status"], "positional@0", typed: "", databaseURL: url) == Set(ids))
        #expect(try await Self.values(["events"], "positional@0", typed: String(id.prefix(10)).uppercased(), databaseURL: url)
            .contains(id))
        #expect(try await Self.values(["cancel"], "positional@0", typed: id, databaseURL: url) == [id])
        #expect(try await Self.values(["wait"], "positional@0", typed: "zz", databaseURL: url) == [])
        // A quoted word being typed ('trip…) is read without its quote.
        #expect(try await Self.values(["status"], "--batch", typed: "'trip-2026", databaseURL: url) == ["trip-2026"])

        // The URL the command would use: --database-url typed on the line wins over the environment.
        #expect(try await Self.values(["status"], "--batch", typed: "wo", extra: ["--database-url", url], databaseURL: nil) == ["work"])
        #expect(try await Self.values(["status"], "--batch", typed: "wo", extra: ["--database-url=\(url)"],
            databaseURL: "postgresql://127.0.0.1:1/nowhere") == ["work"])

        // In the shells' own format: zsh's answer ends with its pseudo-completion, still nothing on stderr.
        let zsh = try await FerryProcess.run(
            ["---completion", "status", "--", "--batch", "3", "1", "ferry", "status", "--batch", "w"], databaseURL: url,
            environment: ["SAP_SHELL": "zsh", "FERRY_COMPLETION_TIMEOUT": "60"])
        #expect(zsh.status == 0 && zsh.stderr.isEmpty && zsh.stdout.hasPrefix("work\n"), "\(zsh.stdout) \(zsh.stderr)")
    }

    @Test("values are read as ferry_reader when the login may become it; a login that may read nothing gets nothing, silently")
    func readerRole() async throws {
        let db = try await TestDatabase.make("completion_roles")
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/r.jpg", "--to", "/srv/r/", "--batch", "roles"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let suffix = UInt32.random(in: 0...UInt32.max)
        // NOINHERIT: the login has none of ferry_reader's rights until it becomes ferry_reader (SET ROLE).
        let member = "completion_member_\(suffix)", stranger = "completion_stranger_\(suffix)"
        try await db.query("CREATE ROLE \(member) LOGIN NOINHERIT IN ROLE ferry_reader")
        try await db.query("CREATE ROLE \(stranger) LOGIN")
        let memberURL = db.url.replacingOccurrences(of: "postgres@", with: "\(member)@")
        let strangerURL = db.url.replacingOccurrences(of: "postgres@", with: "\(stranger)@")
        #expect(memberURL != db.url)

        let plain = PostgresClient(configuration: PostgresConfiguration(connectionString: memberURL, poolSize: 1))
        await #expect(throws: PostgresError.self, "the login alone may not read the view") {
            try await plain.withConnection { try $0.query("SELECT batch FROM ferry.batch_status") }
        }
        plain.close()

        #expect(try await Self.values(["status"], "--batch", typed: "ro", databaseURL: memberURL) == ["roles"])
        #expect(try await Self.values(["status"], "--batch", typed: "ro", databaseURL: strangerURL) == [])
    }

    @Test("an unreachable, silent or slow database: an empty answer within the timeouts, exit 0, nothing on stderr")
    func unreachable() async throws {
        let db = try await TestDatabase.make("completion_slow")
        func timed(
            _ url: String, _ command: [String] = ["status"], _ argument: String = "--batch", environment: [String: String] = [:]
        ) async throws -> Duration {
            let clock = ContinuousClock()
            let start = clock.now
            let result = try await Self.complete(command, argument, typed: "", databaseURL: url, environment: environment)
            let elapsed = clock.now - start
            #expect(result.status == 0, "\(url): \(result.status)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(url): \(result.stdout)")
            #expect(result.stderr.isEmpty, "\(url): \(result.stderr)")
            return elapsed
        }
        // Each answer must come back: without its timeouts a silent server would hold a completion for ever. The
        // upper bound only guards against such a hang (starting a debug ferry took 11 s on a loaded CI machine);
        // the lower bounds show which timeout ended the wait. No timing beyond that: a busy machine is slow.
        let hang = Duration.seconds(90)
        // Not a URL at all; nobody listening; no such database (the server answers FATAL).
        #expect(try await timed("postgresql://[bad") < hang)
        #expect(try await timed("postgresql://127.0.0.1:1/ferry") < hang)
        #expect(try await timed(TestDatabase.replacingDatabase(in: db.url, with: "no_such_database")) < hang)

        // A server that accepts connections and never answers: connect_timeout (2 s) ends the wait, and when the
        // URL asks for a longer one the answer's own deadline (3 s) does.
        let listener = try SilentListener()
        defer { listener.close() }
        let silent = "postgresql://127.0.0.1:\(listener.port)/ferry"
        let connectBound = try await timed(silent)
        #expect(connectBound >= .milliseconds(1900) && connectBound < hang, "\(connectBound)")
        let deadlineBound = try await timed(silent + "?connect_timeout=600")
        #expect(deadlineBound >= .milliseconds(2900) && deadlineBound < hang, "\(deadlineBound): the 3 s deadline, not the URL's 600 s")
        // FERRY_COMPLETION_TIMEOUT=6 for a slow link: connecting may take 4 s of it.
        let longer = try await timed(silent, environment: ["FERRY_COMPLETION_TIMEOUT": "6"])
        #expect(longer >= .milliseconds(3900) && longer < hang, "\(longer): FERRY_COMPLETION_TIMEOUT=6 connects for 4 s")

        // A statement held behind a lock: statement_timeout (1 s) ends it.
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: db.url, poolSize: 1))
        defer { admin.close() }
        let lockBound = try await admin.withHeldTransaction { held in
            try await held.run { try $0.execute("LOCK TABLE ferry.jobs IN ACCESS EXCLUSIVE MODE") }
            return try await timed(db.url, ["status"], "positional@0")
        }
        #expect(lockBound >= .milliseconds(950) && lockBound < hang, "\(lockBound)")
    }

    @Test("the generated bash, zsh and fish scripts complete files and directories, list enumerated values and call back for names")
    func generatedScripts() async throws {
        var scripts = [String: String]()
        for shell in ["bash", "zsh", "fish"] {
            let generated = try await FerryProcess.run(["--generate-completion-script", shell])
            #expect(generated.status == 0, "\(generated.stderr)")
            scripts[shell] = generated.stdout
        }
        let bash = scripts["bash"]!, zsh = scripts["zsh"]!, fish = scripts["fish"]!

        /// The bash script's branch for `option` in the function of `command` (`_ferry_enqueue`, …).
        func bashCase(_ function: String, _ option: String) -> String? {
            guard let start = bash.range(of: "\(function)() {") else { return nil }
            let body = bash[start.upperBound...].prefix { _ in true }
            let end = body.range(of: "\n}\n").map { body[..<$0.lowerBound] } ?? body
            guard let branch = end.range(of: "'\(option)')\n") else { return nil }
            return String(end[branch.upperBound...].prefix(400))
        }
        let files: [(function: String, option: String, completion: String)] = [
            ("_ferry_enqueue", "--from", "-f"),
            ("_ferry_enqueue", "--filter-from", "-f"),
            ("_ferry_enqueue", "--to", "-d"),
            ("_ferry_dashboard", "--token-file", "-f"),
            ("_ferry_dev-server", "--tls-cert", "-o plusdirs -fX '!*.@(pem|crt)'"),
            ("_ferry_dev-server", "--tls-key", "-o plusdirs -fX '!*.@(pem|key)'"),
            ("_ferry_dev-server", "--storage", "-d"),
            ("_ferry_worker", "--local-root", "-d"),
            ("_ferry_migrate", "--migrations", "-d"),
            ("_ferry_archive_run", "--to", "-d"),
            ("_ferry_archive_run", "--signing-key", "-f"),
            ("_ferry_account_rekey", "--old-key-file", "-f"),
        ]
        for (function, option, completion) in files {
            let branch = bashCase(function, option)
            #expect(branch?.contains("_add_completions \(completion)") == true, "bash \(function) \(option): \(branch ?? "none")")
        }
        // Positional paths: the files to upload, the archive to restore.
        #expect(bash.contains("_ferry_add_completions -f"), "bash: no file completion at all")
        #expect(bash.contains("-fX '!*.@(jsonl.gz)'"), "bash: archive restore FILE")

        // zsh: _files (-g for extensions) and _files -/; fish: its file completion (-F), extensions, directories.
        for option in ["from", "token-file", "old-key-file", "filter-from", "signing-key", "app-secret-file"] {
            #expect(zsh.range(of: #"--\#(option)\[[^\n]*:_files'"#, options: .regularExpression) != nil, "zsh --\(option)")
            #expect(fish.range(of: #"-l '\#(option)'[^\n]* -rF\n"#, options: .regularExpression) != nil, "fish --\(option)")
        }
        #expect(zsh.contains(#":_files -g '\''*.pem *.crt'\'''"#) && fish.contains(#"set -l exts \'pem\' \'crt\'"#), "--tls-cert")
        #expect(zsh.contains(#":_files -g '\''*.jsonl.gz'\'''"#) && fish.contains(#"*.\'jsonl.gz\'"#), "archive restore FILE")
        for option in ["local-root", "storage", "migrations", "to"] {
            #expect(zsh.range(of: #"--\#(option)\[[^\n]*:_files -/'"#, options: .regularExpression) != nil, "zsh --\(option)")
            #expect(fish.range(of: #"-l '\#(option)'[^\n]*__ferry_complete_directories"#, options: .regularExpression) != nil,
                "fish --\(option)")
        }

        // Enumerated values are written into each script.
        let lists: [(function: String, option: String, words: [String])] = [
            ("_ferry_worker", "--log-format", ["text", "json"]),
            ("_ferry_worker", "--log-level", ["trace", "debug", "info", "warning", "error", "critical"]),
            ("_ferry_schedule_add", "--overlap", ["skip", "allow"]),
            ("_ferry_enqueue", "--format", ["jsonl", "lines"]),
            ("_ferry_enqueue", "--thumbnail", ["w64h64", "w2048h1536"]),
            ("_ferry_enqueue", "--size", ["q", "k"]),
            ("_ferry_account_add", "--provider", ["dropbox", "s3", "flickr"]),
            ("_ferry_discard", "--status", ["failed"]),
        ]
        for (function, option, words) in lists {
            let branch = bashCase(function, option) ?? ""
            for word in words {
                #expect(branch.contains(word), "bash \(function) \(option) lacks \(word): \(branch)")
                #expect(zsh.contains(word) && fish.contains(word), "zsh/fish lack \(word) for \(option)")
            }
        }

        // Names call back into ferry: ---completion with the option or the positional, in all three shells.
        let callbacks: [(function: String, option: String, call: String)] = [
            ("_ferry_status", "--batch", "---completion status -- --batch"),
            ("_ferry_status", "--queue", "---completion status -- --queue"),
            ("_ferry_wait", "--batch", "---completion wait -- --batch"),
            ("_ferry_enqueue", "--account", "---completion enqueue -- --account"),
            ("_ferry_worker", "--queues", "---completion worker -- --queues"),
        ]
        for (function, option, call) in callbacks {
            #expect(bashCase(function, option)?.contains(call) == true, "bash \(function) \(option)")
        }
        for call in ["---completion status -- positional@0", "---completion account show -- positional@0",
                     "---completion schedule pause -- positional@0", "---completion queue resume -- positional@0",
                     "---completion events -- positional@0", "---completion status -- --batch"] {
            #expect(bash.contains(call) && zsh.contains(call) && fish.contains(call), "a shell lacks '\(call)'")
        }
    }
}

extension CompletionTests {
    /// A TCP socket that listens on loopback and never accepts: connections complete in the kernel, and then nothing
    /// is ever said (a server hung, or a firewall that swallows packets after the handshake).
    struct SilentListener {
        let descriptor: Int32
        let port: Int

        init() throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestSupportError("socket() failed: \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let descriptor = self.descriptor
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
                }
            }
            guard bound, listen(descriptor, 64) == 0 else { throw TestSupportError("bind/listen failed: \(errno)") }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        func close() { _ = Glibc.close(descriptor) }
    }
}
