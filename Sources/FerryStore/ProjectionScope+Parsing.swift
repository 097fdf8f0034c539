import Foundation

extension ProjectionScope {
    /// Parses `verify --since`: a log position (digits), an RFC 3339 time, or a duration ago (`90s`, `10m`, `2h`,
    /// `1d`). `nil` when the text is none of these.
    public init?(since text: String, now: Date = Date()) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        if trimmed.allSatisfy(\.isASCIIDigit) {
            guard let position = Int64(trimmed) else { return nil }
            self = .afterPosition(position)
            return
        }
        let unit: Double? = switch last {
        case "s": 1
        case "m": 60
        case "h": 3600
        case "d": 86400
        default: nil
        }
        let amount = trimmed.dropLast()
        if let unit, !amount.isEmpty, amount.allSatisfy(\.isASCIIDigit), let count = Double(amount) {
            self = .recordedSince(now.addingTimeInterval(-count * unit))
            return
        }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: trimmed) {
                self = .recordedSince(date)
                return
            }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
