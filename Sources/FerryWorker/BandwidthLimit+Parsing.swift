import Foundation

extension BandwidthLimit {
    /// Bytes per second from rclone's `--bwlimit` notation: a number with an optional suffix B, K, M, G or T
    /// (powers of 1024; a bare number is KiB/s, as in rclone), e.g. `20M`, `512K`, `1.5G`. `0` and `off` mean
    /// no limit (returned as 0); nil for anything else.
    public static func parseRate(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed == "OFF" { return 0 }
        guard let last = trimmed.last else { return nil }
        let scales: [Character: Double] = ["B": 1, "K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024, "T": 1024 * 1024 * 1024 * 1024]
        let scale = scales[last] ?? 1024
        let number = scales[last] == nil ? Substring(trimmed) : trimmed.dropLast()
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let amount = Double(number), amount.isFinite,
            amount >= 0, amount * scale < 1e15
        else { return nil }
        return Int64((amount * scale).rounded())
    }
}
