import CLibPQ
import Foundation

/// The keyword/value arrays handed to `PQconnectdbParams`: Ferry's defaults, then the user's connection string,
/// then the connect deadline. Every connection (the worker's pool, the CLI, the dashboard, the LISTEN connection)
/// is opened from these, so each gets the same protection against a peer that goes silent.
///
/// Order matters: libpq processes the arrays in index order and the last value of a keyword wins, and the string
/// (passed as `dbname` with `expand_dbname`) is expanded where it stands. Defaults therefore go before it, so a
/// value the user wrote in the URL or conninfo (even `0`) overrides them; the deadline goes after it, because it
/// must cut whatever timeout the string set.
struct PostgresConnectionParameters {
    private(set) var keys: [String] = []
    private(set) var values: [String] = []

    /// TCP keepalives and `tcp_user_timeout`, added unless the connection string sets the keyword.
    ///
    /// Without them a connection whose peer vanishes without a reset (a moved IP, a firewall that drops state, a
    /// cable) waits for the kernel's retransmission limit, about 15 minutes on Linux. With them: an idle
    /// connection (the LISTEN connection, a pooled one) probes after 10 s and gives up after 3 unanswered probes
    /// 5 s apart; data that stays unacknowledged for 30 s (a statement sent into the void, or keepalive probes)
    /// ends the connection. So a silent peer costs about 30 s, after which the caller sees `.connectionLost`.
    /// libpq ignores these keywords on Unix-domain sockets.
    static let tcpDefaults: [(key: String, value: String)] = [
        ("keepalives", "1"),
        ("keepalives_idle", "10"),
        ("keepalives_interval", "5"),
        ("keepalives_count", "3"),
        ("tcp_user_timeout", "30000"),
    ]

    init(
        configuration: PostgresConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
        now: ContinuousClock.Instant = .now
    ) {
        let conninfo = configuration.connectionString.flatMap { $0.isEmpty ? nil : $0 }
        let explicit = conninfo.map(Self.explicitKeywords(in:)) ?? [:]
        append("fallback_application_name", configuration.applicationName)
        append("client_encoding", "UTF8")
        for (key, value) in Self.tcpDefaults where explicit[key] == nil { append(key, value) }
        let environmentTimeout = environment["PGCONNECT_TIMEOUT"]
        let stringTimeout = explicit["connect_timeout"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if environmentTimeout == nil && stringTimeout == nil {
            append("connect_timeout", String(configuration.connectTimeoutSeconds))
        }
        if let conninfo { append("dbname", conninfo) }
        if let deadline = configuration.connectDeadline, deadline > now {
            // The timeout in force (0 or less: for ever), cut to the time left.
            let inForce = stringTimeout ?? environmentTimeout.flatMap { Int($0) } ?? configuration.connectTimeoutSeconds
            let left = Int((Double((deadline - now).components.seconds) + 1).rounded(.down))
            if inForce <= 0 || left < inForce { append("connect_timeout", String(max(1, left))) }
        }
    }

    private mutating func append(_ key: String, _ value: String) {
        keys.append(key)
        values.append(value)
    }

    /// The keywords a connection string sets, with their values, read by libpq's own parser (a URL with its query
    /// parameters, or `key=value` text with quoting). Empty when libpq cannot parse the string: the connection
    /// attempt then reports why, and defaults placed before the string cannot override anything in it anyway.
    static func explicitKeywords(in conninfo: String) -> [String: String] {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            // The message may quote the string, password included: never kept.
            if let error { PQfreemem(error) }
            return [:]
        }
        defer { PQconninfoFree(options) }
        var found = [String: String]()
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return found
    }
}
