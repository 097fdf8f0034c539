import CLibPQ
import FerryTestSupport
import Foundation
@testable import Postgres
import Testing

/// The keepalive and `tcp_user_timeout` defaults merged with a user's connection string. No server: the effective
/// values are read back from libpq itself (`PQconnectStartParams` toward a socket that does not exist, then
/// `PQconninfo`), so these tests check libpq's own precedence, not a model of it.
@Suite("connection parameters: TCP defaults and the user's string", .tags(.fast))
struct PostgresConnectionParametersTests {
    static let tcpKeys = PostgresConnectionParameters.tcpDefaults.map(\.key)

    /// The options libpq would connect with, for these parameters.
    static func effective(_ parameters: PostgresConnectionParameters) throws -> [String: String] {
        // Appended last so they win: a socket directory that does not exist, so nothing resolves or connects.
        let keys = parameters.keys + ["host", "port"]
        let values = parameters.values + ["/nonexistent-ferry-socket-dir", "1"]
        let conn: OpaquePointer? = withCStringArray(keys) { keyPointers in
            withCStringArray(values) { PQconnectStartParams(keyPointers, $0, 1) }
        }
        let handle = try #require(conn)
        defer { PQfinish(handle) }
        let options = try #require(PQconninfo(handle), "libpq rejected the parameters")
        defer { PQconninfoFree(options) }
        var found = [String: String]()
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return found
    }

    static func effective(_ conninfo: String?, environment: [String: String] = [:]) throws -> [String: String] {
        try effective(PostgresConnectionParameters(
            configuration: PostgresConfiguration(connectionString: conninfo), environment: environment))
    }

    @Test("without a string, and with a URL that sets none of them, every default applies")
    func defaultsApply() throws {
        for conninfo in [nil, "", "postgresql://ferry@db.example.com:5432/ferry", "host=db.example.com dbname=ferry"] {
            let options = try Self.effective(conninfo)
            for (key, value) in PostgresConnectionParameters.tcpDefaults {
                #expect(options[key] == value, "\(key) for \(conninfo ?? "nil")")
            }
            #expect(options["connect_timeout"] == "10")
        }
    }

    @Test("a URL's own query parameters win, the others are kept, the rest are defaults")
    func urlQueryParametersWin() throws {
        let options = try Self.effective(
            "postgresql://ferry:pa%26ss@db.example.com/ferry?sslmode=disable&keepalives_idle=60&application_name=mine&connect_timeout=3")
        #expect(options["keepalives_idle"] == "60")
        #expect(options["sslmode"] == "disable")
        #expect(options["application_name"] == "mine")
        #expect(options["connect_timeout"] == "3")
        #expect(options["password"] == "pa&ss")
        #expect(options["keepalives"] == "1")
        #expect(options["tcp_user_timeout"] == "30000")
    }

    @Test("a value the user set to 0 stays 0 (keepalives off, the kernel's own user timeout)")
    func zeroWins() throws {
        let url = try Self.effective("postgresql:///ferry?keepalives=0&tcp_user_timeout=0")
        #expect(url["keepalives"] == "0")
        #expect(url["tcp_user_timeout"] == "0")
        #expect(url["keepalives_count"] == "3", "what the user did not set still gets the default")
        let conninfo = try Self.effective("dbname=ferry keepalives = 0 tcp_user_timeout='0'")
        #expect(conninfo["keepalives"] == "0")
        #expect(conninfo["tcp_user_timeout"] == "0")
    }

    @Test("quoted conninfo values: a keyword inside a quoted value is not a setting")
    func quotedValues() throws {
        let options = try Self.effective(
            #"dbname='my db' password='it\'s keepalives=0' application_name='tcp_user_timeout=1' keepalives_interval='7'"#)
        #expect(options["dbname"] == "my db")
        #expect(options["password"] == "it's keepalives=0")
        #expect(options["application_name"] == "tcp_user_timeout=1")
        #expect(options["keepalives"] == "1")
        #expect(options["tcp_user_timeout"] == "30000")
        #expect(options["keepalives_interval"] == "7")
    }

    @Test("a percent-encoded keyword in a URL value is data, not a setting")
    func encodedURLValues() throws {
        let options = try Self.effective("postgresql://db.example.com/ferry?options=-c%20keepalives%3D0&application_name=a%3Db")
        #expect(options["options"] == "-c keepalives=0")
        #expect(options["keepalives"] == "1")
    }

    @Test("a string libpq cannot parse gets the defaults placed before it and fails in libpq, not here")
    func unparsableString() throws {
        for hostile in ["host='unterminated", "postgresql://[::1/ferry", "=value", "keepalives"] {
            #expect(PostgresConnectionParameters.explicitKeywords(in: hostile).isEmpty, "\(hostile)")
            let parameters = PostgresConnectionParameters(configuration: PostgresConfiguration(connectionString: hostile))
            #expect(parameters.keys.last == "dbname")
            #expect(Set(Self.tcpKeys).isSubset(of: Set(parameters.keys)))
        }
    }

    @Test("connect_timeout: the string's, else PGCONNECT_TIMEOUT's, else the configuration's")
    func connectTimeout() throws {
        #expect(try Self.effective("dbname=ferry connect_timeout=4", environment: ["PGCONNECT_TIMEOUT": "9"])["connect_timeout"] == "4")
        let parameters = PostgresConnectionParameters(
            configuration: PostgresConfiguration(connectionString: "dbname=ferry"), environment: ["PGCONNECT_TIMEOUT": "9"])
        #expect(!parameters.keys.contains("connect_timeout"), "libpq reads PGCONNECT_TIMEOUT itself")
    }

    @Test("a connect deadline cuts the string's timeout, and comes after the string so it wins")
    func deadlineCuts() throws {
        var configuration = PostgresConfiguration(connectionString: "postgresql:///ferry?connect_timeout=60")
        let now = ContinuousClock.now
        configuration.connectDeadline = now + .seconds(5)
        let parameters = PostgresConnectionParameters(configuration: configuration, environment: [:], now: now)
        #expect(try Self.effective(parameters)["connect_timeout"] == "6")
        #expect(parameters.keys.lastIndex(of: "connect_timeout")! > parameters.keys.firstIndex(of: "dbname")!)
    }
}
