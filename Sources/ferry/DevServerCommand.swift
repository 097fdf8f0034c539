import ArgumentParser
import FerryDevServer
import Foundation
import Logging
import ServiceLifecycle

struct DevServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev-server",
        abstract: "Run local stand-ins of the services' APIs (Dropbox, Google Drive, OneDrive, Instagram, Flickr) for demos and tests.",
        discussion: """
            One port serves the API, content and OAuth hosts (point an account's base URLs, or the official \
            SDK's DROPBOX_API_HOST / DROPBOX_API_CONTENT_HOST, at it). Files are stored on disk under --storage. \
            The official SDKs only speak HTTPS: give --tls-cert and --tls-key (PEM) and the port serves HTTPS only. \
            The app secret is read from --app-secret-file, else it is "ferry-dev-secret": refresh tokens from \
            POST /__dev/accounts belong to a confidential app and refresh only with it (add "public_client": true \
            for a token as a PKCE flow without the secret gets). \
            Fault injection is deterministic for a given seed and also applies to the stand-in routes below; \
            --requests-per-second is a budget of time instead.

            Stand-ins for other services, on the same port:
              Flickr REST API, base URL = server root (api.flickr.com/services/rest/):
                GET /services/rest/?method=flickr.people.getPublicPhotos&api_key=K
                &user_id=U&format=json&nojsoncallback=1 (also JSONP and XML); key from
                --flickr-api-key-file, one per line (default ferry-dev-flickr).
              Flickr photos (live.staticflickr.com): GET /flickr/photos/{server}/
                {id}_{secret}_{suffix}.jpg, real JPEGs; suffixes s q t m n w z c b.
              Plain web files: GET|HEAD /web/{path} serves <storage>/.web/ with ETag,
                Last-Modified, Range and If-Range.

            Control endpoints (not part of any service): GET /__dev/stats, POST /__dev/reset-stats, \
            POST /__dev/accounts {"account": NAME, "public_client"?} → a refresh token, \
            GET|POST /__dev/faults {"failure_rate", "partial_chunk_rate", "requests_per_second", "latency_milliseconds", \
            "namespace_lock_milliseconds", "hold_commits": true|false, "fail_commit_paths": ["substring", …], …}, \
            POST /__dev/seed {"account", "folder", "count", "size"}, POST /__dev/reset-cursors {"account"}, \
            POST /__dev/flickr/users {"user_id", "count", "total_as": "string"|"number"}, \
            POST /__dev/web {"path", "size", "seed"}, PUT|DELETE /__dev/web/{path}, \
            POST /__dev/web/status {"path", "status": 410|null}.

            Examples:
              ferry dev-server --port 8910 --storage /tmp/dropbox
              ferry dev-server --port 8910 --storage /tmp/dropbox --token-lifetime 5 \\
                  --failure-rate 0.1 --seed 42
              ferry dev-server --storage /tmp/dropbox --download-bytes-per-second 262144 \\
                  --upload-bytes-per-second 262144
              ferry dev-server --storage /tmp/dropbox --tls-cert cert.pem \\
                  --tls-key key.pem --app-secret-file secret
              ferry dev-server --storage /tmp/dropbox --latency-ms 30 \\
                  --namespace-lock-ms 20
              ferry dev-server --storage /tmp/dropbox --partial-chunk-rate 0.2 \\
                  --write-rate-limit-rate 0.05 --requests-per-second 20
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port (0 picks a free one and prints it).")
    var port = 8910

    @Option(help: ArgumentHelp("Directory for stored files and tokens.", valueName: "dir"), completion: .directory)
    var storage: String

    @Option(name: .customLong("app-key"), help: "OAuth client_id the server accepts.")
    var appKey = "ferry-dev"

    @Option(
        name: .customLong("app-secret-file"),
        help: ArgumentHelp("File holding the app secret (never pass it as an argument); default ferry-dev-secret.", valueName: "file"),
            completion: .file())
    var appSecretFile: String?

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate (chain): serve HTTPS (needs --tls-key).", valueName: "file"),
        completion: .file(extensions: ["pem", "crt"]))
    var tlsCertificateFile: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert.", valueName: "file"),
        completion: .file(extensions: ["pem", "key"]))
    var tlsKeyFile: String?

    @Option(name: .customLong("token-lifetime"), help: ArgumentHelp("Access token lifetime in seconds.", valueName: "s"))
    var tokenLifetime: Double = 14400

    @Option(help: "Fault injection seed.")
    var seed: UInt64 = 0

    @Option(name: .customLong("failure-rate"), help: "Share of requests answered with 5xx.")
    var failureRate: Double = 0

    @Option(name: .customLong("drop-rate"), help: "Share of requests whose connection is closed without a response.")
    var dropRate: Double = 0

    @Option(name: .customLong("drop-after-apply-rate"), help: "Share of writes applied, then dropped without a response.")
    var dropAfterApplyRate: Double = 0

    @Option(name: .customLong("rate-limit-rate"), help: "Share of requests answered 429 with Retry-After.")
    var rateLimitRate: Double = 0

    @Option(name: .customLong("write-contention-rate"), help: "Share of commits answered 409 too_many_write_operations.")
    var writeContentionRate: Double = 0

    @Option(name: .customLong("write-rate-limit-rate"), help: "Share of commits answered 429 too_many_write_operations with Retry-After.")
    var writeRateLimitRate: Double = 0

    @Option(
        name: .customLong("partial-chunk-rate"),
        help: "Share of upload-session appends whose chunk is half kept, the connection then closed without an answer.")
    var partialChunkRate: Double = 0

    @Option(
        name: .customLong("corrupt-commit-rate"),
        help: "Share of commits stored with their first byte changed (the answer carries the stored file's content_hash).")
    var corruptCommitRate: Double = 0

    @Option(name: .customLong("requests-per-second"), help: ArgumentHelp("Requests a second answered before 429s (0 = no budget).", valueName: "n"))
    var requestsPerSecond = 0

    @Option(name: .customLong("latency-ms"), help: ArgumentHelp("Added latency per /2/ request, in milliseconds.", valueName: "ms"))
    var latencyMilliseconds = 0

    @Option(
        name: .customLong("namespace-lock-ms"),
        help: ArgumentHelp(
            "Time each commit holds its account's namespace lock, as at Dropbox; a commit that waits as long again gets 429 "
                + "too_many_write_operations, a finish_batch_v2 takes the lock once (0 = no lock).", valueName: "ms"))
    var namespaceLockMilliseconds = 0

    @Option(
        name: .customLong("download-bytes-per-second"),
        help: ArgumentHelp("Pace of downloads, web files and Flickr photos (0 = unlimited).", valueName: "n"))
    var downloadBytesPerSecond: Int64 = 0

    @Option(
        name: .customLong("upload-bytes-per-second"),
        help: ArgumentHelp("Pace at which upload bodies are read (0 = unlimited).", valueName: "n"))
    var uploadBytesPerSecond: Int64 = 0

    @Option(
        name: .customLong("flickr-api-key-file"),
        help: ArgumentHelp("File holding the Flickr API key(s) the server accepts, one per line.", valueName: "file"), completion: .file())
    var flickrAPIKeyFile: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.",
        completion: CompletionValues.logLevel)
    var logLevel: String?

    func run() async throws {
        try await runReporting {
            LoggingBootstrap.bootstrap(level: logLevel, defaultLevel: .info)
            let logger = Logger(label: "ferry.dev-server")
            var secret: String?
            if let appSecretFile {
                guard let text = try? String(contentsOfFile: appSecretFile, encoding: .utf8) else {
                    throw CLIUsageError(message: "cannot read --app-secret-file \(appSecretFile)")
                }
                secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard downloadBytesPerSecond >= 0 else {
                throw CLIUsageError(message: "--download-bytes-per-second must not be negative")
            }
            guard uploadBytesPerSecond >= 0 else {
                throw CLIUsageError(message: "--upload-bytes-per-second must not be negative")
            }
            guard latencyMilliseconds >= 0, namespaceLockMilliseconds >= 0 else {
                throw CLIUsageError(message: "--latency-ms and --namespace-lock-ms must not be negative")
            }
            guard requestsPerSecond >= 0 else {
                throw CLIUsageError(message: "--requests-per-second must not be negative")
            }
            guard (tlsCertificateFile == nil) == (tlsKeyFile == nil) else {
                throw CLIUsageError(message: "--tls-cert and --tls-key go together")
            }
            let faults = FaultConfiguration(
                seed: seed, failureRate: failureRate, dropRate: dropRate, dropAfterApplyRate: dropAfterApplyRate,
                rateLimitRate: rateLimitRate, writeContentionRate: writeContentionRate, writeRateLimitRate: writeRateLimitRate,
                partialChunkRate: partialChunkRate, corruptCommitRate: corruptCommitRate, requestsPerSecond: requestsPerSecond,
                latencyMilliseconds: latencyMilliseconds, downloadBytesPerSecond: downloadBytesPerSecond,
                uploadBytesPerSecond: uploadBytesPerSecond, namespaceLockMilliseconds: namespaceLockMilliseconds)
            var configuration = DevServerConfiguration(
                host: host, port: port, storageDirectory: storage, appKey: appKey, appSecret: secret,
                accessTokenLifetime: tokenLifetime, faults: faults)
            configuration.tlsCertificateFile = tlsCertificateFile
            configuration.tlsKeyFile = tlsKeyFile
            if let flickrAPIKeyFile {
                guard let text = try? String(contentsOfFile: flickrAPIKeyFile, encoding: .utf8) else {
                    throw CLIUsageError(message: "cannot read --flickr-api-key-file \(flickrAPIKeyFile)")
                }
                let keys = text.split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                guard let first = keys.first else {
                    throw CLIUsageError(message: "--flickr-api-key-file \(flickrAPIKeyFile) holds no key")
                }
                configuration.flickrAPIKey = first
                configuration.additionalFlickrAPIKeys = Array(keys.dropFirst())
            }
            let server = try DevServer(configuration: configuration, logger: logger)
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                let bound = try await server.waitUntilRunning()
                FileHandle.standardOutput.write(Data("dev server listening on \(server.scheme)://\(host):\(bound)\n".utf8))
                try await tasks.waitForAll()
            }
        }
    }
}
