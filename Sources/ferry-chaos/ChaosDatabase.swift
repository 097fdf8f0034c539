import FerryStore
import Foundation
import Logging
import Postgres

/// The run's reads of PostgreSQL (the checks, and finding a worker to pause), retried while the server restarts.
struct ChaosDatabase: Sendable {
    let url: String
    let client: PostgresClient

    init(url: String) {
        self.url = url
        // Lost connections are expected here (the restarts are ours) and retried: only errors are worth a line.
        var logger = Logger(label: "ferry-chaos.postgres")
        logger.logLevel = .error
        client = PostgresClient(
            configuration: PostgresConfiguration(connectionString: url, applicationName: "ferry-chaos", poolSize: 2), logger: logger)
    }

    /// Drops and creates `name` on the cluster of `adminURL`; returns its URL.
    static func create(_ name: String, adminURL: String) async throws -> String {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: adminURL, applicationName: "ferry-chaos", poolSize: 1))
        defer { admin.close() }
        try await admin.withConnection { connection in
            try connection.execute("DROP DATABASE IF EXISTS \(PostgresIdentifier(name).quoted) WITH (FORCE)")
            try connection.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)")
        }
        guard let slash = adminURL.range(of: "/", options: .backwards), adminURL[..<slash.lowerBound].contains("//") else {
            throw ChaosError("--database-url must end in /DATABASE: \(adminURL)")
        }
        return String(adminURL[..<slash.upperBound]) + name
    }

    /// Rows of one statement; a lost connection (PostgreSQL restarting) is retried for up to `patience` seconds.
    func rows(_ sql: String, _ binds: [any PostgresBindable] = [], patience: Double = 120) async throws -> [PostgresRow] {
        let deadline = Date().addingTimeInterval(patience)
        while true {
            do {
                return try await client.withConnection { try $0.query(sql, binds).rows }
            } catch where FerryStoreError.code(of: error) == .connectionLost && Date() < deadline {
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// The single value of a one-row, one-column query, as text.
    func value(_ sql: String, _ binds: [any PostgresBindable] = []) async throws -> String? {
        try await rows(sql, binds).first?.values.first ?? nil
    }

    func close() {
        client.close()
    }
}
