import FerryCore
import Foundation

extension BandwidthLimit {
    /// Bytes per second from rclone's `--bwlimit` notation: a number with an optional suffix B, K, M, G or T
    /// (powers of 1024; a bare number is KiB/s, as in rclone), e.g. `20M`, `512K`, `1.5G`. `0` and `off` mean
    /// no limit (returned as 0); nil for anything else.
    public static func parseRate(_ text: String) -> Int64? {
        exactRate(text).map { Int64($0.rounded()) }
    }

    /// `parseRate` for a flag: bytes per second, 0 for no limit; a value that is not a rate, or one above zero
    /// that rounds to 0 bytes per second (it would silently mean "no limit"), is refused naming `field`.
    public static func rate(_ text: String, field: String) throws(ValidationIssue) -> Int64 {
        guard let exact = exactRate(text) else {
            throw ValidationIssue(
                field: field, problem: "'\(text)' is not a rate",
                fix: "give bytes per second with K, M or G: \(field) 20M, \(field) 512K (0 or off: no limit)")
        }
        let rate = Int64(exact.rounded())
        guard rate > 0 || exact == 0 else {
            throw ValidationIssue(
                field: field, problem: "'\(text)' is less than 1 byte per second, which would mean no limit at all",
                fix: "give at least 1B (one byte per second), or 0 or off to remove the limit")
        }
        return rate
    }

    /// The rate as written, in bytes per second before rounding (0 for `off`); nil when malformed.
    private static func exactRate(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed == "OFF" { return 0 }
        guard let last = trimmed.last else { return nil }
        let scales: [Character: Double] = ["B": 1, "K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024, "T": 1024 * 1024 * 1024 * 1024]
        let scale = scales[last] ?? 1024
        let number = scales[last] == nil ? Substring(trimmed) : trimmed.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let amount = Double(number), amount.isFinite,
            amount >= 0, amount * scale < 1e15
        else { return nil }
        return amount * scale
    }
}
