import FerryCore
import Foundation

/// How much of its request budget the app and the account have used, from the `X-App-Usage` and
/// `X-Business-Use-Case-Usage` headers (percentages of the limits), so a caller can slow down before the service
/// throttles it.
public struct InstagramUsage: Sendable, Equatable {
    /// The largest percentage any of the headers reports (`call_count`, `total_cputime`, `total_time`).
    public var percent: Double
    /// Minutes the business use case said access is blocked for (`estimated_time_to_regain_access`), 0 when open.
    public var minutesToRegainAccess: Double

    public init(percent: Double, minutesToRegainAccess: Double = 0) {
        self.percent = percent
        self.minutesToRegainAccess = minutesToRegainAccess
    }

    /// The usage the headers report, or `nil` when neither is present or parses. Hostile input: unknown shapes and
    /// values out of range are ignored, never trusted.
    public static func parse(appUsage: String?, businessUsage: String?) -> InstagramUsage? {
        var found = false
        var usage = InstagramUsage(percent: 0)
        if let appUsage, appUsage.utf8.count <= 4096, let json = try? JSONValue.parse(appUsage) {
            found = usage.absorb(json) || found
        }
        if let businessUsage, businessUsage.utf8.count <= 16384, case .object(let members)? = try? JSONValue.parse(businessUsage) {
            // `{"<id>": [{"type", "call_count", "total_cputime", "total_time", "estimated_time_to_regain_access"}]}`.
            for case .array(let entries) in members.values {
                for entry in entries.prefix(32) { found = usage.absorb(entry) || found }
            }
        }
        return found ? usage : nil
    }

    private mutating func absorb(_ json: JSONValue) -> Bool {
        var found = false
        for key in ["call_count", "total_cputime", "total_time"] {
            guard let value = json[key].flatMap(Self.number), value.isFinite, (0...10_000).contains(value) else { continue }
            percent = max(percent, value)
            found = true
        }
        if let minutes = json["estimated_time_to_regain_access"].flatMap(Self.number), minutes.isFinite, (0...1440).contains(minutes) {
            minutesToRegainAccess = max(minutesToRegainAccess, minutes)
            found = true
        }
        return found
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}
