// swift-tools-version:6.2
import PackageDescription

// Dependency direction (each layer only knows the ones above it):
//   CLibPQ → Postgres          connection layer (libpq, knows nothing of jobs)
//   FerryCore                  domain: jobs, events, state machine, retry policy (no I/O)
//   FerryStore                 everything Ferry does in PostgreSQL (events, projection, accounts, sealed secrets)
//   FerryArchive               archive files of finished jobs (gzip JSON Lines, SHA-256, manifests), restore
//   FerryHTTP                  what the HTTP provider clients share (a bounded body reader, form encoding, OAuth PKCE)
//   FerryDropbox               Dropbox API v2 client (HTTP only, knows nothing of jobs or PostgreSQL)
//   FerryGoogleDrive           Google Drive API v3 client (HTTP only, knows nothing of jobs or PostgreSQL)
//   FerryOneDrive              Microsoft Graph OneDrive client: items, upload sessions, QuickXorHash, identity platform OAuth (HTTP only)
//   FerryFlickr                Flickr REST client for public photostreams (HTTP only)
//   FerryInstagram             Instagram API (Instagram Login) client: feed, albums, token refresh (HTTP only)
//   FerryS3                    S3-compatible object storage client, SigV4 (HTTP only)
//   FerryProviders             provider descriptors: schemes, typed options, resolve, job details; local file inspection
//                              and tree walking, which both producers and workers use (FerryCore only, no network)
//   FerryClient                the Swift API for apps: enqueue (lists, streams, trees), status, wait; `ferry enqueue` and
//                              `ferry wait` call it (FerryStore + FerryProviders, no worker)
//   FerryWorker                claims jobs and runs them through each provider's handlers (found via its descriptor)
//   FerryTesting               in-process test tier: MemoryWorkerStore (a WorkerStore without PostgreSQL), WorkerHarness
//   FerryDevServer             a Dropbox-compatible server for demos and tests
//   FerryDashboard             `ferry dashboard`: the web UI over FerryStore (Hummingbird, server-rendered HTML, SSE)
//   ferry                      the CLI executable
//   ferry-bench                the benchmarks (make bench): times real ferry processes and store calls
//   ferry-chaos                drives real ferry processes under faults and checks nothing was lost (make chaos)
let package = Package(
    name: "ferry",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ferry", targets: ["ferry"]),
        .executable(name: "ferry-bench", targets: ["ferry-bench"]),
        .executable(name: "ferry-chaos", targets: ["ferry-chaos"]),
        .library(name: "Postgres", targets: ["Postgres"]),
        .library(name: "FerryCore", targets: ["FerryCore"]),
        .library(name: "FerryStore", targets: ["FerryStore"]),
        .library(name: "FerryDropbox", targets: ["FerryDropbox"]),
        .library(name: "FerryFlickr", targets: ["FerryFlickr"]),
        .library(name: "FerryGoogleDrive", targets: ["FerryGoogleDrive"]),
        .library(name: "FerryOneDrive", targets: ["FerryOneDrive"]),
        .library(name: "FerryS3", targets: ["FerryS3"]),
        .library(name: "FerryProviders", targets: ["FerryProviders"]),
        .library(name: "FerryClient", targets: ["FerryClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.70.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-service-context", from: "1.0.0"),
        // Only the OTLP/HTTP exporter: the default traits would also build gRPC.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "Postgres",
            dependencies: [
                "CLibPQ",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryCore",
            dependencies: []
        ),
        .target(
            name: "FerryStore",
            dependencies: [
                "Postgres",
                "FerryCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "FerryArchive",
            dependencies: [
                "FerryStore",
                "FerryCore",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryHTTP",
            dependencies: [
                "FerryCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "FerryDropbox",
            dependencies: [
                "FerryCore",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryGoogleDrive",
            dependencies: [
                "FerryCore",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryOneDrive",
            dependencies: [
                "FerryCore",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryInstagram",
            dependencies: [
                "FerryCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryFlickr",
            dependencies: [
                "FerryCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryS3",
            dependencies: [
                "FerryCore",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryProviders",
            dependencies: ["FerryCore"]
        ),
        .target(
            name: "FerryDevServer",
            dependencies: [
                "FerryCore",
                "FerryDropbox",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryWorker",
            dependencies: [
                "FerryProviders",
                "FerryStore",
                "FerryDropbox",
                "FerryGoogleDrive",
                "FerryOneDrive",
                "FerryFlickr",
                "FerryInstagram",
                "FerryS3",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                "FerryCore",
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
            ]
        ),
        // The in-process test tier: links the PostgreSQL client library (types) but needs no server.
        .target(
            name: "FerryTesting",
            dependencies: [
                "FerryWorker",
                "FerryStore",
                "FerryCore",
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "FerryClient",
            // Not FerryWorker: an app that only enqueues links no HTTP server, metrics or provider client.
            dependencies: [
                "FerryCore",
                "FerryProviders",
                "FerryStore",
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryDashboard",
            dependencies: [
                "FerryStore",
                "FerryCore",
                "FerryProviders",
                "Postgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "FerryDashboard",
                "FerryClient",
                "FerryProviders",
                "FerryWorker",
                "FerryArchive",
                "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                "FerryDevServer",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "FerryStore",
                "FerryCore",
                "Postgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .executableTarget(
            name: "ferry-bench",
            // Workers run as `ferry worker` processes: the benchmarks link no worker code.
            dependencies: [
                "FerryStore",
                "FerryCore",
                "Postgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "ferry-chaos",
            dependencies: [
                "FerryCore",
                "FerryStore",  // FerryStoreError's reading of a lost connection, nothing else of the store
                "Postgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "FerryTestSupport",
            dependencies: [
                "Postgres", "FerryStore", "FerryCore", "FerryProviders", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/FerryTestSupport"
        ),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "FerryTestSupport"]),
        .testTarget(name: "FerryCoreTests", dependencies: ["FerryCore", "FerryTestSupport"]),
        .testTarget(name: "FerryProvidersTests", dependencies: ["FerryProviders", "FerryCore", "FerryTestSupport"]),
        .testTarget(name: "FerryDashboardTests", dependencies: ["FerryDashboard", "FerryTestSupport"]),
        // Only the public API: the test imports FerryClient without @testable.
        // The tree test runs a real worker in process (the app's side is still only the public API).
        .testTarget(
            name: "FerryClientTests",
            dependencies: [
                "FerryClient", "FerryTestSupport", "FerryWorker", "FerryTesting", "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "FerryStoreTests",
            dependencies: ["FerryStore", "FerryCore", "Postgres", "FerryTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "FerryDevServerTests",
            dependencies: [
                "FerryDevServer", "FerryTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "FerryDropboxTests",
            dependencies: [
                "FerryDropbox", "FerryHTTP", "FerryDevServer", "FerryCore", "FerryTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryGoogleDriveTests",
            dependencies: [
                "FerryGoogleDrive", "FerryHTTP", "FerryDevServer", "FerryCore", "FerryTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // OneDrive: the client against the dev server's Graph emulation, and the handlers through real workers (an
        // account in PostgreSQL: a slow target, not in the Makefile's fast tier).
        .testTarget(
            name: "FerryOneDriveTests",
            dependencies: [
                "FerryOneDrive", "FerryDevServer", "FerryCore", "FerryTestSupport", "FerryWorker", "FerryProviders", "FerryStore",
                "FerryTesting", "FerryS3", "FerryHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryFlickrTests",
            dependencies: [
                "FerryFlickr", "FerryDevServer", "FerryTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryS3Tests",
            dependencies: [
                "FerryS3",
                "FerryTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryArchiveTests",
            dependencies: [
                "FerryArchive", "FerryStore", "FerryCore", "Postgres", "FerryTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryCLITests",
            dependencies: [
                "FerryStore", "FerryArchive", "FerryCore", "Postgres", "FerryTestSupport", "FerryDashboard", "FerryProviders",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // `make check`: the worker against MemoryWorkerStore, and the store contract against both stores.
        .testTarget(
            name: "FerryInProcessTests",
            dependencies: [
                "FerryTesting", "FerryWorker", "FerryStore", "FerryCore", "Postgres", "FerryTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FerryWorkerTests",
            dependencies: [
                "FerryWorker", "FerryProviders", "FerryStore", "FerryCore", "FerryS3", "FerryFlickr", "Postgres", "FerryTestSupport",
                // The Google Drive handlers run in process against the dev server's Drive emulation.
                "FerryGoogleDrive", "FerryInstagram", "FerryDevServer", "FerryTesting", "FerryHTTP", "FerryClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ]
)
