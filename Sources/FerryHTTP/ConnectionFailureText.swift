import Foundation
import NIOCore

/// A connection that could not be made, said in plain words: NIO's own text for a refused connection is
/// `connection reset (error set): Connection refused (errno: 111)`, which says "reset" for a refusal.
public enum ConnectionFailureText {
    /// `connection refused by example.com:8080 (nothing listens there)` and the like for a failed connection
    /// (found inside NIO's connection error too), else nil: the caller keeps its own description.
    public static func describe(_ error: any Error, host: String? = nil) -> String? {
        let place = host.map { " by \($0)" } ?? ""
        let target = host.map { " to \($0)" } ?? ""
        for code in errnoCodes(error) {
            switch code {
            case ECONNREFUSED: return "connection refused\(place) (nothing listens there, or a firewall rejects it)"
            case ECONNRESET: return "connection reset\(place) (the peer closed it abruptly)"
            case ENETUNREACH, EHOSTUNREACH: return "no route\(target) (network or host unreachable)"
            case ETIMEDOUT: return "connecting\(target) timed out"
            default: continue
            }
        }
        return nil
    }

    /// The errno codes of `error`: its own when it is an `IOError`, else those of the per-address failures an
    /// NIO connection error lists (found by reflection: that type lives in NIOPosix).
    static func errnoCodes(_ error: any Error) -> [CInt] {
        if let io = error as? IOError { return [io.errnoCode] }
        var codes = [CInt]()
        for child in Mirror(reflecting: error).children where child.label == "connectionErrors" {
            guard let failures = child.value as? [Any] else { continue }
            for failure in failures {
                for part in Mirror(reflecting: failure).children where part.label == "error" {
                    if let io = part.value as? IOError { codes.append(io.errnoCode) }
                }
            }
        }
        return codes
    }
}
