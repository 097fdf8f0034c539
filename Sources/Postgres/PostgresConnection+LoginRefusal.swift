import CLibPQ
import Foundation

extension PostgresConnection {
    /// True when a failed connection was refused at the login rather than unreachable: told by libpq's state,
    /// never by its message text.
    ///
    /// libpq keeps the SQLSTATE of a connection-time error (28P01, 28000) to itself; what it does say is whether
    /// the server asked for a password (`PQconnectionUsedPassword`) and whether none was there to give
    /// (`PQconnectionNeedsPassword`). A server that asked for the password and then ended the connection refused
    /// the login (a wrong password, or a role or database it may not use: all after authentication, none cured by
    /// waiting), with one exception: with several hosts or a `target_session_attrs` requirement, a host that
    /// accepted the password may have been left for not being the primary (during a failover), and the last error
    /// may be another host's. Those failures stay connection failures, waited for as before.
    static func refusedLogin(_ conn: OpaquePointer) -> Bool {
        if PQconnectionNeedsPassword(conn) != 0 { return true }
        guard PQconnectionUsedPassword(conn) != 0 else { return false }
        let options = effectiveOptions(conn)
        let hosts = [options["host"], options["hostaddr"]].compactMap { $0 }.map { $0.split(separator: ",").count }.max() ?? 0
        let attributes = options["target_session_attrs"] ?? "any"
        return hosts <= 1 && (attributes.isEmpty || attributes == "any")
    }

    /// The options libpq used for `conn` (URL, keywords, environment and defaults), by keyword; unset ones absent.
    private static func effectiveOptions(_ conn: OpaquePointer) -> [String: String] {
        guard let options = PQconninfo(conn) else { return [:] }
        defer { PQconninfoFree(options) }
        var values = [String: String]()
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }
}
