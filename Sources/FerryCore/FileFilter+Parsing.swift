import Foundation

extension FileFilter {
    /// A size as rclone writes them: a number with an optional binary suffix `B`, `K`, `M`, `G`, `T`, `P`
    /// (`100k`, `5M`, `1.5G`, also `5Mi`, `5MiB`); a bare number is KiB, as in rclone. `nil` when malformed.
    public static func parseSize(_ text: String) -> Int64? {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !body.isEmpty else { return nil }
        if body.lowercased().hasSuffix("ib") {
            body = body.dropLast(2)
        } else if body.lowercased().hasSuffix("i") {
            body = body.dropLast()
        }
        var multiplier: Double = 1024
        if let last = body.last, last.isLetter {
            switch last.lowercased() {
            case "b": multiplier = 1
            case "k": multiplier = 1024
            case "m": multiplier = 1024 * 1024
            case "g": multiplier = 1024 * 1024 * 1024
            case "t": multiplier = 1024 * 1024 * 1024 * 1024
            case "p": multiplier = 1024 * 1024 * 1024 * 1024 * 1024
            default: return nil
            }
            body = body.dropLast()
        }
        guard !body.isEmpty, body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let number = Double(body), number >= 0
        else { return nil }
        let bytes = (number * multiplier).rounded()
        guard bytes < 9.2e18 else { return nil }
        return Int64(bytes)
    }

    /// A duration as rclone writes them, in seconds: a number with a suffix `ms`, `s`, `m`, `h`, `d`, `w`, `M`
    /// (30 days) or `y` (365 days), or several run together (`1h30m`); a bare number is seconds. `nil` when
    /// malformed.
    public static func parseDuration(_ text: String) -> TimeInterval? {
        let scalars = Array(text.trimmingCharacters(in: .whitespaces).unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        var total: TimeInterval = 0
        var index = 0
        while index < scalars.count {
            var digits = ""
            while index < scalars.count, scalars[index].properties.numericType != nil || scalars[index] == "." {
                guard scalars[index].isASCII else { return nil }
                digits.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard let number = Double(digits) else { return nil }
            var unit = ""
            while index < scalars.count, scalars[index].isASCII, scalars[index].properties.isAlphabetic {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            let seconds: TimeInterval
            switch unit {
            case "": seconds = 1
            case "ms": seconds = 0.001
            case "s": seconds = 1
            case "m": seconds = 60
            case "h": seconds = 3600
            case "d": seconds = 86_400
            case "w": seconds = 7 * 86_400
            case "M": seconds = 30 * 86_400
            case "y": seconds = 365 * 86_400
            default: return nil
            }
            total += number * seconds
        }
        return total
    }

    /// The longest age limit, 10,000 years: anything longer means "any file" and, as a time before now, falls off
    /// what timestamps and the JSON of a job can hold (a crash, not an answer).
    public static let longestAge: TimeInterval = 10_000 * 365 * 86_400

    /// An age limit as a point in time: a duration before `now` (`7d`, `2h`, up to ``longestAge``), or a date
    /// (`2026-01-31`, taken as UTC midnight) or an ISO 8601 time with a zone (`2026-01-31T12:00:00Z`). `nil` when
    /// malformed or longer than ``longestAge``.
    public static func parseAgeLimit(_ text: String, now: Date) -> Date? {
        if let seconds = parseDuration(text) {
            guard seconds.isFinite, seconds <= longestAge else { return nil }
            return now.addingTimeInterval(-seconds)
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "-")
        if parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCII) }), let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), parts[0].count == 4, (1...12).contains(month), (1...31).contains(day)
        {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar.date(from: DateComponents(year: year, month: month, day: day))
        }
        if trimmed.contains("T") { return ScheduleTime.parse(trimmed, now: now) }
        return nil
    }

    /// The rules of a `--filter-from` file: `+ GLOB` takes, `- GLOB` leaves out, `#` and `;` start comments,
    /// blank lines are skipped. Each rule's origin is `NAME:LINE`.
    public static func rules(fromFilterFile text: String, name: String) throws(ValidationIssue) -> [Rule] {
        var rules = [Rule]()
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(raw)
            if line.last == "\r" { line = line.dropLast() }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            let origin = "--filter-from \(name):\(number)"
            guard trimmed.hasPrefix("+ ") || trimmed.hasPrefix("- ") else {
                throw ValidationIssue(
                    field: "--filter-from", problem: "\(name) line \(number): not a rule", fix: "write + GLOB to take files, - GLOB to leave them out, # for a comment")
            }
            let glob = String(trimmed.dropFirst(2))
            do throws(GlobPattern.SyntaxError) {
                rules.append(Rule(include: trimmed.hasPrefix("+"), pattern: try GlobPattern(glob), origin: "\(origin) (\(trimmed))"))
            } catch {
                throw ValidationIssue(field: "--filter-from", problem: "\(name) line \(number): \(error.problem)", fix: error.fix)
            }
        }
        return rules
    }
}
